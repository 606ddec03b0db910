#!/usr/bin/env bash
# On the GPU machine: build with the CUDA backend for Hopper, run every test
# (the GPU ones included), then measure one workload with its tables, JSON
# and CSV. Writes at most 8 files under $OUT (or ./evidence).
# Usage: scripts/gpu-evidence.sh link|stream|overlap|dispatch|beff|topo [extra `ferry run WORKLOAD` options]
#   link:    `ferry run link`, the minimal echo (tools/probes) beside it, and `ferry probe` (the machine profile)
#   stream:  `ferry run stream` and `ferry tune stream --latency L` for each L of $TUNE_LATENCIES (default
#            "40us 20us") over $TUNE_DESIGNS (default all)
#   overlap: `ferry run overlap` with its trace drawn as SVG, and a shorter run on pageable memory
#   dispatch: `ferry run dispatch` (32768 keys, every rung) and the sweep --keys $DISPATCH_SWEEP (default 1K:16M:x4)
#   beff:    `ferry run beff --transport all` on every GPU of the machine with --max-size $BEFF_MAX_SIZE (default
#            256MiB), `mpirun -np GPUS ferry run beff` for every transport that runs a rank per GPU, and `ferry model beff`
#            from the first run's terms (scripts/beff-experiments.sh has the p2p-sm sweeps); then nccl-tests'
#            sendrecv_perf beside each NCCL variant, layout for layout, built from $NCCL_TESTS_SRC (default
#            peer/nccl-tests, which git ignores; without it the parity is skipped, saying so)
#   topo:    `ferry run topo` on every GPU of the machine (regular sizes, every topology), the irregular sizes
#            for pair and host-staged, and `mpirun -np GPUS ferry run topo` (every NCCL variant, mpi-cuda, mpi-staged)
set -euo pipefail
workload=${1:?usage: scripts/gpu-evidence.sh link|stream|overlap|dispatch|beff|topo [options]}
shift
out=$(realpath -m "${OUT:-evidence}")
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
bash scripts/gpu-build.sh "$out/build.log"
if [ "${SKIP_CTEST:-0}" != 1 ]; then  # SKIP_CTEST=1: measure only (an exploratory run)
  (cd build-gpu && ctest --output-on-failure -j4 > "$out/ctest.log" 2>&1) || { tail -40 "$out/ctest.log"; exit 1; }
  # ctest exits 0 when it finds no tests: evidence without them is no evidence.
  grep -E "tests passed|Skipped|Failed" "$out/ctest.log" || { echo "ctest ran no tests"; tail -5 "$out/ctest.log"; exit 1; }
