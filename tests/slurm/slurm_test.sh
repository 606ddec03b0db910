#!/usr/bin/env bash
# Slurm on one node (scripts/slurm.sh), as a GPU cluster's operators use it:
# fleet doctor launched by Slurm judges as under plain mpirun and names the
# same slow rank; scripts/slurm-healthcheck, run by slurmd as its
# HealthCheckProgram, drains the node on a FAIL with doctor's verdict as the
# reason, and run again leaves a healthy node as it was, keeps an operator's
# drain, drains a pass that hangs, drains nothing on bad input or a failed
# call, and says so when the controller does not answer. Every state and reason
# is read back from Slurm. Then nothing of this Slurm is left running.
# Usage: slurm_test.sh FERRY REPO_ROOT. Exit 77 (skipped) without root or
# Slurm's packages (slurmctld, slurmd, munge: scripts/packages.sh tests).
set -uo pipefail
ferry=$(realpath "$1") repo=$(realpath "$2")
test_name=slurm_test
slurm=$repo/scripts/slurm.sh
healthcheck=$repo/scripts/slurm-healthcheck
fail() {
  echo "$test_name: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || { echo "$test_name: skipped: needs root"; exit 77; }
for tool in slurmctld slurmd munged srun mpirun; do
  command -v "$tool" > /dev/null ||
    { echo "$test_name: skipped: no $tool (scripts/apt-install.sh slurm \$(scripts/packages.sh build tests))"; exit 77; }
done
work=$(mktemp -d)
# A folder and ports of the test's own, apart from a Slurm of the machine's (6817, 6818) or a developer's.
export FERRY_SLURM_DIR=/tmp/ferry-slurm-test-$$ FERRY_SLURM_PORT=16817
export SLURM_CONF=$FERRY_SLURM_DIR/slurm.conf
# This Slurm's daemons, by the folder their command lines name.
own_daemons() { pgrep -f -- "$FERRY_SLURM_DIR/" | tr '\n' ' '; }
# Whatever the test started goes when it ends, passed or failed; a daemon that `down` missed, by its folder.
finish() {
  bash "$slurm" down > /dev/null 2>&1
  local left
  left=$(own_daemons)
  # shellcheck disable=SC2086
  [ -n "$left" ] && kill -KILL $left 2> /dev/null
  rm -rf "$work" "$FERRY_SLURM_DIR"
}
trap finish EXIT
started=$SECONDS
node=$(slurmd -C | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p')
[ -n "$node" ] || fail "slurmd -C names no node"

source "$(dirname "$0")/../expect_lib.sh"
# expect, and for CODE 1 (not a usage error, which adds the usage line) that line alone.
expect_one_line() {
  expect "$@"
  [ "$1" != 1 ] || [ "$(cat "$work/out" "$work/err" | wc -l)" = 1 ] ||
    { cat "$work/out" "$work/err"; fail "'${*:3}' says more than one line"; }
}
# The node as Slurm holds it: "STATE|REASON", e.g. "idle|none", "drained|ferry doctor: FAIL ...".
node_state() { sinfo -h -n "$node" -o '%T|%E'; }
# Waits for the node to answer idle (a resumed node is idle* until slurmctld pings it, under 1 s here; 20 s
# allowed).
resume() {
  scontrol update NodeName="$node" State=RESUME 2> /dev/null
  for _ in $(seq 200); do
    [ "$(node_state)" = "idle|none" ] && return 0
    sleep 0.1
  done
  fail "the node did not come back idle after RESUME: $(node_state)"
}

# ---- scripts/slurm.sh: bad input, up, up twice.
expect_one_line 1 "no Slurm is up in $FERRY_SLURM_DIR" bash "$slurm" down
expect_one_line 1 "no Slurm is up in $FERRY_SLURM_DIR" bash "$slurm" status
expect_one_line 2 "unknown command 'upp'" bash "$slurm" upp
if command -v setpriv > /dev/null; then
  # The script on standard input, for nobody cannot read a checkout inside a 0700 folder (mktemp -d's).
  expect_one_line 1 "up needs root" setpriv --reuid=65534 --regid=65534 --clear-groups bash -s up < "$slurm"
fi
[ ! -e "$FERRY_SLURM_DIR" ] || fail "a refused up left $FERRY_SLURM_DIR behind"

# Up, with slurm-healthcheck as slurmd's HealthCheckProgram: slurmd runs it when it starts, before it registers,
# with SLURMD_NODENAME alone (slurm.sh's wrapper adds SLURM_CONF and these FERRY* variables, as a site's would).
# A GPU link provoked to Gen4 x8 is a FAIL: the node registers drained, doctor's verdict its reason.
FERRY=$ferry FERRY_DOCTOR_ARGS="--backend emu" FERRY_EMU_DEVICES=1 FERRY_FAULT_DOCTOR=pcie=4x8 \
  FERRY_SLURM_HEALTHCHECK=$healthcheck bash "$slurm" up > "$work/up.txt" 2>&1 || { cat "$work/up.txt"; fail "up failed"; }
daemons=$(own_daemons)
[ "$(wc -w <<< "$daemons")" = 3 ] || fail "up should leave munged, slurmctld and slurmd running; running: $daemons"
# With their children (slurmctld's slurmscriptd): what must be gone after down.
ours=$daemons
for pid in $daemons; do ours+=" $(ps -o pid= --ppid "$pid" | tr '\n' ' ')"; done
grep -q "health_check failed: rc:1" "$FERRY_SLURM_DIR/log/slurmd.log" ||
  { cat "$FERRY_SLURM_DIR/log/slurmd.log"; fail "slurmd did not run the health check, or it did not exit 1"; }
IFS='|' read -r state reason <<< "$(node_state)"
[ "$state" = drained ] || { cat "$FERRY_SLURM_DIR/log/healthcheck.log"; fail "a pcie FAIL left the node $state"; }
[[ $reason == "ferry doctor: FAIL pcie link (GPU 0)"* ]] ||
  fail "the drain's reason does not name the check and subject (pcie link, GPU 0): $reason"
echo "$test_name: slurmd's health check drained $node: $reason"
# The node as slurmd -C describes this machine.
cpus=$(slurmd -C | sed -n 's/.* CPUs=\([0-9]*\) .*/\1/p')
memory=$(slurmd -C | sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p')
[ "$(sinfo -h -n "$node" -o '%c %m')" = "$cpus $memory" ] ||
  fail "the node has $(sinfo -h -n "$node" -o '%c CPUs, %m MB'), slurmd -C says $cpus CPUs, $memory MB"
expect_one_line 1 "a Slurm is already up in $FERRY_SLURM_DIR" bash "$slurm" up
[ "$(own_daemons)" = "$daemons" ] || fail "a second up changed the daemons: $daemons, then $(own_daemons)"
resume

# ---- Fleet doctor launched by Slurm judges as plain mpirun does.
# Slurm starts the ranks itself, `srun --mpi=pmix`: Debian's slurm-wlm-basic-plugins has the pmix_v4 plugin,
# built on the PMIx (libpmix2 4.2.2) that Debian's OpenMPI 4.1.4 takes its rank from. mpirun inside an
# allocation (`salloc -n 2 mpirun ...`, OpenMPI reading the allocation from Slurm) ran as well, with no error,
# but binds each rank to a core as OpenMPI does for 2 ranks or fewer, which starves the emulator's threads:
# 27.1 s against srun's 1.6 s for 2 ranks (srun binds nothing here, TaskPlugin=task/none). srun also makes
# every rank a task of Slurm's, which its signals, limits and scancel reach, with no mpirun between.
srun --mpi=list 2>&1 | grep -qw pmix || fail "srun --mpi=list offers no pmix: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
# NAME RANKS CODE [VARIABLE=VALUE...]: fleet doctor on the emulator on RANKS ranks, launched by Slurm and by
# plain mpirun, exits CODE under both, with every rank's findings and the same verdicts ($work/NAME.slurm and
# $work/NAME.mpirun, a line per finding).
fleet_both_ways() {
  local name=$1 ranks=$2 expected=$3 launcher code
  shift 3
  for launcher in slurm mpirun; do
    local launch=(srun --mpi=pmix -n "$ranks" --overcommit)
    # Unbound, as under srun: bound to a core each, 2 ranks took 27.3 s here, 1.6 s unbound.
    [ $launcher = mpirun ] && launch=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$ranks")
    env "$@" timeout 300 "${launch[@]}" "$ferry" doctor --backend emu -q --json "$work/$name.$launcher.json" \
      > "$work/$name.$launcher.txt" 2>&1
    code=$?
    [ $code = "$expected" ] ||
      { cat "$work/$name.$launcher.txt"; fail "$name under $launcher: exit $code, expected $expected"; }
    python3 - "$work/$name.$launcher.json" "$ranks" > "$work/$name.$launcher" << 'PY' ||
import json, re, sys
doc = json.load(open(sys.argv[1]))
findings = next(w for w in doc["workloads"] if w["name"] == "doctor")["findings"]
# A fleet of RANKS ranks: each rank's own checks are there, under the rank that ran them.
for r in range(int(sys.argv[2])):
    assert any(f["subject"].endswith(f"(rank {r}): host") for f in findings), f"no findings of rank {r}"
# "check|subject|verdict". A fleet row that is OK or not judged names whichever rank or pair measured lowest,
# which changes from run to run (rank 0 -> 1 in one, 1 -> 0 in the next): its subject is left out. A WARN or
# FAIL names what is wrong, and a rank's own row its rank: those subjects stay.
for f in findings:
    kept = f["verdict"] in ("WARN", "FAIL") or re.search(r"\(rank \d+\): ", f["subject"])
    print(f"{f['check']}|{f['subject'] if kept else '*'}|{f['verdict']}")
PY
      { cat "$work/$name.$launcher.txt"; fail "$name under $launcher: not a fleet of $ranks ranks"; }
    sort -o "$work/$name.$launcher" "$work/$name.$launcher"
  done
  diff "$work/$name.mpirun" "$work/$name.slurm" > "$work/$name.diff" ||
    { cat "$work/$name.diff"; fail "$name: the verdicts under Slurm differ from those under mpirun (< mpirun, > Slurm)"; }
}
fleet_both_ways healthy 2 0
echo "$test_name: 2 ranks under Slurm and under mpirun: the same $(wc -l < "$work/healthy.slurm") verdicts, exit 0"
# A rank made slow: the same rank named FAIL under both, and no other rank. 3 ranks on the node's 2 CPUs
# (--overcommit, --oversubscribe), for the fleet judges a rank against the median of 3 or more.
fleet_both_ways slow 3 1 FERRY_FAULT_DOCTOR=slow-rank=1
grep '|FAIL$' "$work/slow.slurm" > "$work/slow.failed"
if [ ! -s "$work/slow.failed" ] || grep -qv '(rank 1)|FAIL$' "$work/slow.failed"; then
  cat "$work/slow.slurm"
  fail "slow-rank=1: rank 1, and only it, should be named FAIL"
fi
echo "$test_name: slow-rank=1 under Slurm and under mpirun, named alike: $(tr '\n' ' ' < "$work/slow.failed")"

# ---- scripts/slurm-healthcheck run by hand (no SLURMD_NODENAME: the node Slurm knows by this hostname).
# A stand-in for ferry, for the cases doctor itself cannot be made to give, and for passes whose verdict the
# real one has shown already (each real pass took 0.5 s here, 13-14 s beside two busy processes): it logs each
# call and answers as FERRY_FAKE says.
cat > "$work/fake-ferry" << EOF
#!/bin/sh
echo called >> "$work/fake-calls"
case \$FERRY_FAKE in
  hang) sleep 30 ;;
  broken) echo "ferry: cudaMalloc: out of memory" >&2; exit 3 ;;
  ok) echo "ferry doctor: OK (3 OK, 0 WARN, 0 FAIL, 11 not judged)" ;;
  fail)
    echo "ferry doctor: FAIL pcie link (GPU 0): Gen4 x8, expected Gen5 x16 (3 OK, 0 WARN, 1 FAIL, 10 not judged)"
    exit 1
    ;;
