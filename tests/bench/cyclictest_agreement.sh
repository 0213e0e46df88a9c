#!/usr/bin/env bash
# Agreement with cyclictest: runs `cyclictest -S -m -p95 -i1000 -D N -q --json` and
# `rtgate run cyclic` with the same interval, priority and duration, one after the other, idle
# and under `stress-ng --cpu 2 --vm 1`, and prints p50/p99/max per CPU side by side.
#
#   tests/bench/cyclictest_agreement.sh [SECONDS] [RTGATE_BINARY]
#
# -S gives cyclictest one thread per CPU, pinned, like rtgate's cyclic; -h 20000 adds its
# 1 us histogram (up to 20 ms) so that percentiles can be read from it. Exit status 1 when a
# p50 differs by more than 25% (the foundation issue's bound), 0 otherwise. Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${1:-30}
RTGATE=${2:-build/rtgate}
PRIO=95
INTERVAL_US=1000
for tool in cyclictest stress-ng jq "$RTGATE"; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (run ci/setup.sh and ci/build.sh)" >&2; exit 2; }
done
work=$(mktemp -d)
stress_pid=""
cleanup() { [ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Nearest-rank quantiles (us) from cyclictest's histogram; overflows rank above every bucket.
ct_rows() {  # file
  jq -r --argjson qs '[0.5, 0.99]' '
    .thread | to_entries[] | .value as $t
    | ($t.histogram | to_entries | map({us: (.key|tonumber), n: .value}) | sort_by(.us)) as $h
    | ($h | map(.n) | add) as $n
    | [ $qs[] as $q | ($q * $n | ceil) as $rank
        | (reduce $h[] as $b ({acc: 0, v: null};
             if .v == null then (.acc += $b.n) | (if .acc >= $rank then .v = $b.us else . end)
             else . end)).v ]
    | "\($t.cpu) \($t.cycles) \(.[0]) \(.[1]) \($t.max)"' "$1"
}

rg_rows() {  # file
  jq -r '.suites[0].cases[] | (.metrics[] | select(.name == "wakeup_latency").summary) as $s
         | "\(.labels.cpu) \($s.count) \($s.p50 / 1000) \($s.p99 / 1000) \($s.max / 1000)"' "$1"
}

disagree=0
for load in idle stress; do
  if [ "$load" = stress ]; then
    stress-ng --cpu 2 --vm 1 --timeout $((DURATION * 2 + 30)) -q &
    stress_pid=$!
    sleep 2
  fi
  cyclictest -S -m -p$PRIO -i$INTERVAL_US -D "$DURATION" -q -h 20000 --json="$work/ct.json" >/dev/null
  "$RTGATE" run cyclic -p priority=$PRIO -p interval_us=$INTERVAL_US --duration "$DURATION" \
    --no-progress -o "$work/rg.json" >/dev/null
  if [ -n "$stress_pid" ]; then kill "$stress_pid"; wait "$stress_pid" 2>/dev/null || true; stress_pid=""; fi

  printf '\n%s (%s s, -p%s -i%s)\n' "$load" "$DURATION" "$PRIO" "$INTERVAL_US"
  printf '%-4s %-11s %9s %9s %9s %9s   %s\n' cpu tool samples p50_us p99_us max_us "p50 rtgate/cyclictest"
  join <(ct_rows "$work/ct.json" | sort) <(rg_rows "$work/rg.json" | sort) |
  while read -r cpu ct_n ct_50 ct_99 ct_max rg_n rg_50 rg_99 rg_max; do
    ratio=$(awk -v a="$rg_50" -v b="$ct_50" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    ok=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.75 && r <= 1.25) ? "agree" : "DISAGREE" }')
    printf '%-4s %-11s %9s %9s %9s %9s\n' "$cpu" cyclictest "$ct_n" "$ct_50" "$ct_99" "$ct_max"
    printf '%-4s %-11s %9s %9.1f %9.1f %9.1f   %s %s\n' "$cpu" rtgate "$rg_n" "$rg_50" "$rg_99" "$rg_max" "$ratio" "$ok"
    [ "$ok" = agree ] || echo "DISAGREE" >>"$work/verdict"
  done
done
[ -f "$work/verdict" ] && exit 1
exit 0
