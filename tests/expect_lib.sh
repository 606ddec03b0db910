# Sourced by the shell tests (tests/cluster, tests/slurm), which define `fail` and `work`.
# expect CODE MESSAGE COMMAND...: the command exits CODE and its standard error holds MESSAGE; its output stays in
# $work/out and $work/err.
expect() {
  local code=$1 message=$2 got
  shift 2
  "$@" > "$work/out" 2> "$work/err"
  got=$?
  [ "$got" = "$code" ] || { cat "$work/out" "$work/err"; fail "'$*' exited $got, expected $code"; }
  grep -qF -- "$message" "$work/err" || { cat "$work/err"; fail "'$*' does not say: $message"; }
}
