#!/usr/bin/env bash
# A one-node Slurm on this machine, from Debian 12's packages (slurmctld,
# slurmd, munge): munged with a key of its own, slurmctld and slurmd with a
# config of their own, this machine the one node with the CPUs and memory
# `slurmd -C` reads, in one partition. Everything it writes (config, state,
# spool, logs, the munge key and socket) is in one folder, and the machine's
# own Slurm and munge (/etc/slurm, /etc/munge, /run/munge) are never touched.
# Root only: slurmd runs jobs as their users, and munged and slurmctld run as
# root here so that nothing needs a user of its own.
#
#   scripts/slurm.sh up       start munged, slurmctld and slurmd; return once the node is idle
#   scripts/slurm.sh status   what is up, and the SLURM_CONF line that points Slurm's commands at it
#   scripts/slurm.sh down     cancel every job, stop the daemons and whatever they left, remove the folder
#
# Slurm's commands find this Slurm through SLURM_CONF:
#   export SLURM_CONF=/tmp/ferry-slurm/slurm.conf; sinfo; srun -n 2 hostname
#
# Environment: FERRY_SLURM_DIR (default /tmp/ferry-slurm) is the folder.
# FERRY_SLURM_PORT (default 6817) is slurmctld's port, slurmd's the next one
# (Slurm's own defaults, so another Slurm on this machine means choosing
# others). FERRY_SLURM_HEALTHCHECK names a HealthCheckProgram (an absolute
# path) for slurmd to run when it starts, before it registers, and every
# FERRY_SLURM_HEALTHCHECK_INTERVAL seconds (default 600), with the FERRY*
# variables `up` was given; its output is kept in log/healthcheck.log in
# the folder. None without it.
set -uo pipefail

dir=${FERRY_SLURM_DIR:-/tmp/ferry-slurm}
port=${FERRY_SLURM_PORT:-6817}
health_check=${FERRY_SLURM_HEALTHCHECK:-}
health_check_interval=${FERRY_SLURM_HEALTHCHECK_INTERVAL:-600}
conf=$dir/slurm.conf
# The first line of every config this script writes: a folder that holds it is one this script may remove.
marker="# Written by scripts/slurm.sh: a one-node Slurm, removed by 'scripts/slurm.sh down'."
export SLURM_CONF=$conf

die() {
  echo "slurm.sh: $*" >&2
  exit 1
}
usage() {
  echo "slurm.sh: $*" >&2
  echo "usage: slurm.sh up | status | down   (FERRY_SLURM_DIR: the folder, default /tmp/ferry-slurm)" >&2
  exit 2
}

