#!/usr/bin/env bash
# On the GPU machine: build with the CUDA backend for Hopper, run every test
# (the GPU ones included), then measure one workload with its tables, JSON
# and CSV. Writes at most 8 files under $OUT (or ./evidence).
# Usage: scripts/gpu-evidence.sh link|stream|overlap|dispatch|beff|topo [extra `ferry run WORKLOAD` options]
#   link:    `ferry run link`, the minimal echo (tools/probes) beside it, and `ferry probe` (the machine profile)
#   stream:  `ferry run stream` and `ferry tune stream --latency L` for each L of $TUNE_LATENCIES (default
#            "40us 20us") over $TUNE_DESIGNS (default all)
#   overlap: `ferry run overlap` with its trace drawn as SVG, and a shorter run on pageable memory
#   dispatch: `ferry run dispatch` (32768 keys, every rung) and the sweep --keys $DISPATCH_SWEEP (default 1K:16M:x4)
#   beff:    `ferry run beff --transport all` on every GPU of the machine with --max-size $BEFF_MAX_SIZE (default
#            256MiB), `mpirun -np GPUS ferry run beff` for the MPI transports and every NCCL variant, and `ferry model beff`
#            from the first run's terms (scripts/beff-experiments.sh has the p2p-sm sweeps)
#   topo:    `ferry run topo` on every GPU of the machine (regular sizes, every topology), the irregular sizes
#            for pair and host-staged, and `mpirun -np GPUS ferry run topo` (every NCCL variant, mpi-cuda, mpi-staged)
set -euo pipefail
workload=${1:?usage: scripts/gpu-evidence.sh link|stream|overlap|dispatch|beff|topo [options]}
shift
out=$(realpath -m "${OUT:-evidence}")
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
bash scripts/gpu-build.sh "$out/build.log"
if [ "${SKIP_CTEST:-0}" != 1 ]; then  # SKIP_CTEST=1: measure only (an exploratory run)
  (cd build-gpu && ctest --output-on-failure -j4 > "$out/ctest.log" 2>&1) || { tail -40 "$out/ctest.log"; exit 1; }
  # ctest exits 0 when it finds no tests: evidence without them is no evidence.
  grep -E "tests passed|Skipped|Failed" "$out/ctest.log" || { echo "ctest ran no tests"; tail -5 "$out/ctest.log"; exit 1; }
