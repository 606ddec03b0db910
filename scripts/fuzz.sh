#!/usr/bin/env bash
# Fuzzes what a user hands ferry: the command line's parsers and machine
# profiles (libFuzzer, clang, ASan+UBSan), each target for SECONDS (default 60),
# starting from its corpus in tests/fuzz/corpus. The targets run side by side,
# one core each. An input that crashes is left in build-fuzz/crashes/TARGET/;
# copy it into tests/fuzz/regressions/TARGET/, where every build replays it as a
# test once it is fixed. `build` or `run` does one half (scripts/test.sh builds
# while other tests run).
# Usage: scripts/fuzz.sh [SECONDS] [build|run]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
part=${2:-all}
targets=(units profile)

if [ "$part" != run ]; then
  scripts/apt-install.sh fuzz $(scripts/packages.sh fuzz)  # clang and its libFuzzer
  cmake --preset fuzz > build-fuzz.configure.log 2>&1 || { cat build-fuzz.configure.log; exit 1; }
  # Only the fuzz targets: the rest of the tree is built and tested by scripts/test.sh.
  cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/%/_fuzz}"
fi
[ "$part" != build ] || exit 0

fuzz_one() {
  local target=$1 found=build-fuzz/corpus/$1 crashes=build-fuzz/crashes/$1
  rm -rf "$crashes"  # what an earlier run found is not this run's finding
  mkdir -p "$found" "$crashes"
  # New inputs go to build-fuzz; the repository's corpus is read, never written.
  build-fuzz/tests/fuzz/${target}_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$found" "tests/fuzz/corpus/$target" \
    > "build-fuzz/$target.log" 2>&1
}

echo "fuzz: ${targets[*]} side by side for $seconds s"
pids=()
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
  target=${targets[$i]}
  if ! wait "${pids[$i]}"; then
    tail -40 "build-fuzz/$target.log"
    echo "fuzz: $target found an input that fails: $(ls "build-fuzz/crashes/$target")" >&2
    status=1
  else
    echo "fuzz: $target: $(grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/$target.log" | tr '\n' ' ')"
  fi
done
exit $status
