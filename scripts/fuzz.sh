#!/usr/bin/env bash
# Fuzzes what a user hands ferry: the command line's parsers and machine
# profiles (libFuzzer, clang, ASan+UBSan), each target for SECONDS (default 60),
# starting from its corpus in tests/fuzz/corpus. An input that crashes is left
# in build-fuzz/crashes/TARGET/; copy it into tests/fuzz/regressions/TARGET/,
# where every build replays it as a test once it is fixed.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

scripts/apt-install.sh fuzz clang libclang-rt-14-dev  # clang and its libFuzzer

cmake --preset fuzz > build-fuzz.configure.log 2>&1 || { cat build-fuzz.configure.log; exit 1; }
# Only the fuzz targets: the rest of the tree is built and tested by scripts/test.sh.
cmake --build build-fuzz -j"$(nproc)" --target units_fuzz profile_fuzz

status=0
for target in units profile; do
  found=build-fuzz/corpus/$target crashes=build-fuzz/crashes/$target
  rm -rf "$crashes"  # what an earlier run found is not this run's finding
  mkdir -p "$found" "$crashes"
  echo "fuzz: $target for $seconds s"
  # New inputs go to build-fuzz; the repository's corpus is read, never written.
  if ! build-fuzz/tests/fuzz/${target}_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$crashes/" "$found" "tests/fuzz/corpus/$target" \
      > "build-fuzz/$target.log" 2>&1; then
    tail -40 "build-fuzz/$target.log"
    echo "fuzz: $target found an input that fails: $(ls "$crashes")" >&2
    status=1
  else
    grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/$target.log" | tr '\n' ' '
    echo
  fi
done
exit $status
