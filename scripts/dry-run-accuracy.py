#!/usr/bin/env python3
"""How close `ferry run W --dry-run`'s estimates come to the run itself.

Runs `ferry run ARGS --dry-run`, then `ferry run ARGS` with its progress lines
timed as they arrive, and prints each step's estimate beside its measured time,
and the totals. Usage: dry-run-accuracy.py FERRY WORKLOAD [OPTIONS...]
"""
import re
import subprocess
import sys
import time


def planned(ferry, args):
    out = subprocess.run([ferry, "run", *args, "--dry-run"], check=True, capture_output=True, text=True).stdout
    steps = []
    workload = None
    for line in out.splitlines():
        head = re.match(r"^(\S[^:]*): \d+ steps, about", line)
        if head:
            workload = head.group(1)
            continue
        m = re.match(r"^\s+(\d+)\s+([0-9.]+ s|\S+)\s+(.*)$", line)
        if m and workload:
            steps.append((workload, m.group(3), seconds(m.group(2))))
    return steps, out.splitlines()[-1]


def seconds(text):
    text = text.strip()
    if text.endswith(" s"):
        return float(text[:-2])
    m = re.match(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$", text)
    h, mnt, s = (int(g) if g else 0 for g in m.groups())
    return 3600 * h + 60 * mnt + s


def measured(ferry, args):
    start = time.monotonic()
    run = subprocess.Popen([ferry, "run", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    steps, last, previous = [], start, None
    for line in run.stderr:
        m = re.match(r"^\[([^\]]+)\] (.*)$", line.rstrip("\n"))
        if not m:
            continue
        now = time.monotonic()
        if previous:
            steps.append((*previous, now - last))
        previous, last = (m.group(1), m.group(2)), now
    run.wait()
    if previous:
        steps.append((*previous, time.monotonic() - last))  # the last step, and the tables after it
    return steps, time.monotonic() - start, run.returncode


def main():
    ferry, args = sys.argv[1], sys.argv[2:]
    plan, pace = planned(ferry, args)
    ran, wall, code = measured(ferry, args)
    print(f"ferry run {' '.join(args)}: exit {code}")
    print(f"{'estimate':>9} {'measured':>9} {'ratio':>6}  step")
    took = {(workload, text): seconds for workload, text, seconds in ran}
    for workload, what, estimate in plan:
        if (workload, what) not in took:
            print(f"{estimate:9.3f} {'not run':>9} {'':>6}  [{workload}] {what}")
            continue
        t = took.pop((workload, what))
        ratio = f"{t / estimate:6.2f}" if estimate > 0 else "     -"
        print(f"{estimate:9.3f} {t:9.3f} {ratio}  [{workload}] {what}")
    for (workload, text), t in took.items():
        print(f"{'unplanned':>9} {t:9.3f} {'':>6}  [{workload}] {text}")
    ran_estimate = sum(e for w, what, e in plan if (w, what) in {(w2, t2) for w2, t2, _ in ran})
    print(f"estimate of the steps that ran: {ran_estimate:.1f} s")
    total_estimate = sum(s[2] for s in plan)
    print(f"steps planned {len(plan)}, run {len(ran)}")
    print(f"total: estimate {total_estimate:.1f} s, measured {wall:.1f} s (ratio {wall / max(total_estimate, 1e-9):.2f})")
    print(pace)
    return 1 if took else 0


if __name__ == "__main__":
    sys.exit(main())
