#!/usr/bin/env bash
# What --trace costs the measurement: cyclic's p50 and p99 per CPU with and without --trace,
# RUNS runs of each, interleaved (plain, traced, plain, ...) so that drift of the machine hits
# both alike; prints each run, the medians and the traced/plain ratio of the medians.
#
#   tests/bench/trace_overhead.sh [RUNS] [SECONDS] [RTGATE_BINARY]
#
# On the measured path --trace adds one trace_marker write per marked sample (each CPU's new
# worst, about ln N times in N samples, and each --trace-threshold-us crossing); the collector
# thread that drains the ring buffer and the kernel's own event recording are the rest of the
# cost, and they are what this measures. Needs root and tracefs.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
DURATION=${2:-10}
RTGATE=${3:-build/rtgate}
command -v jq >/dev/null || { echo "missing: jq" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-7s %-4s %-5s %10s %10s\n' mode run cpu p50_us p99_us
for i in $(seq 1 "$RUNS"); do
  for mode in plain trace; do
    flag=(); [ "$mode" = trace ] && flag=(--trace)
    "$RTGATE" run cyclic --duration "$DURATION" "${flag[@]}" -o "$work/$mode-$i.json" \
      --no-progress >/dev/null
    jq -r --arg m "$mode" --arg i "$i" '.suites[0].cases[] | .name as $c | .metrics[]
      | select(.name == "wakeup_latency")
      | [$m, $i, $c, (.summary.p50 / 1000), (.summary.p99 / 1000)] | @tsv' "$work/$mode-$i.json" |
      while IFS=$'\t' read -r m r c p50 p99; do
        printf '%-7s %-4s %-5s %10.1f %10.1f\n' "$m" "$r" "$c" "$p50" "$p99"
      done | tee -a "$work/rows"
  done
done
echo
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for cpu in $(awk '{print $3}' "$work/rows" | sort -u); do
  for q in 4 5; do
    name=$([ $q = 4 ] && echo p50 || echo p99)
    plain=$(awk -v c="$cpu" -v q=$q '$1=="plain" && $3==c {print $q}' "$work/rows" | median)
    traced=$(awk -v c="$cpu" -v q=$q '$1=="trace" && $3==c {print $q}' "$work/rows" | median)
    awk -v c="$cpu" -v n="$name" -v p="$plain" -v t="$traced" \
      'BEGIN {printf "%s %s median: plain %.1f us, traced %.1f us, ratio %.2f\n", c, n, p, t, t/p}'
  done
done
