# Sourced by the tests of a cluster in a box, after they set test_name and
# FERRY_CLUSTER_NAME: `cluster` (the script), a scratch folder `work`, `fail`,
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