fi
ferry=./build-gpu/src/ferry
# beff and topo: every GPU of the machine, NVLink multicast off (shared machines: NCCL's NVLS, and the same for
# anything else that would use it), and the links in the machine file.
multi_gpu() {
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  gpus=$(nvidia-smi -L | wc -l)
  nvidia-smi topo -m >> "$out/nvidia-smi.txt" 2>&1 || true
}
# A command under mpirun, a rank per GPU, the multicast settings passed on.
on_every_gpu() {
  local root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  timeout 300 mpirun "${root[@]}" -np "$gpus" -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST \
    -x NVSHMEM_DISABLE_NVLS "$@"
}
# At most eight files come back: the files of $out named (those there: ctest.log is not under SKIP_CTEST=1) move
# into machine.txt, one after another.
into_machine_file() {
  local name
  for name in "$@"; do
    if [ -f "$out/$name" ]; then cat "$out/$name" >> "$out/machine.txt" && rm "$out/$name"; fi
  done
}
# LAYOUT RESULTS TRANSPORT NAME COMMAND...: one run of sendrecv_perf, its output appended to nccl-tests.txt and
# paired with ferry's TRANSPORT in RESULTS for the parity table (pairs), or left out of it, saying why (left_out).
nccl_tests_run() {
  local layout=$1 results=$2 transport=$3 name=$4 code=0
  shift 4
  echo "## $name.txt: $layout, beside ferry's $transport: $*" >> "$out/nccl-tests.txt"
  "$@" > "$runs/$name.txt" 2>&1 || code=$?
  cat "$runs/$name.txt" >> "$out/nccl-tests.txt"
  if [ $code -eq 0 ]; then
    pairs+=(--pair "$layout" "$results" "$transport" "$name.txt")
  else
    left_out+=("$layout, $transport: sendrecv_perf exited $code (its output is in nccl-tests.txt)")
  fi
}
# beff: nccl-tests' sendrecv_perf, the same ring, beside each NCCL variant of ferry's, layout for layout (docs/beff.md,
# "Parity with nccl-tests"). Its build log goes into nccl-tests-build.log, every output into nccl-tests.txt, the table
# into beff-parity.txt. Returns 1 when nccl-tests did not build or the table could not be made.
nccl_tests_parity() {
  local src=${NCCL_TESTS_SRC:-peer/nccl-tests} repo=$PWD sendrecv runs code=0 pairs=() left_out=()
  if [ ! -d "$src/src" ]; then
    echo "parity: skipped, no nccl-tests source at $src" | tee "$out/beff-parity.txt"
    return 0
  fi
  sendrecv=$(bash scripts/nccl-tests-build.sh "$src" "$out/nccl-tests-build.log") || {
    echo "parity: skipped, nccl-tests did not build (its log is in machine.txt)" | tee "$out/beff-parity.txt"
    return 1
  }
  runs=$(mktemp -d)
  # beff's sizes from 8 B to 2 MiB, doubling, on bytes as ferry sends them (uint8: count = bytes), each size's data
  # checked (-c 1). A repetition of ferry's lasts at least 5 ms (--min-time) and the table takes the median of its
  # 10; an NCCL exchange of the ring takes at least 6 us (docs/beff.md), so 1000 iterations (-n) last at least 6 ms,
  # and 10 cycles (-N) give ten rows a size to take the median of. 200 warm-up iterations a size (-w), at least
  # 1.2 ms, about as long as ferry's warm-up and calibration before its repetitions (runs that grow until one lasts
  # --min-time / 8, 0.6 ms); nccl-tests warms every size up before it times the first, and the median leaves a cold
  # first cycle out. -a 3: each row is its slowest rank's time, as each repetition of ferry's is its slowest device's.
  local sweep=(-b 8 -e 2M -f 2 -d uint8 -c 1 -n 1000 -w 200 -N 10 -a 3)
  # -G 1: the -n iterations captured as a graph per GPU and launched once, as nccl-graph replays a repetition's
  # looplength exchanges once. -R 1: nccl-tests' buffers (ncclMemAlloc'd) registered by ncclCommRegister, as
  # nccl-graph-reg's areas are; with -G 1, since nccl-graph-reg replays graphs too (src/transport/nccl.cpp).
  local graph=(-G 1) registered=(-G 1 -R 1)
  # One process: a thread that drives every GPU, as `ferry run beff` in one process does (a hang ends at 180 s).
  local one=(timeout 180 "$sendrecv" "${sweep[@]}")
  nccl_tests_run "one thread, $gpus GPUs (-g $gpus)" "$out/beff.json" nccl one "${one[@]}" -g "$gpus"
  # Not -g N with -G 1: nccl-tests captures each GPU's graph in CUDA's thread-local mode from the one thread, the
  # mode in which ferry's own capture hung (docs/beff.md); on 2 x H200 `-g 2 -G 1` hung until its 180 s limit.
  left_out+=("one thread, $gpus GPUs, nccl-graph and nccl-graph-reg: sendrecv_perf -g $gpus -G 1 hangs in its capture")
  # A communicator per GPU, as ferry under mpirun has: a thread each in one process, then a rank each.
  nccl_tests_run "a thread per GPU (-t $gpus -g 1)" "$out/beff-mpi.json" nccl threads "${one[@]}" -t "$gpus" -g 1
  local ranks=(on_every_gpu "$sendrecv" "${sweep[@]}" -g 1)
  nccl_tests_run "a rank per GPU (mpirun -np $gpus)" "$out/beff-mpi.json" nccl ranks "${ranks[@]}"
  nccl_tests_run "a rank per GPU (mpirun -np $gpus)" "$out/beff-mpi.json" nccl-graph ranks-graph "${ranks[@]}" \
    "${graph[@]}"
  nccl_tests_run "a rank per GPU (mpirun -np $gpus)" "$out/beff-mpi.json" nccl-graph-reg ranks-graph-reg \
    "${ranks[@]}" "${registered[@]}"
  {
    # From the runs' folder, so that the table names each run as nccl-tests.txt's headings do.
    if [ ${#pairs[@]} -gt 0 ]; then
      (cd "$runs" && PYTHONPATH="$repo/python" python3 -m ferry.nccl_parity "${pairs[@]}") || code=$?
    fi
    if [ ${#left_out[@]} -gt 0 ]; then printf 'not compared: %s\n' "${left_out[@]}"; fi
  } > "$out/beff-parity.txt" 2>&1
  cat "$out/beff-parity.txt"
  rm -rf "$runs"
  [ $code -eq 0 ]
}
# The machine as docs/results names its files: h100, h200x2, ...
machine_name() {
  local model count
  model=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'H100|H200|A100|B200' | head -1)
  count=$(nvidia-smi -L | wc -l)
  model=${model:-gpu}
  if [ "$count" -gt 1 ]; then echo "${model,,}x$count"; else echo "${model,,}"; fi
}
# Every results file of this run beside the evidence it would replace (docs/results/NAME-MACHINE.json[.gz], NAME
# as the run named its file), before anything is replaced: the figures that moved by more than 3% either way, with
# the commits and dates of both files, in compare.txt. A regression found here is fixed, or its measured cause is
# named in the workload's page, before the new file goes in.
compare_with_evidence() {
  local machine new name old found=0
  machine=$(machine_name)
  for new in "$out"/*.json; do
    grep -q '"ferry.results/1"' "$new" 2> /dev/null || continue  # a trace or a machine profile: no figures
    name=$(basename "$new" .json)
    for old in "docs/results/$name-$machine.json" "docs/results/$name-$machine.json.gz"; do
      [ -f "$old" ] || continue
      found=1
      echo "## $name: this run against $old, the figures that moved more than 3% either way"
      PYTHONPATH=python python3 -m ferry compare "$old" "$new" --threshold 3% --show changed --allow-failed \
        --allow-incomplete || true
      echo
    done
  done
  [ $found -eq 1 ] || echo "no evidence in docs/results to compare with (files named NAME-$machine.json[.gz])"
}
case "$workload" in
  link)
    $ferry run link -q --json "$out/link.json" --csv "$out/link.csv" "$@" | tee "$out/link.txt"
    # The reference for link's flag round trip, in the same run (docs/link.md): link's echo is held to within 5% of it.
    ./build-gpu/tools/probes/minimal_echo | tee -a "$out/link.txt"
    $ferry probe -q -o "$out/profile.json" "$@" > "$out/probe.txt"
    tail -2 "$out/probe.txt"
    ;;
  stream)
    cat "$out/nvidia-smi.txt" "$out/build.log" > "$out/machine.txt" && rm "$out/nvidia-smi.txt" "$out/build.log"
    $ferry run stream -q --json "$out/stream.json" "$@" > "$out/stream.txt" || { tail -40 "$out/stream.txt"; exit 1; }
    sed -n '/^Designs side by side/,$p' "$out/stream.txt"
    # The two latency targets, each searched over the designs that can meet them (TUNE_DESIGNS).
    for target in ${TUNE_LATENCIES:-40us 20us}; do
      # Exit 4 (every configuration passed, none met the target) is a finding; 1 (data wrong) and 3 are not.
      code=0
      $ferry tune stream -q --latency "$target" --design "${TUNE_DESIGNS:-all}" --json "$out/tune-$target.json" \
        > "$out/tune-$target.txt" || code=$?
      [ $code -eq 0 ] || [ $code -eq 4 ] || { tail -40 "$out/tune-$target.txt"; echo "tune $target: exit $code"; exit 1; }
      sed -n '/^The configuration/,$p' "$out/tune-$target.txt"
    done
    ;;
  overlap)
    $ferry run overlap -q --json "$out/overlap.json" --trace "$out/trace.json" "$@" > "$out/overlap.txt" ||
      { tail -40 "$out/overlap.txt"; exit 1; }
    sed -n '/^c = a + b/,$p' "$out/overlap.txt"
    python3 scripts/trace-svg.py "$out/trace.json" "$out/trace.svg"
    $ferry run overlap -q --host pageable --splits 1,4,16,64 "$@" > "$out/overlap-pageable.txt" ||
      { tail -40 "$out/overlap-pageable.txt"; exit 1; }
    grep -E "^note: best|overlap:" "$out/overlap-pageable.txt"
    ;;
  dispatch)
    $ferry run dispatch -q --json "$out/dispatch.json" "$@" > "$out/dispatch.txt" ||
      { tail -60 "$out/dispatch.txt"; exit 1; }
    sed -n '/^Bitonic sort/,$p' "$out/dispatch.txt"
    $ferry run dispatch -q --keys "${DISPATCH_SWEEP:-1K:16M:x4}" --json "$out/dispatch-sweep.json" "$@" \
      > "$out/dispatch-sweep.txt" || { tail -60 "$out/dispatch-sweep.txt"; exit 1; }
    sed -n '/^Per key count/,$p' "$out/dispatch-sweep.txt"
    ;;
  beff)
    multi_gpu
    status=0
    summary() { sed -n '/^b_eff per transport/,/^$/p;/^One-way latency/,/^$/p;/^note:/p;/^skipped:/p;/^beff:/p' "$1"; }
    $ferry run beff -q --max-size "${BEFF_MAX_SIZE:-256MiB}" --timeout 10s --json "$out/beff.json" "$@" \
      > "$out/beff.txt" 2>&1 || status=1
    summary "$out/beff.txt"
    # A rank per GPU: every transport that runs in that layout (host-staged is one process's and says so).
    on_every_gpu $ferry run beff -q --transport all --timeout 10s --json "$out/beff-mpi.json" "$@" \
      > "$out/beff-mpi.txt" 2>&1 || status=1
    summary "$out/beff-mpi.txt"
    $ferry model beff --profile "$out/beff.json" --devices 8,64,512 > "$out/beff-model.txt" 2>&1 || status=1
    cat "$out/beff-model.txt"
    nccl_tests_parity || status=1
    into_machine_file nvidia-smi.txt build.log ctest.log nccl-tests-build.log
    compare_with_evidence 2>&1 | tee "$out/compare.txt"
    into_machine_file compare.txt
    exit $status
    ;;
  topo)
    multi_gpu
    status=0
    summary() { sed -n '/^Peak per topology/,/^$/p;/^note:/p;/^skipped:/p;/^topo:/p' "$1"; }
    $ferry run topo -q --timeout 10s --json "$out/topo.json" "$@" > "$out/topo.txt" 2>&1 || status=1
    summary "$out/topo.txt"
    $ferry run topo -q --timeout 10s --sizes irregular --topology pair,host-staged --json "$out/topo-irregular.json" \
      "$@" > "$out/topo-irregular.txt" 2>&1 || status=1
    summary "$out/topo-irregular.txt"
    on_every_gpu $ferry run topo -q --timeout 10s --json "$out/topo-mpi.json" "$@" \
      > "$out/topo-mpi.txt" 2>&1 || status=1
    summary "$out/topo-mpi.txt"
    into_machine_file nvidia-smi.txt build.log ctest.log
    compare_with_evidence 2>&1 | tee "$out/compare.txt"
    into_machine_file compare.txt
    exit $status
    ;;
  *)
    echo "gpu-evidence: unknown workload '$workload' (link, stream, overlap, dispatch, beff or topo)" >&2
    exit 2
    ;;
esac
into_machine_file nvidia-smi.txt build.log ctest.log
compare_with_evidence | tee "$out/compare.txt"
