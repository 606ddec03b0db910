#!/usr/bin/env bash
# A cluster in a box: N hosts on one Linux machine, each a network namespace
# with its own hostname (a UTS namespace) and address, joined through a router
# namespace by virtual links whose rate `tc` sets. `run` starts mpirun on the
# first host with a host file of them all, and OpenMPI's own launcher starts
# the ranks inside each, its remote-shell agent pointed at a script that
# enters the host's namespaces. No route leaves the machine: every address
# lives inside a namespace this script made, and the machine's own network is
# never touched. Root only.
#
#   scripts/cluster.sh up N [--rate HOST=RATE]...   N hosts, node1..nodeN (2 to 64)
#   scripts/cluster.sh run [MPIRUN_OPTION]... -- COMMAND [ARG]...
#                                                   mpirun on node1 over the box's hosts; without -np, a rank
#                                                   per host; without --map-by, ranks dealt to the hosts in turn
#   scripts/cluster.sh rate HOST=RATE|HOST=off...  limit a host's link both ways (tc tbf), or lift the limit
#   scripts/cluster.sh link HOST up|down            take a host's link down or bring it back
#   scripts/cluster.sh hosts                        the host file: one line per host, "ADDRESS slots=S"
#   scripts/cluster.sh status                       what is up, a line per host
#   scripts/cluster.sh down                         remove everything `up` made, and any process left in it
#
# RATE is tc's: 10gbit, 2500mbit, 800kbit. On a real cluster `run --hostfile
# FILE -- COMMAND` is plain mpirun with that file; nothing else is needed.
# With a box up, `run --hostfile FILE` launches over the box, on the hosts
# FILE names (addresses of `hosts`, or node names).
#
# Environment: FERRY_CLUSTER_NAME (default ferry) names the namespaces
# (NAME-node1.., NAME-router) and the state folder /run/NAME-cluster; two
# boxes of different names can be up at once. FERRY_CLUSTER_SUBNET (default
# 10.77) is the first two octets of the hosts' addresses: host i is
# SUBNET.i.2, its router side SUBNET.i.1. FERRY_CLUSTER_SLOTS (default 4) is
# each host's slots in the host file. FERRY_CLUSTER_BURST (default 64kb) is
# the bucket a rate lets through at once after an idle link (tbf's burst).
set -uo pipefail

name=${FERRY_CLUSTER_NAME:-ferry}
subnet=${FERRY_CLUSTER_SUBNET:-10.77}
slots=${FERRY_CLUSTER_SLOTS:-4}
state=/run/$name-cluster
router=$name-router
self=$(realpath "$0")

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}
usage() {
  echo "cluster.sh: $*" >&2
  echo "usage: cluster.sh up N [--rate HOST=RATE]... | run [MPIRUN_OPTION]... -- COMMAND... | rate HOST=RATE|off... |" \
    "link HOST up|down | hosts | status | down" >&2
  exit 2
}

[[ $name =~ ^[a-z][a-z0-9-]{0,15}$ ]] || usage "FERRY_CLUSTER_NAME='$name': lowercase letters, digits and '-', 16 at most"
[[ $subnet =~ ^(10|172|192)\.[0-9]{1,3}$ ]] || usage "FERRY_CLUSTER_SUBNET='$subnet': two octets of a private range, such as 10.77"
[[ $slots =~ ^[1-9][0-9]{0,2}$ ]] || usage "FERRY_CLUSTER_SLOTS='$slots': a count from 1"

is_up() { [ -f "$state/hosts" ]; }
host_count() { wc -l < "$state/hosts"; }
need_root() { [ "$(id -u)" = 0 ] || die "$1 needs root (network namespaces and tc)"; }
need_up() { is_up || die "no box named '$name' is up (scripts/cluster.sh up N makes one)"; }