esac
EOF
chmod +x "$work/fake-ferry"
# OUTPUT_FILE CODE [VARIABLE=VALUE...] [-- DOCTOR_ARGUMENT...]: the health check, outside slurmd, on one emulated
# GPU, exits CODE; its output in OUTPUT_FILE.
health_check() {
  local output=$1 code=$2 got
  shift 2
  local settings=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    settings+=("$1")
    shift
  done
  env -u SLURMD_NODENAME FERRY="$ferry" FERRY_DOCTOR_ARGS="--backend emu" FERRY_EMU_DEVICES=1 "${settings[@]}" \
    "$healthcheck" "$@" > "$output" 2>&1
  got=$?
  [ "$got" = "$code" ] || { cat "$output"; fail "the health check (${settings[*]} $*) exited $got, expected $code"; }
}

# A healthy pass: exit 0, the node exactly as it was.
before=$(node_state)
health_check "$work/healthy.txt" 0
[ "$(node_state)" = "$before" ] || fail "a healthy pass changed the node: $before, then $(node_state)"

# A pass that gives no verdict within its time: drained, the reason saying so.
health_check "$work/hang.txt" 1 FERRY="$work/fake-ferry" FERRY_FAKE=hang FERRY_HEALTHCHECK_TIMEOUT=1
IFS='|' read -r state reason <<< "$(node_state)"
[ "$state" = drained ] || fail "a pass that hung left the node $state ($reason)"
[[ $reason == "ferry doctor: no verdict within 1 s"* ]] || fail "a pass that hung drained the node for: $reason"
resume