fi
ferry=./build-gpu/src/ferry
# beff and topo: every GPU of the machine, NVLink multicast off (shared machines: NCCL's NVLS, and the same for
# anything else that would use it), and the links in the machine file.
multi_gpu() {
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  gpus=$(nvidia-smi -L | wc -l)
  nvidia-smi topo -m >> "$out/nvidia-smi.txt" 2>&1 || true
}
# A command under mpirun, a rank per GPU, the multicast settings passed on.
on_every_gpu() {
  local root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  timeout 300 mpirun "${root[@]}" -np "$gpus" -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST \
    -x NVSHMEM_DISABLE_NVLS "$@"
}
case "$workload" in
  link)
    $ferry run link -q --json "$out/link.json" --csv "$out/link.csv" "$@" | tee "$out/link.txt"
    # The reference for link's flag round trip, in the same run (docs/link.md): link's echo is held to within 5% of it.
    ./build-gpu/tools/probes/minimal_echo | tee -a "$out/link.txt"
    $ferry probe -q -o "$out/profile.json" "$@" > "$out/probe.txt"
    tail -2 "$out/probe.txt"
    ;;
  stream)
    cat "$out/nvidia-smi.txt" "$out/build.log" > "$out/machine.txt" && rm "$out/nvidia-smi.txt" "$out/build.log"
    $ferry run stream -q --json "$out/stream.json" "$@" > "$out/stream.txt" || { tail -40 "$out/stream.txt"; exit 1; }
    sed -n '/^Designs side by side/,$p' "$out/stream.txt"
    # The two latency targets, each searched over the designs that can meet them (TUNE_DESIGNS).
    for target in ${TUNE_LATENCIES:-40us 20us}; do
      # Exit 4 (every configuration passed, none met the target) is a finding; 1 (data wrong) and 3 are not.
      code=0
      $ferry tune stream -q --latency "$target" --design "${TUNE_DESIGNS:-all}" --json "$out/tune-$target.json" \
        > "$out/tune-$target.txt" || code=$?
      [ $code -eq 0 ] || [ $code -eq 4 ] || { tail -40 "$out/tune-$target.txt"; echo "tune $target: exit $code"; exit 1; }
      sed -n '/^The configuration/,$p' "$out/tune-$target.txt"
    done
    ;;
  overlap)
    $ferry run overlap -q --json "$out/overlap.json" --trace "$out/trace.json" "$@" > "$out/overlap.txt" ||
      { tail -40 "$out/overlap.txt"; exit 1; }
    sed -n '/^c = a + b/,$p' "$out/overlap.txt"
    python3 scripts/trace-svg.py "$out/trace.json" "$out/trace.svg"
    $ferry run overlap -q --host pageable --splits 1,4,16,64 "$@" > "$out/overlap-pageable.txt" ||
      { tail -40 "$out/overlap-pageable.txt"; exit 1; }
    grep -E "^note: best|overlap:" "$out/overlap-pageable.txt"
    ;;
  dispatch)
    $ferry run dispatch -q --json "$out/dispatch.json" "$@" > "$out/dispatch.txt" ||
      { tail -60 "$out/dispatch.txt"; exit 1; }
    sed -n '/^Bitonic sort/,$p' "$out/dispatch.txt"
    $ferry run dispatch -q --keys "${DISPATCH_SWEEP:-1K:16M:x4}" --json "$out/dispatch-sweep.json" "$@" \
      > "$out/dispatch-sweep.txt" || { tail -60 "$out/dispatch-sweep.txt"; exit 1; }
    sed -n '/^Per key count/,$p' "$out/dispatch-sweep.txt"
    ;;
  beff)
    multi_gpu
    status=0
    summary() { sed -n '/^b_eff per transport/,/^$/p;/^One-way latency/,/^$/p;/^note:/p;/^skipped:/p;/^beff:/p' "$1"; }
    $ferry run beff -q --max-size "${BEFF_MAX_SIZE:-256MiB}" --timeout 10s --json "$out/beff.json" "$@" \
      > "$out/beff.txt" 2>&1 || status=1
    summary "$out/beff.txt"
    on_every_gpu $ferry run beff -q --transport nccl,nccl-graph,nccl-graph-reg,mpi-staged,mpi-cuda --timeout 10s \
      --json "$out/beff-mpi.json" "$@" > "$out/beff-mpi.txt" 2>&1 || status=1
    summary "$out/beff-mpi.txt"
    $ferry model beff --profile "$out/beff.json" --devices 8,64,512 > "$out/beff-model.txt" 2>&1 || status=1
    cat "$out/beff-model.txt"
    # Eight files come back: the machine and the build share one.
    cat "$out/nvidia-smi.txt" "$out/build.log" > "$out/machine.txt" && rm "$out/nvidia-smi.txt" "$out/build.log"
    exit $status
    ;;
  topo)
    multi_gpu
    status=0
    summary() { sed -n '/^Peak per topology/,/^$/p;/^note:/p;/^skipped:/p;/^topo:/p' "$1"; }
    $ferry run topo -q --timeout 10s --json "$out/topo.json" "$@" > "$out/topo.txt" 2>&1 || status=1
    summary "$out/topo.txt"
    $ferry run topo -q --timeout 10s --sizes irregular --topology pair,host-staged --json "$out/topo-irregular.json" \
      "$@" > "$out/topo-irregular.txt" 2>&1 || status=1
    summary "$out/topo-irregular.txt"
    on_every_gpu $ferry run topo -q --timeout 10s --json "$out/topo-mpi.json" "$@" \
      > "$out/topo-mpi.txt" 2>&1 || status=1
    summary "$out/topo-mpi.txt"
    # At most eight files come back: the machine, the build and the tests share one.
    cat "$out/nvidia-smi.txt" "$out/build.log" "$out/ctest.log" > "$out/machine.txt" 2>/dev/null
    rm -f "$out/nvidia-smi.txt" "$out/build.log" "$out/ctest.log"
    exit $status
    ;;
  *)
    echo "gpu-evidence: unknown workload '$workload' (link, stream, overlap, dispatch, beff or topo)" >&2
    exit 2
    ;;
esac