[[ $dir == /* ]] || usage "FERRY_SLURM_DIR='$dir': an absolute path"
if ! [[ $port =~ ^[1-9][0-9]{2,4}$ ]] || [ "$port" -ge 65535 ]; then
  usage "FERRY_SLURM_PORT='$port': a port from 100 to 65534"
fi
[[ $health_check_interval =~ ^[1-9][0-9]*$ ]] ||
  usage "FERRY_SLURM_HEALTHCHECK_INTERVAL='$health_check_interval': seconds, from 1"

need_root() {
  [ "$(id -u)" = 0 ] || die "$1 needs root (slurmd starts jobs as their users; munged and slurmctld run as root here)"
}

# Whether a process runs: it exists and is no zombie (a daemon's parent is init, which here reaped them late).
alive() {
  local stat
  read -r stat 2> /dev/null < "/proc/$1/stat" || return 1
  [[ ${stat##*) } != Z* ]]
}
# The daemon's process id when its pid file names a live process of that name, else nothing (and false).
daemon_pid() {
  local name=$1 pid comm
  pid=$(cat "$dir/run/$name.pid" 2> /dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  read -r comm 2> /dev/null < "/proc/$pid/comm" && [ "$comm" = "$name" ] || return 1
  echo "$pid"
}
running() {
  local name
  for name in munged slurmctld slurmd; do
    daemon_pid "$name" > /dev/null && return 0
  done
  return 1
}
ours() { [ "$(head -1 "$conf" 2> /dev/null)" = "$marker" ]; }

# Slurm's and munge's processes that hold a file under the folder open: the daemons, and the slurmstepd a job
# step leaves when its slurmd is gone (it logs to slurmd's log and listens on a socket in the spool). By name
# first, so that a shell whose working folder is in there is never taken for one.
holders() {
  local p link comm
  for p in /proc/[0-9]*; do
    read -r comm 2> /dev/null < "$p/comm" || continue
    case $comm in munged | slurmctld | slurmscriptd | slurmd | slurmstepd) ;; *) continue ;; esac
    alive "${p#/proc/}" || continue
    for link in "$p"/fd/*; do
      [[ $(readlink "$link" 2> /dev/null) == "$dir"/* ]] && { echo "${p#/proc/}"; break; }
    done
  done
}

descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1"); do
    echo "$child"
    descendants "$child"
  done
}

# Ends every process of this Slurm, whatever state `up` reached, and removes the folder.
remove_all() {
  local name pid pids left="" waited
  if daemon_pid slurmctld > /dev/null; then
    # Jobs first, while slurmctld and slurmd can still end their processes (KillWait=5 s at most).
    pids=$(squeue -h -o %i 2> /dev/null)
    if [ -n "$pids" ]; then
      # shellcheck disable=SC2086
      scancel $pids 2> /dev/null
      for ((waited = 0; waited < 100; waited++)); do
        [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break
        sleep 0.1
      done
    fi
  fi
  # The three at once: slurmctld saves its state on SIGTERM without munge's help. Each took 1.6-1.9 s to end
  # here, one after another 3.8 s.
  pids=""
  for name in slurmd slurmctld munged; do
    pid=$(daemon_pid "$name") && pids+=" $pid"
  done
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -TERM $pids 2> /dev/null
  for ((waited = 0; waited < 100; waited++)); do
    left=""
    for pid in $pids; do alive "$pid" && left+=" $pid"; done
    [ -z "$left" ] && break
    sleep 0.1
  done
  # A daemon that did not end in 10 s, and a job step's slurmstepd left without its slurmd, with what it started.
  pids=$left
  for pid in $(holders); do pids+=" $pid $(descendants "$pid" | tr '\n' ' ')"; done
  # shellcheck disable=SC2086
  [ -n "${pids// /}" ] && kill -KILL $pids 2> /dev/null
  for ((waited = 0; waited < 50; waited++)); do
    [ -z "$(holders)" ] && break
    sleep 0.1
  done
  rm -rf "$dir"
}

# The last lines of a daemon's log, for a message saying why it did not start.
log_tail() { tail -n 3 "$dir/log/$1.log" 2> /dev/null | tr '\n' ' '; }

cmd_up() {
  need_root "up"
  local tool
  for tool in munged mungekey slurmctld slurmd scontrol sinfo squeue scancel ss; do
    command -v "$tool" > /dev/null ||
      die "up needs '$tool', which is not installed (Debian 12: apt-get install slurmctld slurmd munge iproute2)"
  done
  if running; then
    die "a Slurm is already up in $dir (munged $(daemon_pid munged || echo -), slurmctld $(daemon_pid slurmctld || echo -)," \
      "slurmd $(daemon_pid slurmd || echo -)); scripts/slurm.sh down stops it"
  fi
  if [ -e "$dir" ]; then
    # The remains of one that did not end through `down` (the machine restarted, a daemon was killed) go.
    ours || [ -z "$(ls -A "$dir" 2> /dev/null)" ] ||
      die "$dir exists and is not a Slurm of this script: choose another FERRY_SLURM_DIR"
    rm -rf "$dir"
  fi
  local taken
  taken=$(ss -Hltn "( sport = :$port or sport = :$((port + 1)) )" 2> /dev/null | awk '{print $4}' | tr '\n' ' ')
  [ -z "$taken" ] ||
    die "ports $port and $((port + 1)) are needed, and something listens on ${taken% } (another Slurm?): set FERRY_SLURM_PORT"
  if [ -n "$health_check" ]; then
    if [[ $health_check != /* ]] || [ ! -x "$health_check" ]; then
      die "FERRY_SLURM_HEALTHCHECK='$health_check': slurmd needs the absolute path of an executable"
    fi
  fi

  trap 'remove_all; exit 1' INT TERM
  fail_up() {
    echo "slurm.sh: up: $*; nothing left running" >&2
    remove_all
    exit 1
  }
  # munged wants its socket's folders open to all (every user's srun asks it) and writable by root alone: /tmp
  # is not, so the socket is two folders down. The key and the state are root's alone.
  { mkdir -p "$dir" && chmod 755 "$dir" && mkdir -m 755 "$dir"/{munge,run,log,spool} && mkdir -m 700 "$dir/state"; } ||
    fail_up "cannot make $dir"
  echo "$marker" > "$conf" || fail_up "cannot write $conf"

  mungekey --create --keyfile="$dir/munge/munge.key" 2> "$dir/log/mungekey.log" ||
    fail_up "mungekey could not make a key: $(cat "$dir/log/mungekey.log")"
  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" 2> "$dir/log/munged.start" ||
    fail_up "munged did not start: $(cat "$dir/log/munged.start") $(log_tail munged)"

  # The node as slurmd finds it: "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2
  # ThreadsPerCore=1 RealMemory=24105". A node configured with more than it has is drained by slurmctld.
  local node_line node
  node_line=$(slurmd -C 2> /dev/null | grep '^NodeName=') || fail_up "slurmd -C did not describe this machine"
  node=${node_line%% *}
  node=${node#NodeName=}
  cat >> "$conf" << EOF
ClusterName=ferry
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# Processes tracked by their parents, and no task plugin: nothing needs cgroups, which a container may not give.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
# A node that was down comes back when its slurmd registers; a drain an operator set stays.
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
EOF
  if [ -n "$health_check" ]; then
    # slurmd gives its HealthCheckProgram SLURMD_NODENAME and nothing else (not even PATH). A node's Slurm
    # config is /etc/slurm/slurm.conf, which its commands read by default; this one's is not, so a wrapper
    # adds SLURM_CONF, with the FERRY* variables `up` was given (what a site's own wrapper would set), and
    # keeps the program's output in log/healthcheck.log (slurmd logs it only when the program exits non-zero).
    {
      echo '#!/bin/bash'
      printf 'export SLURM_CONF=%q\n' "$conf"
      local variable
      for variable in $(compgen -e | grep '^FERRY' | grep -v '^FERRY_SLURM_'); do
        printf 'export %s=%q\n' "$variable" "${!variable}"
      done
      echo 'set -o pipefail'
      printf '%q "$@" 2>&1 | tee -a %q\n' "$health_check" "$dir/log/healthcheck.log"
    } > "$dir/run/healthcheck" || fail_up "cannot write $dir/run/healthcheck"
    chmod 755 "$dir/run/healthcheck" || fail_up "cannot make $dir/run/healthcheck executable"
    printf 'HealthCheckProgram=%s\nHealthCheckInterval=%s\n' "$dir/run/healthcheck" "$health_check_interval" >> "$conf"
  fi
  cat >> "$conf" << EOF
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ferry Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

  slurmctld -f "$conf" 2> "$dir/log/slurmctld.start" ||
    fail_up "slurmctld did not start: $(cat "$dir/log/slurmctld.start") $(log_tail slurmctld)"
  # slurmd runs its HealthCheckProgram as it starts, and a health check asks slurmctld first: slurmd started
  # before slurmctld listened (a loaded 2-core machine) had scripts/slurm-healthcheck find no slurmctld and
  # leave the node as it was.
  local waited state=""
  for ((waited = 0; waited < 300; waited++)); do
    scontrol ping 2> /dev/null | grep -q " is UP" && break
    # Its pid file is written once it has left the foreground: until then it may only be on its way.
    [ ! -e "$dir/run/slurmctld.pid" ] || daemon_pid slurmctld > /dev/null || fail_up "slurmctld stopped: $(log_tail slurmctld)"
    sleep 0.1
  done
  [ "$waited" -lt 300 ] || fail_up "slurmctld does not answer after 30 s: $(log_tail slurmctld)"
  slurmd -f "$conf" 2> "$dir/log/slurmd.start" ||
    fail_up "slurmd did not start: $(cat "$dir/log/slurmd.start") $(log_tail slurmd)"
  # The node registers within a second or two; a HealthCheckProgram runs before it registers, for up to 60 s.
  for ((waited = 0; waited < 900; waited++)); do
    state=$(sinfo -h -n "$node" -o %T 2> /dev/null)
    case $state in idle | drained | draining) break ;; esac
    for tool in munged slurmctld slurmd; do
      daemon_pid "$tool" > /dev/null || fail_up "$tool stopped: $(log_tail "$tool")"
    done
    sleep 0.1
  done
  case $state in
    idle) ;;
    drained | draining) echo "slurm.sh: up: node $node is $state: $(sinfo -h -n "$node" -o %E)" >&2 ;;
    *) fail_up "node $node is ${state:-unknown to slurmctld} after 90 s: $(log_tail slurmd)" ;;
  esac
  trap - INT TERM
  echo "slurm.sh: up in $dir: node $node (${node_line#NodeName="$node" }), partition ferry, ports $port and $((port + 1))"
  echo "export SLURM_CONF=$conf"
}

cmd_status() {
  running || die "no Slurm is up in $dir (scripts/slurm.sh up starts one)"
  local name
  for name in munged slurmctld slurmd; do
    echo "$name $(daemon_pid "$name" || echo "not running")"
  done
  sinfo -h -o "node %N %T %E" 2> /dev/null || echo "sinfo: slurmctld does not answer"
  echo "export SLURM_CONF=$conf"
}

cmd_down() {
  need_root "down"
  if ! running; then
    ours && rm -rf "$dir"
    die "down: no Slurm is up in $dir"
  fi
  ours || die "down: $dir holds no config of this script; not touching its processes"
  remove_all
  [ -e "$dir" ] && die "down: $dir is still there: $(holders | tr '\n' ' ') hold files in it"
  echo "slurm.sh: the Slurm in $dir is stopped and removed"
}

command=${1:-}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] || usage "$command: no arguments expected, got '$*'"
case $command in
  up) cmd_up ;;
  status) cmd_status ;;
  down) cmd_down ;;
  "") usage "no command" ;;
  *) usage "unknown command '$command'" ;;
esac
