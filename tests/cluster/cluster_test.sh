#!/usr/bin/env bash
# scripts/cluster.sh: a box of hosts made and removed with nothing left
# behind; each host its own hostname and address; OpenMPI's launcher starting
# ranks inside the hosts; a host's rate bound by tc; a link taken down; and
# every bad input refused with one line and a non-zero exit.
# Usage: cluster_test.sh REPO_ROOT. Exit 77 (skipped) without root or
# network namespaces.
export FERRY_CLUSTER_NAME=ft$$
test_name=cluster
source "$(dirname "$0")/box_test_lib.sh" "$@"

namespaces() { ip netns list | awk -v p="^$FERRY_CLUSTER_NAME-" '$1 ~ p {print $1}' | sort | tr '\n' ' '; }
before=$(ip netns list | sort | tr '\n' ' ')
root_addresses=$(ip -br addr | sort)

source "$(dirname "$0")/../expect_lib.sh"
nothing_left() {
  [ -z "$(namespaces)" ] || fail "$1: namespaces left behind: $(namespaces)"
  [ ! -e "/run/$FERRY_CLUSTER_NAME-cluster" ] || fail "$1: /run/$FERRY_CLUSTER_NAME-cluster left behind"
}

# Bad input before anything is up.
expect 1 "no box named '$FERRY_CLUSTER_NAME' is up" bash "$cluster" down
expect 1 "no box named '$FERRY_CLUSTER_NAME' is up" bash "$cluster" run -- hostname
expect 2 "up: expected a host count, got 'nothing'" bash "$cluster" up
expect 2 "up: 1 hosts; a box holds 2 to 64" bash "$cluster" up 1
expect 2 "unknown command 'upp'" bash "$cluster" upp 2
expect 2 "run: expected '--' before the command" bash "$cluster" run hostname
# A rate tc refuses, and a host the box does not have: refused, and nothing left of the box begun.
expect 1 "tc refused the rate 'fast' for node2" bash "$cluster" up 2 --rate node2=fast
nothing_left "a rate tc refused"
expect 1 "'node3' is not a host of the box (node1..node2)" bash "$cluster" up 2 --rate node3=1gbit
nothing_left "a rate for a host the box lacks"

# Up: three hosts, each its own hostname and address, which exist only inside the box.
bash "$cluster" up 3 > "$work/up.txt" 2>&1 || { cat "$work/up.txt"; fail "up 3 failed"; }
[ "$(namespaces)" = "$FERRY_CLUSTER_NAME-node1 $FERRY_CLUSTER_NAME-node2 $FERRY_CLUSTER_NAME-node3 $FERRY_CLUSTER_NAME-router " ] ||
  fail "up 3 made: $(namespaces)"
[ "$(ip -br addr | sort)" = "$root_addresses" ] || fail "up changed the machine's own addresses"
expect 1 "a box named '$FERRY_CLUSTER_NAME' is already up (3 hosts)" bash "$cluster" up 2
[ "$(bash "$cluster" hosts | wc -l)" = 3 ] || fail "a second up changed the box"
ip netns exec "$FERRY_CLUSTER_NAME-router" ip route get 192.0.2.1 > /dev/null 2>&1 &&
  fail "the box's router has a route out of the box"

# OpenMPI's launcher starts a rank in each host, each seeing its own hostname.
timeout 120 bash "$cluster" run -- hostname > "$work/hostnames" 2> "$work/err" ||
  { cat "$work/err"; fail "run -- hostname failed"; }
[ "$(sort "$work/hostnames" | tr '\n' ' ')" = "node1 node2 node3 " ] || fail "ranks ran on: $(cat "$work/hostnames")"
timeout 120 bash "$cluster" run -np 6 -- hostname > "$work/hostnames" 2> "$work/err" ||
  { cat "$work/err"; fail "run -np 6 failed"; }
[ "$(sort "$work/hostnames" | uniq -c | awk '{print $1}' | tr '\n' ' ')" = "2 2 2 " ] ||
  fail "6 ranks were not dealt 2 to a host: $(sort "$work/hostnames" | tr '\n' ' ')"
