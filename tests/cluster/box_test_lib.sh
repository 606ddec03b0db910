# Sourced by the tests of a cluster in a box, after they set test_name and
# FERRY_CLUSTER_NAME: `cluster` (the script), a scratch folder `work`, `fail`,
# `node2s_pairs_named_alone`, a trap that removes the box and `work` on exit,
# and exit 77 (skipped) without root or network namespaces. Usage of the
# sourcing test: TEST REPO_ROOT (..., REPO_ROOT last).
set -uo pipefail
cluster=${!#}/scripts/cluster.sh
work=$(mktemp -d)
fail() {
  echo "$test_name: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || { echo "$test_name: skipped: needs root"; rm -rf "$work"; exit 77; }
ip netns add "$FERRY_CLUSTER_NAME-check" 2> /dev/null ||
  { echo "$test_name: skipped: no network namespaces here"; rm -rf "$work"; exit 77; }
ip netns del "$FERRY_CLUSTER_NAME-check"
# Whatever the test made goes when it ends, passed or failed.
trap 'bash "$cluster" down > /dev/null 2>&1; rm -rf "$work"' EXIT

# Fleet doctor's output in $work/out.txt, its exit in `code`, with node2's link the slowest of 4 hosts: node2's two
# pairs are named, with node2 as the host they share, and no other pair.
node2s_pairs_named_alone() {
  local what=$1 named expected
  [ "$code" = 0 ] || [ "$code" = 1 ] || { cat "$work/out.txt"; fail "$what: exit $code"; }
  named=$(grep -E "^WARN pairs between hosts" "$work/out.txt" | sort)
  expected="WARN pairs between hosts (node1 rank 0 -> node2 rank 1)
WARN pairs between hosts (node2 rank 1 -> node3 rank 2)"
  [ "$(sed -E 's/\): .*/)/' <<< "$named")" = "$expected" ] ||
    { cat "$work/out.txt"; fail "$what: node2's pairs, and only they, should be named; named: $named"; }
  grep -q "every pair named has node2 at one end" <<< "$named" || { cat "$work/out.txt"; fail "$what: node2 is not named"; }
  echo "$test_name: $what: named:"
  echo "$named"
}