# Bad input (exit 2) and a failed call (exit 3): the cause printed, the node not drained.
health_check "$work/bad.txt" 2 -- --devices 7
grep -q "device 7 does not exist" "$work/bad.txt" || { cat "$work/bad.txt"; fail "bad input: the cause is not printed"; }
health_check "$work/broken.txt" 3 FERRY="$work/fake-ferry" FERRY_FAKE=broken
grep -q "exit 3.*cudaMalloc: out of memory" "$work/broken.txt" ||
  { cat "$work/broken.txt"; fail "a failed call: the cause is not printed"; }
[ "$(node_state)" = "idle|none" ] || fail "bad input or a failed call changed the node: $(node_state)"

# A node an operator drained stays drained, with the operator's reason, after a healthy pass and after a FAIL.
scontrol update NodeName="$node" State=DRAIN Reason="operator: fan replaced, burn-in first" || fail "cannot drain"
health_check "$work/operator.txt" 0 FERRY="$work/fake-ferry" FERRY_FAKE=ok
[ "$(node_state)" = "drained|operator: fan replaced, burn-in first" ] ||
  fail "a healthy pass changed an operator's drain: $(node_state)"
health_check "$work/operator-fail.txt" 1 FERRY="$work/fake-ferry" FERRY_FAKE=fail
[ "$(node_state)" = "drained|operator: fan replaced, burn-in first" ] ||
  fail "a FAIL replaced an operator's reason: $(node_state)"

