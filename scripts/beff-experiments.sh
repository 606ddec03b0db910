#!/usr/bin/env bash
# On 2 or more GPUs, after gpu-evidence.sh built build-gpu: the measurements
# behind p2p-sm's choices in docs/beff.md. Each protocol forced over every
# size (where LL stops paying), and the direct protocol's team count at the
# largest sizes (how many thread blocks it takes to fill NVLink). Then, with
# CTEST=1, the whole test suite. Everything goes into one archive,
# $OUT/beff-experiments.tgz, and a short table to standard output.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
out=$(realpath -m "${OUT:-evidence}")
work=$(mktemp -d)
ferry=./build-gpu/src/ferry
# "size GB/s" of every ring row: the size's two words, then the best rate after the residual.
rates() { grep -E "^  p2p-sm +(LL|direct) " "$1" | awk '{print $3 $4, $9}'; }

for protocol in ll direct; do
  $ferry run beff -q --transport p2p-sm --sm-protocol "$protocol" --repetitions 5 --max-size 16MiB --timeout 10s \
    > "$work/protocol-$protocol.txt" 2>&1
done
echo "p2p-sm ring b(L), GB/s for the ring: LL vs direct"
paste <(rates "$work/protocol-ll.txt") <(rates "$work/protocol-direct.txt" | awk '{print $2}')

for teams in ${SM_TEAMS:-64 128 256 512}; do
  $ferry run beff -q --transport p2p-sm --sm-protocol direct --sm-teams "$teams" --repetitions 3 --max-size 256MiB \
    --timeout 10s > "$work/teams-$teams.txt" 2>&1
  echo "direct, at most $teams teams: $(rates "$work/teams-$teams.txt" | tail -5 | tr '\n' ' ')"
done

if [ "${CTEST:-0}" = 1 ]; then
  (cd build-gpu && timeout 500 ctest --output-on-failure -j8 > "$work/ctest.log" 2>&1)
  grep -E "tests passed|tests failed" "$work/ctest.log"
fi
mkdir -p "$out"
tar czf "$out/beff-experiments.tgz" -C "$work" .
