#!/usr/bin/env bash
# Sourced by scripts/test.sh: `stage NAME COMMAND...` runs COMMAND and records its
# wall time; at exit (a failure included) the recorded stages are printed, so a
# CI log shows where the time went. Stages in background jobs and in scripts that
# source this file too (FERRY_STAGE_DIR, which the first one exports) are recorded
# in the same folder and printed with the rest, in the order they started.
if [ -z "${FERRY_STAGE_DIR:-}" ]; then
  FERRY_STAGE_DIR=$(mktemp -d)
  FERRY_STAGE_ZERO=$(date +%s)
  export FERRY_STAGE_DIR FERRY_STAGE_ZERO
  stage_times_printer=1
fi

stage() {
  local name=$1 started
  shift
  started=$(($(date +%s) - FERRY_STAGE_ZERO))
  echo "== $name" >&2
  # A subshell with -e of its own: under `cmd || code=$?` bash would ignore -e inside a function.
  set +e
  (set -e; "$@")
  local code=$?
  set -e
  local line
  line=$(printf '%5d s  %5d s  %s' "$started" $(($(date +%s) - FERRY_STAGE_ZERO - started)) "$name")
  [ $code -eq 0 ] || line+="  (failed: exit $code)"
  echo "$line" > "$FERRY_STAGE_DIR/$(printf '%06d' "$started")-$BASHPID-$RANDOM"
  return $code
}

print_stage_times() {
  local code=$?
  {
    echo "Stage times (start, wall clock; stages at idle priority fill the time the others leave):"
    if compgen -G "$FERRY_STAGE_DIR/*" > /dev/null; then sort "$FERRY_STAGE_DIR"/* ; fi
    printf '%5s    %5d s  total\n' "" $(($(date +%s) - FERRY_STAGE_ZERO))
  } >&2
  rm -rf "$FERRY_STAGE_DIR"
  return $code
}
[ -n "${stage_times_printer:-}" ] && trap print_stage_times EXIT
true
