#!/usr/bin/env bash
# Every cost ratio users compare rtgate with, side by side in one run (a benchmark that prints
# figures; it asserts nothing):
#   1. each lock against its pthread model, uncontended lock+unlock (bench_locks, median of
#      REPS repetitions): spinlocks vs pthread_spin, FutexMutex vs pthread_mutex, PiMutex vs a
#      PTHREAD_PRIO_INHERIT mutex, PiRwSem write and read vs pthread_rwlock's;
#   2. LatencyHistogram::record (bench_measure), the measured path's own cost;
#   3. `rtgate run cyclic` against cyclictest: process CPU (user+sys) per wakeup at 100 us on one
#      CPU, PAIRS interleaved pairs (cyclictest first in odd pairs, rtgate first in even ones),
#      WAKEUPS each; the ratio of the sums and the median of the pairs' ratios (a VM's pairs
#      scatter by +-10%).
#
#   tests/bench/ratios.sh [BUILD_DIR] [REPS] [PAIRS] [WAKEUPS]
# Needs root (SCHED_FIFO), cyclictest (rt-tests) and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
REPS=${2:-3}
PAIRS=${3:-5}
WAKEUPS=${4:-80000}
for b in bench_locks bench_measure rtgate; do
  [ -x "$BUILD/$b" ] || { echo "ratios.sh: no $BUILD/$b (build with benchmarks)" >&2; exit 2; }
done
command -v cyclictest > /dev/null || { echo "ratios.sh: no cyclictest (rt-tests)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$BUILD/bench_locks" \
  --benchmark_filter='^(Uncontended<|ReadSide<.*/threads:1$)' --benchmark_repetitions="$REPS" \
  --benchmark_report_aggregates_only=true --benchmark_format=json > "$work/locks.json"
"$BUILD/bench_measure" --benchmark_filter=BM_HistogramRecord --benchmark_repetitions="$REPS" \
  --benchmark_report_aggregates_only=true --benchmark_format=json > "$work/measure.json"

python3 - "$work" "$BUILD/rtgate" "$PAIRS" "$WAKEUPS" << 'PY'
import json, os, resource, subprocess, sys

work, rtgate, pairs, wakeups = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b["cpu_time"]  # ns per iteration
    return out

locks = medians(f"{work}/locks.json")
def ns(kind, lock):
    for name, t in locks.items():
        if name.startswith(f"{kind}<{lock}>"):
            return t
    return None

rows = [
    ("tas", "Uncontended", "TasLock", "PthreadSpinlock"),
    ("ttas", "Uncontended", "TtasLock", "PthreadSpinlock"),
    ("ticket", "Uncontended", "TicketLock", "PthreadSpinlock"),
    ("qspinlock", "Uncontended", "QSpinLock", "PthreadSpinlock"),
    ("mcs", "Uncontended", "McsLock", "PthreadSpinlock"),
    ("FutexMutex", "Uncontended", "FutexMutex", "PthreadMutex"),
    ("PiMutex", "Uncontended", "PiMutex", "PthreadMutexPi"),
    ("PiRwSem write", "Uncontended", "PiRwSem", "PthreadRwlockWriter"),
    ("PiRwSem read", "ReadSide", "PiRwSem", "PthreadRwlockReader"),
    ("RwSem write", "Uncontended", "RwSem", "PthreadRwlockWriter"),
    ("RwSem read", "ReadSide", "RwSem", "PthreadRwlockReader"),
]
print("locks, uncontended lock+unlock (median of the repetitions, ns)")
print(f"  {'lock':<15}{'ours':>8}  {'model':<22}{'model ns':>9}{'ratio':>8}")
for name, kind, ours, model in rows:
    a, b = ns(kind, ours), ns(kind, model)
    if a is None or b is None:
        print(f"  {name:<15} missing from bench_locks")
        continue
    print(f"  {name:<15}{a:8.2f}  {model:<22}{b:9.2f}{a / b:7.2f}x")

record = medians(f"{work}/measure.json").get("BM_HistogramRecord")
print(f"\nLatencyHistogram::record: {record:.2f} ns")

def cpu_of(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

seconds = wakeups * 100 / 1e6
ct = ["cyclictest", "-q", "-m", "-t1", "-a0", "-p95", "-i100", f"-l{wakeups}"]
rg = [rtgate, "run", "cyclic", "-p", "interval_us=100", "-p", "cpus=0", "-p", "priority=95",
      "--duration", f"{seconds:g}", "--no-progress", "-o", f"{work}/cyclic.json"]
print(f"\ncyclic vs cyclictest: process CPU (user+sys) at 100 us on CPU 0, {pairs} pairs")
print(f"  {'pair':<6}{'cyclictest s':>13}{'wakeups':>9}{'rtgate s':>10}{'wakeups':>9}"
      f"{'per wakeup':>12}")
sum_ct = sum_rg = n_ct = n_rg = 0
per_pair = []
for i in range(1, pairs + 1):
    # Alternate which runs first: the second of a pair ran slower or faster often enough to
    # move the sum by a few percent, and alternating cancels that.
    if i % 2:
        c, r = cpu_of(ct), cpu_of(rg)
    else:
        r, c = cpu_of(rg), cpu_of(ct)
    cases = json.load(open(f"{work}/cyclic.json"))["suites"][0]["cases"]
    n = sum(m["summary"]["count"] for case in cases for m in case["metrics"]
            if m["name"] == "wakeup_latency")
    sum_ct, sum_rg, n_ct, n_rg = sum_ct + c, sum_rg + r, n_ct + wakeups, n_rg + n
    per_pair.append((r / n) / (c / wakeups))
    print(f"  {i:<6}{c:13.3f}{wakeups:9d}{r:10.3f}{n:9d}{per_pair[-1]:11.2f}x")
print(f"  all   {sum_ct:13.3f}{n_ct:9d}{sum_rg:10.3f}{n_rg:9d}"
      f"{(sum_rg / n_rg) / (sum_ct / n_ct):11.2f}x")
print(f"  median of the pairs' ratios: {sorted(per_pair)[len(per_pair) // 2]:.2f}x")
PY
