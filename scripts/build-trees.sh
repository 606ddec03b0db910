#!/usr/bin/env bash
# scripts/test.sh's second lane: builds the ASan+UBSan, TSan and fuzz trees one
# after another, and writes each one's exit status to DONE_DIR/NAME (asan, tsan,
# fuzz) when it is built, so the tests of a tree start as soon as it is there.
# Under `chrt --idle` it takes only the CPU the tests leave (they wait on the
# emulator's threads much of the time), so a build never slows a test.
# Usage: scripts/build-trees.sh DONE_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
done_dir=${1:?usage: scripts/build-trees.sh DONE_DIR}
. scripts/stage-times.sh

build() {  # NAME COMMAND...
  local name=$1 code=0
  shift
  stage "$name: configure and build (idle priority)" "$@" > "$done_dir/$name.log" 2>&1 || code=$?
  echo "$code" > "$done_dir/$name.tmp" && mv "$done_dir/$name.tmp" "$done_dir/$name"
}
build asan scripts/sanitize.sh asan build
build tsan scripts/sanitize.sh tsan build
build fuzz scripts/fuzz.sh 0 build
