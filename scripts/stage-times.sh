#!/usr/bin/env bash
# Sourced by scripts/test.sh: `stage NAME COMMAND...` runs COMMAND and records its
# wall time; at exit (a failure included) the recorded stages are printed, so a
# CI log shows where the time went. Stages run in the background (`stage ... &`)
# are recorded too: each writes its own line to a folder, read at the end.
stage_dir=$(mktemp -d)
stage_run_started=$SECONDS

stage() {
  local name=$1 started=$SECONDS code=0
  shift
  echo "== $name" >&2
  # A subshell with -e of its own: under `cmd || code=$?` bash would ignore -e inside a function.
  set +e
  (set -e; "$@")
  code=$?
  set -e
  local line
  line=$(printf '%6d s  %s' $((SECONDS - started)) "$name")
  [ $code -eq 0 ] || line+="  (failed: exit $code)"
  printf '%s\t%s\n' "$started" "$line" > "$stage_dir/$(printf '%06d' "$started")-$BASHPID-$RANDOM"
  return $code
}

print_stage_times() {
  local code=$?
  echo "Stage times (wall clock; stages started together overlap):" >&2
  if compgen -G "$stage_dir/*" > /dev/null; then sort -n "$stage_dir"/* | cut -f2- >&2; fi
  printf '%6d s  total\n' $((SECONDS - stage_run_started)) >&2
  rm -rf "$stage_dir"
  return $code
}
trap print_stage_times EXIT
