# Sourced by the MPI tests with their arguments (FERRY MPIEXEC RANKS), after
# they set test_name: a scratch folder, fail, launch on RANKS ranks, and the
# checks every first run makes.
set -uo pipefail
ferry=$1 mpiexec=$2 ranks=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "$test_name ($ranks ranks): $*" >&2; exit 1; }

launch() {
  local root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  timeout 300 "$mpiexec" "${root[@]}" --oversubscribe -np "$ranks" "$@"
}

# The run whose output is $work/out.txt ended with exit CODE 0, said "WORKLOAD: PASSED", and only one rank spoke.
expect_passed_once() {
  local code=$1 workload=$2
  [ "$code" -eq 0 ] || { cat "$work/out.txt"; fail "exit $code, expected 0"; }
  grep -q "^$workload: PASSED" "$work/out.txt" || fail "no '$workload: PASSED' line"
  [ "$(grep -c '^ferry on' "$work/out.txt")" -eq 1 ] || fail "more than one rank printed the banner"
}