# The controller away: one message naming it, exit 4, doctor not run (its verdict could not be reported).
before=$(node_state)
kill -TERM "$(cat "$FERRY_SLURM_DIR/run/slurmctld.pid")"
for _ in $(seq 100); do
  scontrol ping > /dev/null 2>&1 || break
  sleep 0.1
done
rm -f "$work/fake-calls"
health_check "$work/down.txt" 4 FERRY="$work/fake-ferry" FERRY_FAKE=fail
grep -q "^slurm-healthcheck: slurmctld does not answer" "$work/down.txt" ||
  { cat "$work/down.txt"; fail "with slurmctld away, the health check does not say so"; }
[ "$(wc -l < "$work/down.txt")" = 1 ] || { cat "$work/down.txt"; fail "with slurmctld away, more than one line"; }
[ ! -e "$work/fake-calls" ] || fail "with slurmctld away, doctor ran anyway"
# slurmctld back from its saved state: the node as it was (1 s here; 30 s allowed).
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start again"
for _ in $(seq 300); do
  [ "$(node_state 2> /dev/null)" = "$before" ] && break
  sleep 0.1
done
[ "$(node_state)" = "$before" ] || fail "with slurmctld away the node changed: $before, then $(node_state)"

# ---- Down: every daemon of this Slurm gone, its folder too; down again says nothing is up.
bash "$slurm" down > "$work/down-slurm.txt" 2>&1 || { cat "$work/down-slurm.txt"; fail "down failed"; }
left=""
for pid in $( (own_daemons; echo "$ours") | tr ' ' '\n' | sort -u); do
  # A zombie (init reaps late here) has ended.
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2> /dev/null) && [[ $state != Z* ]] && left+=" $pid"
done
[ -z "${left// /}" ] || fail "down left running: $left"
[ ! -e "$FERRY_SLURM_DIR" ] || fail "down left $FERRY_SLURM_DIR"
expect_one_line 1 "no Slurm is up in $FERRY_SLURM_DIR" bash "$slurm" down
echo "$test_name: passed in $((SECONDS - started)) s"
