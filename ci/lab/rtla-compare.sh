#!/usr/bin/env bash
# rtgate's timerlat and osnoise suites against rtla on the same kernel: each boot of the virtual
# board (ci/lab/board.sh) runs, on the same CPUs for the same duration,
#   sequential:  rtgate run timerlat and rtla timerlat hist, rtgate run osnoise and rtla osnoise
#                top, one after the other (rtgate first on odd boots, rtla first on even ones):
#                separate samples, the same machine
#   concurrent:  rtla timerlat hist with rtgate run timerlat in its window (rtla starts 3 s
#                before and runs 6 s longer), then the same for osnoise (the kernel lets several
#                tracefs instances run one of these tracers at once, each getting every sample):
#                mostly the same samples. rtgate's start-up takes seconds under TCG, so its
#                window can end after rtla's (a max of rtgate's that rtla never saw); a longer
#                rtla window contains it but puts more of rtla's own samples in its quantiles
# and prints, per boot and mode, rtgate/rtla ratios: timerlat IRQ and thread latency p50, p99 and
# max per CPU; osnoise max single noise and noise % per CPU. rtla's histogram has 1 us buckets
# (values truncated to whole us), rtgate's quantiles are its bucket's upper edge (<= 1.6% high).
#
#   ci/lab/rtla-compare.sh [--kernel K] [--boots N] [--duration S] [--cpus LIST] [--out DIR]
#
# Defaults: 6.1.0-53-rt, 2 boots, 10 s, every CPU of the guest (2), ./lab-rtla-compare. Results
# stay in DIR/boot-N (rtgate's JSON, rtla's text) and DIR/ratios.tsv. About 3 min a boot (TCG).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel=6.1.0-53-rt boots=2 duration=10 cpus=all out=lab-rtla-compare
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=${2:?}; shift 2 ;;
    --boots) boots=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --cpus) cpus=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rtla-compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v rtla > /dev/null || { echo "rtla-compare.sh: rtla not found (ci/setup.sh installs it)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The guest's job. rtla's -c wants a list: "all" is the guest's online CPUs.
cat > "$out/guest.sh" << EOF
set -x
D=$duration
C=$cpus
BOOT=\$1
[ "\$C" = all ] && C=\$(cat /sys/devices/system/cpu/online)
rtla --version > rtla.version 2>&1 || true
for_each() { for f in /sys/kernel/tracing/osnoise/*; do echo "\$f: \$(cat \$f)"; done; }
for_each > knobs.before
ours_timerlat() {
  rtgate run timerlat --duration \$D -p cpus=\$C --no-progress -o \$1-timerlat.json > \$1-timerlat.log 2>&1
}
ours_osnoise() {
  rtgate run osnoise --duration \$D -p cpus=\$C --no-progress -o \$1-osnoise.json > \$1-osnoise.log 2>&1
}
theirs_timerlat() {
  timeout \$((\$2 + 90)) rtla timerlat hist -d \$2 -c \$C -b 1 -E 200000 > \$1-timerlat.rtla 2>&1
}
theirs_osnoise() {
  timeout \$((\$2 + 90)) rtla osnoise top -d \$2 -c \$C -q > \$1-osnoise.rtla 2>&1
}
# What runs in tracefs, a few seconds into a concurrent pair (evidence when one side is empty).
snapshot() {
  sleep 8
  for i in /sys/kernel/tracing/instances/*; do
    echo "\$i tracer=\$(cat \$i/current_tracer) on=\$(cat \$i/tracing_on)"
  done > \$1.snapshot
  ps -eo pid,comm,cls,rtprio,stat | grep -E 'osnoise|timerlat' >> \$1.snapshot
}
# sequential: on odd boots rtgate first, on even boots rtla first
if [ \$((BOOT % 2)) = 1 ]; then
  ours_timerlat seq; theirs_timerlat seq \$D; ours_osnoise seq; theirs_osnoise seq \$D
else
  theirs_timerlat seq \$D; ours_timerlat seq; theirs_osnoise seq \$D; ours_osnoise seq
fi
# concurrent: rtla's window holds rtgate's (rtgate starts after rtla has set its tracer)
theirs_timerlat con \$((D + 6)) &
sleep 3
snapshot con-timerlat &
ours_timerlat con
wait
theirs_osnoise con \$((D + 6)) &
sleep 3
snapshot con-osnoise &
ours_osnoise con
wait
for_each > knobs.after
ls /sys/kernel/tracing/instances > instances.after
EOF

for b in $(seq 1 "$boots"); do
  dir="$out/boot-$b"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$out/guest.sh" "$dir/"
  echo "== boot $b" >&2
  "$here/board.sh" --kernel "$kernel" --out "$dir" --timeout $((duration * 8 + 500)) -- \
    sh guest.sh "$b" > "$dir/board.log" 2>&1 || { tail -20 "$dir/board.log" >&2; exit 1; }
  grep '^lab:' "$dir/board.log" >&2 || true
done

python3 - "$out" "$boots" << 'PY'
import json, math, re, sys
out, boots = sys.argv[1], int(sys.argv[2])

def rtgate(path):
    with open(path) as f:
        suite = json.load(f)["suites"][0]
    if suite["status"] != "passed":
        print(f"{path}: {suite['status']}: {suite.get('reason', '')}", file=sys.stderr)
        return {}
    return {c["labels"]["cpu"]: {m["name"]: m for m in c["metrics"]} for c in suite["cases"]}

def rtla_hist(path):
    """rtla timerlat hist: per CPU and context, {us: count}, and its max line."""
    cols, rows, maxes = [], {}, {}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "Index":
            cols = [(c.split("-")[0], str(int(c.split("-")[1]))) for c in w[1:]]
            rows = {c: {} for c in cols}
        elif w[0].isdigit() and cols:
            for c, n in zip(cols, w[1:]):
                if int(n):
                    rows[c][int(w[0])] = int(n)
        elif w[0] == "max:" and cols:
            maxes = {c: int(n) for c, n in zip(cols, w[1:])}
    return rows, maxes

def quantile(h, q):
    total = sum(h.values())
    rank, seen = max(1, math.ceil(q * total)), 0
    for v in sorted(h):
        seen += h[v]
        if seen >= rank:
            return v
    return None

def rtla_osnoise(path):
    """rtla osnoise top -q: per CPU (runtime, noise, %avail, max noise, max single), us."""
    rows = {}
    for line in open(path):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        m = re.match(r"\s*(\d+) #(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)", line)
        if m:
            rows[m.group(1)] = [float(x) for x in m.groups()[2:]]
    return rows

def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"

lines = ["boot\tmode\tcpu\tmetric\trtgate_p50_us\trtla_p50_us\tp50_ratio\trtgate_p99_us\t"
         "rtla_p99_us\tp99_ratio\trtgate_max\trtla_max\tmax_ratio"]
for b in range(1, boots + 1):
    d = f"{out}/boot-{b}"
    for mode in ("seq", "con"):
        ours = rtgate(f"{d}/{mode}-timerlat.json")
        hist, maxes = rtla_hist(f"{d}/{mode}-timerlat.rtla")
        for cpu in sorted(ours, key=int):
            for ctx, name in (("IRQ", "irq_latency"), ("Thr", "thread_latency")):
                s = ours[cpu][name]["summary"]
                h = hist.get((ctx, cpu), {})
                a = [s["p50"] / 1000, s["p99"] / 1000, s["max"] / 1000]
                r = [quantile(h, 0.5), quantile(h, 0.99), maxes.get((ctx, cpu))]
                row = [str(b), mode, cpu, name]
                for x, y in zip(a, r):
                    row += [f"{x:.1f}", str(y), ratio(x, y or 0)]
                lines.append("\t".join(row))
        ours = rtgate(f"{d}/{mode}-osnoise.json")
        theirs = rtla_osnoise(f"{d}/{mode}-osnoise.rtla")
        for cpu in sorted(ours, key=int):
            t = theirs.get(cpu)
            single = ours[cpu]["max_single_noise"]["summary"]["max"] / 1000
            noise_pct = 100 - ours[cpu]["cpu_available"]["samples"][0]
            if t is None:
                lines.append(f"{b}\t{mode}\t{cpu}\tosnoise\t(rtla printed no row)")
                continue
            their_pct = 100 - t[2]
            lines.append("\t".join([str(b), mode, cpu, "noise_pct", "-", "-", "-", "-", "-", "-",
                                    f"{noise_pct:.2f}", f"{their_pct:.2f}",
                                    ratio(noise_pct, their_pct)]))
            lines.append("\t".join([str(b), mode, cpu, "max_single_noise", "-", "-", "-", "-",
                                    "-", "-", f"{single:.1f}", f"{t[4]:.0f}",
                                    ratio(single, t[4])]))
print("\n".join(lines))
with open(f"{out}/ratios.tsv", "w") as f:
    f.write("\n".join(lines) + "\n")
PY