# node3 -> 3, when node3 is one of the box's hosts; else an error naming them.
host_index() {
  local host=$1 n
  n=$(host_count)
  if [[ $host =~ ^node([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -le "$n" ]; then
    echo "${BASH_REMATCH[1]}"
    return 0
  fi
  echo "cluster.sh: '$host' is not a host of the box (node1..node$n)" >&2
  return 1
}

# Runs "$@" inside host i's network and UTS namespaces.
in_host() {
  local i=$1
  shift
  nsenter --net="/run/netns/$name-node$i" --uts="$state/uts/node$i" -- "$@"
}

# The two ends of host i's link, "NAMESPACE DEVICE" a line: the router's side, then the host's.
link_ends() { printf '%s veth-r%s\n%s eth0\n' "$router" "$1" "$name-node$1"; }

# No limit on either end of host i's link.
clear_rate() {
  local ns dev
  while read -r ns dev; do ip netns exec "$ns" tc qdisc del dev "$dev" root 2> /dev/null; done < <(link_ends "$1")
  return 0
}

# Limits host i's link both ways to RATE (a tbf on each end), or lifts the limit for "off". A rate tc refuses
# leaves the link without one.
set_rate() {
  local i=$1 rate=$2 ns dev message
  clear_rate "$i"
  [ "$rate" = off ] && return 0
  while read -r ns dev; do
    # A 64 KiB burst: TCP's segments pass whole, and a transfer of a few MB still binds to the rate.
    message=$(ip netns exec "$ns" tc qdisc add dev "$dev" root tbf rate "$rate" burst "${FERRY_CLUSTER_BURST:-64kb}" latency 50ms 2>&1) || {
      clear_rate "$i"
      echo "cluster.sh: tc refused the rate '$rate' for node$i: ${message:-no reason given} (its link is left without a limit)" >&2
      return 1
    }
  done < <(link_ends "$i")
}

parse_rate() {  # HOST=RATE -> "index rate" on stdout
  local spec=$1 host rate i
  [[ $spec == *=* ]] || { echo "cluster.sh: '$spec': expected HOST=RATE, such as node2=2gbit" >&2; return 1; }
  host=${spec%%=*} rate=${spec#*=}
  [ -n "$rate" ] || { echo "cluster.sh: '$spec': no rate after '='" >&2; return 1; }
  i=$(host_index "$host") || return 1
  echo "$i $rate"
}

# Everything `up` made, whatever state it reached: processes in the hosts,
# the namespaces (their links go with them), the UTS files, the state folder.
remove_all() {
  local ns pids
  for ns in $(ip netns list 2> /dev/null | awk -v p="^$name-(node[0-9]+|router)$" '$1 ~ p {print $1}'); do
    pids=$(ip netns pids "$ns" 2> /dev/null)
    [ -n "$pids" ] && kill -9 $pids 2> /dev/null
    ip netns del "$ns" 2> /dev/null
  done
  if [ -d "$state/uts" ]; then
    for f in "$state"/uts/*; do
      [ -e "$f" ] && umount "$f" 2> /dev/null
    done
  fi
  mountpoint -q "$state/uts" 2> /dev/null && umount "$state/uts"
  rm -rf "$state"
}

cmd_up() {
  need_root "up"
  local n=${1:-}
  [[ $n =~ ^[0-9]+$ ]] || usage "up: expected a host count, got '${n:-nothing}'"
  [ "$n" -ge 2 ] && [ "$n" -le 64 ] || usage "up: $n hosts; a box holds 2 to 64"
  shift
  local rates=()
  while [ $# -gt 0 ]; do
    case $1 in
      --rate)
        [ $# -ge 2 ] || usage "up: --rate needs HOST=RATE"
        rates+=("$2")
        shift 2
        ;;
      --rate=*)
        rates+=("${1#--rate=}")
        shift
        ;;
      *) usage "up: unknown option '$1'" ;;
    esac
  done
  if is_up; then
    die "a box named '$name' is already up ($(host_count) hosts); scripts/cluster.sh down removes it"
  fi
  if ip netns list 2> /dev/null | grep -qE "^$name-(node[0-9]+|router)( |$)"; then
    die "namespaces named $name-* exist without this box's state: remove them (ip netns del), or choose another FERRY_CLUSTER_NAME"
  fi
  for tool in ip tc nsenter unshare mountpoint; do
    command -v "$tool" > /dev/null || die "up needs '$tool', which is not installed"
  done
  mkdir -p "$state/uts" || die "cannot make $state"
  # The hosts' UTS namespaces are kept alive as files bound here: a private mount, so the bindings stay ours.
  trap 'remove_all; exit 1' INT TERM
  fail_up() {
    echo "cluster.sh: up: $*" >&2
    remove_all
    exit 1
  }
  { mount --bind "$state/uts" "$state/uts" && mount --make-private "$state/uts"; } 2> /dev/null ||
    fail_up "cannot bind $state/uts (a private mount keeps the hosts' hostnames)"
  ip netns add "$router" || fail_up "cannot make the router's namespace"
  ip netns exec "$router" sysctl -qw net.ipv4.ip_forward=1 > /dev/null || fail_up "cannot let the router forward"
  ip -n "$router" link set lo up
  local i
  for ((i = 1; i <= n; i++)); do
    local ns=$name-node$i
    ip netns add "$ns" || fail_up "cannot make $ns"
    touch "$state/uts/node$i"
    unshare --uts="$state/uts/node$i" hostname "node$i" || fail_up "cannot give $ns its hostname"
    # The pair is made inside the router's namespace and one end moved: neither end ever lives in the machine's own.
    ip -n "$router" link add "veth-r$i" type veth peer name eth0 netns "$ns" || fail_up "cannot link node$i to the router"
    ip -n "$router" addr add "$subnet.$i.1/24" dev "veth-r$i"
    ip -n "$router" link set "veth-r$i" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$subnet.$i.2/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add default via "$subnet.$i.1" || fail_up "cannot route node$i through the router"
    # TCP gives up on a peer that stopped acknowledging after 4 retries (6.2 s at the 200 ms least timeout,
    # doubling), not Linux's 15 (15 minutes): mpirun, ending a job, waits on its connection to a lost host's
    # daemon for as long as TCP retries. At 5 retries every rank ended 22-28 s after a host's link went down.
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_retries2=4 > /dev/null || fail_up "cannot set node$i's TCP retries"
    echo "$subnet.$i.2 slots=$slots" >> "$state/hosts.new"
  done
  mv "$state/hosts.new" "$state/hosts"
  for spec in "${rates[@]}"; do
    local parsed
    parsed=$(parse_rate "$spec") || fail_up "no box left behind"
    # shellcheck disable=SC2086
    set_rate $parsed || fail_up "no box left behind"
  done
  # The launcher's agent: HOST is an address of the host file (or node name); the rest is the command to run there.
  cat > "$state/enter" << EOF
#!/usr/bin/env bash
exec "$self" enter "\$@"
EOF
  chmod +x "$state/enter"
  trap - INT TERM
  echo "cluster.sh: $n hosts up: node1..node$n at $subnet.1.2..$subnet.$n.2${rates:+, rates ${rates[*]}}"
}

# The remote-shell agent mpirun calls: `enter HOST COMMAND...`, as ssh would be.
cmd_enter() {
  need_up
  local host=${1:-} i
  shift
  [ -n "$host" ] || die "enter: no host"
  if [[ $host =~ ^$subnet\.([0-9]+)\.2$ ]]; then host=node${BASH_REMATCH[1]}; fi
  i=$(host_index "$host") || exit 255
  # ssh to a host whose link is down waits for its own timeout; mpirun then waits for that host's daemon for
  # ever (OpenMPI 4.1's orte_startup_timeout did not end it). Said at once instead.
  if ! ip -n "$router" link show "veth-r$i" 2> /dev/null | grep -q "state UP"; then
    echo "cluster.sh: node$i does not answer: its link is down (scripts/cluster.sh link node$i up)" >&2
    exit 255
  fi
  # ssh runs its arguments as one shell command line; so does this.
  in_host "$i" /bin/sh -c "$*"
}

cmd_run() {
  local hostfile="" own=1 mpirun_args=() have_np=0 have_map=0
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
      --hostfile | -hostfile | --machinefile)
        [ $# -ge 2 ] || usage "run: $1 needs a file"
        hostfile=$2 own=0
        shift 2
        continue
        ;;
      -np | -n | --np) have_np=1 ;;
      --map-by | -map-by | --npernode | -npernode | --bynode | -bynode) have_map=1 ;;
    esac
    mpirun_args+=("$1")
    shift
  done
  [ "${1:-}" = -- ] || usage "run: expected '--' before the command"
  shift
  [ $# -gt 0 ] || usage "run: no command after '--'"
  local root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  if [ $own = 0 ]; then
    [ -f "$hostfile" ] || die "run: no host file at '$hostfile'"
    # No box: a real cluster, its own host file and remote shell (ssh).
    is_up || exec mpirun "${root[@]}" --hostfile "$hostfile" "${mpirun_args[@]}" "$@"
  else
    need_up
    hostfile=$state/hosts
  fi
  # Without -np, a rank per host; without a mapping, ranks dealt to the hosts in turn (rank r on host r mod N).
  [ $have_np = 1 ] || mpirun_args=(-np "$(grep -c . "$hostfile")" "${mpirun_args[@]}")
  [ $have_map = 1 ] || mpirun_args=(--map-by node "${mpirun_args[@]}")
  # OpenMPI's own launcher starts a daemon on each host through the agent; the daemons and ranks talk over
  # the box's links only (TCP, the hosts' subnet), never shared memory between hosts.
  # A host that stops answering (its link down) is found by the keepalives of mpirun's connection to its
  # daemon, idle while the ranks run: after 15 s of silence, 3 probes 2 s apart, where OpenMPI's defaults
  # (300 s, 9 probes 20 s apart) leave mpirun waiting for that daemon for 8 minutes. mpirun then ends every
  # rank it can reach, without naming the host; ferry's watchdog, at twice --timeout, names it sooner.
  # Ranks that wait yield the core: the box's hosts share the machine's cores, and a veth link's packets are
  # handled by the kernel's softirq thread, which a rank spinning in MPI_Recv starves until the next tick.
  # An 8 B MPI_Sendrecv between two hosts of a box on 2 cores took 4.1 ms spinning, 48 us yielding.
  in_host 1 mpirun "${root[@]}" --hostfile "$hostfile" \
    --mca plm_rsh_agent "$state/enter" --mca plm_rsh_no_tree_spawn 1 --mca mpi_yield_when_idle 1 \
    --mca oob_tcp_keepalive_time 15 --mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3 \
    --mca btl tcp,self,vader --mca btl_tcp_if_include "$subnet.0.0/16" --mca oob_tcp_if_include "$subnet.0.0/16" \
    "${mpirun_args[@]}" "$@"
  local code=$?
  [ $code = 0 ] || echo "cluster.sh: run: mpirun exited $code" >&2
  return $code
}

cmd_rate() {
  need_root "rate"
  need_up
  [ $# -gt 0 ] || usage "rate: expected HOST=RATE or HOST=off"
  local spec parsed
  for spec in "$@"; do
    parsed=$(parse_rate "$spec") || exit 2
    # shellcheck disable=SC2086
    set_rate $parsed || exit 1
  done
}

cmd_link() {
  need_root "link"
  need_up
  [ $# -eq 2 ] || usage "link: expected HOST up|down"
  local i
  i=$(host_index "$1") || exit 2
  case $2 in
    up | down) ip -n "$router" link set "veth-r$i" "$2" || die "link: cannot set node$i's link $2" ;;
    *) usage "link: expected up or down, got '$2'" ;;
  esac
}

cmd_status() {
  need_up
  local n i
  n=$(host_count)
  for ((i = 1; i <= n; i++)); do
    local link rate
    link=$(ip -n "$router" -br link show "veth-r$i" 2> /dev/null | awk '{print $2}')
    rate=$(ip netns exec "$router" tc qdisc show dev "veth-r$i" 2> /dev/null | grep -o 'rate [^ ]*' | head -1)
    echo "node$i $subnet.$i.2 hostname=$(in_host "$i" hostname) link=${link:-missing} ${rate:-rate unlimited}"
  done
}

cmd_down() {
  need_root "down"
  if ! is_up && ! ip netns list 2> /dev/null | grep -qE "^$name-(node[0-9]+|router)( |$)"; then
    die "down: no box named '$name' is up"
  fi
  remove_all
  echo "cluster.sh: box '$name' removed"
}

command=${1:-}
[ $# -gt 0 ] && shift
case $command in
  up) cmd_up "$@" ;;
  run) cmd_run "$@" ;;
  rate) cmd_rate "$@" ;;
  link) cmd_link "$@" ;;
  hosts) need_up && cat "$state/hosts" ;;
  status) cmd_status ;;
  down) cmd_down ;;
  enter) cmd_enter "$@" ;;
  "") usage "no command" ;;
  *) usage "unknown command '$command'" ;;
esac
