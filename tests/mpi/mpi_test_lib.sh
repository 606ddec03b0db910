# Sourced by the MPI tests with their arguments (FERRY MPIEXEC RANKS), after
# they set test_name: a scratch folder, fail, launch on RANKS ranks, the
# checks every first run makes, and what the beff and topo tests check alike
# (a run that passes and the file it wrote, a corrupted message, a run that
# measured nothing).
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

# `ferry run WORKLOAD --backend emu --quick -q --json` on RANKS ranks (WORKLOAD=beff|topo) passes with one rank
# speaking, and its results file holds what the Python on standard input asserts, given `doc` (the file, whose
# verification is PASSED), `ranks` and `workload` (the workload's entry).
passes_and_holds() {
  local workload=$1 checks
  checks=$(cat)
  launch "$ferry" run "$workload" --backend emu --quick -q --json "$work/$workload.json" > "$work/out.txt" 2>&1
  expect_passed_once $? "$workload"
  python3 -c "import json, sys
doc = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
workload = next(w for w in doc['workloads'] if w['name'] == sys.argv[3])
assert doc['verification'] == 'PASSED', doc['verification']
$checks" "$work/$workload.json" "$ranks" "$workload" || fail "the results file is not what the run should hold"
}

# The run whose output is $work/corrupt.txt, given a corrupted message (WHAT says which), ended with exit CODE 1
# and said "WORKLOAD: FAILED".
expect_failed() {
  local code=$1 workload=$2 what=$3
  [ "$code" -eq 1 ] || { cat "$work/corrupt.txt"; fail "$what gave exit $code, expected 1"; }
  grep -q "^$workload: FAILED" "$work/corrupt.txt" || fail "$what did not fail the run"
}

# The run whose output is $work/nothing.txt, where everything asked for was skipped, was refused alike on every
# rank, with no hang: exit CODE 2, a line beginning with SAYS, and nothing says PASSED.
expect_nothing_measured() {
  local code=$1 says=$2
  [ "$code" -eq 2 ] || { cat "$work/nothing.txt"; fail "a run that measured nothing gave exit $code, expected 2"; }
  grep -qF "$says" "$work/nothing.txt" || { cat "$work/nothing.txt"; fail "a run that measured nothing does not say so"; }
  ! grep -q "PASSED" "$work/nothing.txt" || fail "a run that measured nothing said PASSED"
}
