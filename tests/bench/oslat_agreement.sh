#!/usr/bin/env bash
# Agreement with rt-tests' oslat: runs `oslat -c CPUS -f PRIO -D N -b 1024 --json` and
# `rtgate run oslat` with the same CPUs, priority and duration, interleaved (oslat first in odd
# rounds, rtgate first in even ones), and prints per CPU the gaps over 1 us per second, their
# p50/p99 and the max noise side by side, with the ratio rtgate/oslat.
#
#   tests/bench/oslat_agreement.sh [SECONDS] [RTGATE_BINARY]
#   env: CPUS (default 1: CPU 0 keeps oslat's main thread and rtgate's runner), PRIO (1),
#        ROUNDS (2), SCENARIOS ("idle rt")
#
# Scenarios: idle, and rt: a SCHED_FIFO 98 `stress-ng --cpu` pinned to the measured CPUs, busy in
# 2 ms slices at 20% load, above both loops.
#
# rtgate runs with runtime_us = period_us, oslat's unbroken loop (its default leaves a tenth of
# each period asleep). What the columns compare, given how oslat 2.4 bins (src/oslat/oslat.c):
# - a loop delta of c cycles goes to bucket floor(c / MHz) + 1 (1 us wide, labelled by its upper
#   edge; MHz is the TSC rate truncated to an integer), the last bucket takes everything above
#   (32 buckets by default; -b 1024 here, its most, so that a p99 up to 1 ms can be read), and
#   its max is floor(us) + 1. So oslat's max is 0-1 us above the gap, and its quantiles are
#   bucket upper edges, ">=1023" once they land in the last bucket.
# - oslat bins every delta, the loop's own (tens of ns) included; rtgate records only gaps longer
#   than threshold_ns (1 us). The oslat columns therefore take its buckets from 2 up (gaps of 1 us
#   and more), and rtgate's noise histogram is re-binned into oslat's buckets (each of its
#   buckets by its lower edge) before quantiles are taken: both sides' p50/p99 are bucket edges.
# - Max noise on a shared machine is one extreme event per run and moves with whatever else runs;
#   it is printed, not judged.
# Each round is printed, then the rounds pooled (buckets summed, max of maxima); exit status 1
# when a pooled p50 differs by more than 20%, 0 otherwise. Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${1:-10}
RTGATE=${2:-build/rtgate}
CPUS=${CPUS:-1}
PRIO=${PRIO:-1}
ROUNDS=${ROUNDS:-2}
SCENARIOS=${SCENARIOS:-"idle rt"}
BUCKETS=1024
for tool in oslat stress-ng jq "$RTGATE"; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install rt-tests stress-ng jq)" >&2; exit 2; }
done
work=$(mktemp -d)
stress_pid=""
cleanup() { [ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Both tools' results as records {cpu, dur, max (us), bins: {oslat bucket: count}}, buckets 2 and
# up: oslat's as it wrote them, rtgate's noise histogram re-binned by each bucket's lower edge.
os_records() {  # file
  jq -c '.thread[] | {cpu, dur: .duration, max,
                      bins: (.histogram | with_entries(select((.key | tonumber) >= 2)))}' "$1"
}
rg_records() {  # file duration
  jq -c --argjson d "$2" --argjson last "$BUCKETS" '
    def lower($i): ($i / 64 | floor) as $g | ($i % 64) as $s
      | if $g == 0 then $s else (64 + $s) * pow(2; $g - 1) end;
    .suites[0].cases[] | (.metrics[] | select(.name == "noise")) as $m
    | {cpu: (.labels.cpu | tonumber), dur: $d, max: ($m.summary.max / 1000),
       bins: (reduce $m.histogram.counts[] as $c ({i: 0, b: {}};
                if $c < 0 then .i += (-$c)
                else lower(.i) as $lo
                  | (if $lo >= 1000 then .b[([($lo / 1000 | floor) + 1, $last] | min | tostring)] += $c
                     else . end)
                  | .i += 1 end) | .b)}' "$1"
}

# "cpu gaps_per_s p50_us p99_us max_us" per CPU of the records on stdin, pooled over them:
# nearest-rank quantiles over the pooled buckets, ">=1023" in the last one.
rows() {
  jq -rs --argjson last "$BUCKETS" '
    def q($h; $n; $q): ($q * $n | ceil) as $rank
      | (reduce $h[] as $b ({acc: 0, v: null};
           if .v == null then (.acc += $b.n) | (if .acc >= $rank then .v = $b.us else . end)
           else . end)).v
      | if . == null then "-" elif . >= $last then ">=\($last - 1)" else tostring end;
    group_by(.cpu)[]
    | (map(.bins | to_entries[]) | group_by(.key)
       | map({us: (.[0].key | tonumber), n: (map(.value) | add)}) | sort_by(.us)) as $h
    | ($h | map(.n) | add // 0) as $n
    | "\(.[0].cpu) \($n / (map(.dur) | add) | floor) \(q($h; $n; 0.5)) \(q($h; $n; 0.99)) \(map(.max) | max)"'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "-"; else printf "%.2f", a / b }'; }
flag() { awk -v r="$1" 'BEGIN { print (r == "-" || (r >= 0.8 && r <= 1.25)) ? "" : "DIFFER" }'; }

run_oslat() {
  oslat -c "$CPUS" -f "$PRIO" -D "$DURATION" -b "$BUCKETS" -q --json="$work/os.json" >/dev/null
}
run_rtgate() {
  "$RTGATE" run oslat -p cpus="$CPUS" -p priority="$PRIO" -p runtime_us=1000000 \
    -p period_us=1000000 --duration "$DURATION" --no-progress -o "$work/rg.json" >/dev/null
}

for scenario in $SCENARIOS; do
  if [ "$scenario" = rt ]; then
    stress-ng --cpu 1 --cpu-load 20 --cpu-load-slice 2 --taskset "$CPUS" --sched fifo \
      --sched-prio 98 --timeout $((ROUNDS * (DURATION * 2 + 10) + 10)) -q &
    stress_pid=$!
    sleep 1
  fi
  printf '\n%s (%s s x %s rounds, CPUs %s, SCHED_FIFO %s)\n' "$scenario" "$DURATION" "$ROUNDS" "$CPUS" "$PRIO"
  printf '%-6s %-3s %-6s %10s %7s %7s %10s   %s\n' round cpu tool "gaps/s" p50_us p99_us max_us \
    "rtgate/oslat: gaps/s p50 p99 max"
  : >"$work/os.rec"
  : >"$work/rg.rec"
  for round in $(seq 1 "$ROUNDS") pooled; do
    if [ "$round" = pooled ]; then
      os_now=$(rows <"$work/os.rec"); rg_now=$(rows <"$work/rg.rec")
    else
      if [ $((round % 2)) -eq 1 ]; then run_oslat; run_rtgate; else run_rtgate; run_oslat; fi
      os_records "$work/os.json" | tee -a "$work/os.rec" >"$work/os.one"
      rg_records "$work/rg.json" "$DURATION" | tee -a "$work/rg.rec" >"$work/rg.one"
      os_now=$(rows <"$work/os.one"); rg_now=$(rows <"$work/rg.one")
    fi
    join <(sort <<<"$os_now") <(sort <<<"$rg_now") |
    while read -r cpu o_n o_50 o_99 o_max r_n r_50 r_99 r_max; do
      rn=$(ratio "$r_n" "$o_n"); r5=$(ratio "$r_50" "$o_50"); r9=$(ratio "$r_99" "$o_99")
      rm_=$(ratio "$r_max" "$o_max")
      verdict=""
      if [ "$round" = pooled ]; then verdict="$(flag "$r5")"; fi
      printf '%-6s %-3s %-6s %10s %7s %7s %10s\n' "$round" "$cpu" oslat "$o_n" "$o_50" "$o_99" "$o_max"
      printf '%-6s %-3s %-6s %10s %7s %7s %10.1f   %s %s %s %s %s\n' "$round" "$cpu" rtgate "$r_n" \
        "$r_50" "$r_99" "$r_max" "$rn" "$r5" "$r9" "$rm_" "$verdict"
      [ -z "$verdict" ] || echo DIFFER >>"$work/verdict"
    done
  done
  if [ -n "$stress_pid" ]; then kill "$stress_pid"; wait "$stress_pid" 2>/dev/null || true; stress_pid=""; fi
done
[ -f "$work/verdict" ] && exit 1
exit 0