# Every rank yields while it waits: the box's hosts share the machine's cores with the kernel's work for the
# links, and a rank spinning in MPI_Recv made each exchange between hosts cost a scheduler tick (4.1 ms
# spinning, 48 us yielding, for 8 B).
timeout 120 bash "$cluster" run -- sh -c 'echo "$OMPI_MCA_mpi_yield_when_idle"' > "$work/yield" 2> "$work/err" ||
  { cat "$work/err"; fail "run -- sh failed"; }
[ "$(tr '\n' ' ' < "$work/yield")" = "1 1 1 " ] || fail "the ranks' mpi_yield_when_idle: $(tr '\n' ' ' < "$work/yield")"

# A host file naming a host that is not in the box, or one whose link is down: one line, at once.
printf '10.77.1.2 slots=1\n10.77.7.2 slots=1\n' > "$work/hostfile"
expect 255 "'node7' is not a host of the box (node1..node3)" timeout 60 bash "$cluster" run --hostfile "$work/hostfile" -- hostname
bash "$cluster" link node2 down || fail "link node2 down failed"
expect 255 "node2 does not answer: its link is down" timeout 60 bash "$cluster" run -- hostname
bash "$cluster" link node2 up || fail "link node2 up failed"
expect 2 "link: expected up or down, got 'sideways'" bash "$cluster" link node2 sideways

# Bytes from node1 to HOST's address, timed from the first byte to the last at the receiver: "BYTES SECONDS".
send_to() {
  local host=$1 address=$2 bytes=$3
  bash "$cluster" enter "$host" "python3 -c 'import socket, time
s = socket.create_server((\"$address\", 5201))
c, _ = s.accept()
n, first = 0, None
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    first = first or time.monotonic()
    n += len(b)
print(n, time.monotonic() - first)'" > "$work/received" &
  local server=$!
  bash "$cluster" enter node1 "python3 -c 'import socket, time
for _ in range(100):
    try:
        c = socket.create_connection((\"$address\", 5201), timeout=5)
        break
    except OSError:
        time.sleep(0.05)
c.sendall(bytes($bytes))
c.close()'" || fail "node1 could not send to $host"
  wait $server || fail "$host did not receive"
  cat "$work/received"
}

# The rate tc sets binds: 4 MB to a host limited to 20 Mbit/s cannot arrive faster than that (plus its 64 KB burst).
bash "$cluster" rate node2=20mbit || fail "rate node2=20mbit failed"
grep -q "^node2 .* rate 20Mbit" <<< "$(bash "$cluster" status)" || fail "status does not show node2's rate: $(bash "$cluster" status)"
read -r bytes seconds <<< "$(send_to node2 10.77.2.2 4000000)"
[ "$bytes" = 4000000 ] || fail "node2 received $bytes bytes of 4000000"
python3 -c "import sys; rate = 4000000 * 8 / float(sys.argv[1]); sys.exit(0 if rate <= 20e6 * 1.2 else 1)" "$seconds" ||
  fail "4 MB reached node2 in $seconds s, faster than its 20 Mbit/s limit"
expect 1 "tc refused the rate 'fast' for node2" bash "$cluster" rate node2=fast
bash "$cluster" rate node2=off || fail "rate node2=off failed"
grep -q "^node2 .* rate unlimited" <<< "$(bash "$cluster" status)" || fail "node2's limit was not lifted"
read -r bytes seconds <<< "$(send_to node3 10.77.3.2 1000000)"
[ "$bytes" = 1000000 ] || fail "node3 received $bytes bytes of 1000000"

# A process left running in a host is ended by down, with everything else.
bash "$cluster" enter node2 "sleep 600" 2> /dev/null &
sleep 0.5
bash "$cluster" down > /dev/null || fail "down failed"
nothing_left "down"
[ "$(ip netns list | sort | tr '\n' ' ')" = "$before" ] || fail "the namespaces after differ from before"
wait
echo "$test_name: passed"
