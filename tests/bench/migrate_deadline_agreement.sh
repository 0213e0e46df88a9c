#!/usr/bin/env bash
# Agreement with rt-migrate-test and cyclicdeadline (Debian's rt-tests): each tool and the rtgate
# suite that replaces it run with the same parameters on the same CPUs (all online CPUs), in
# turn (tool, rtgate, tool, rtgate, ...), and their figures are printed side by side with the
# ratio rtgate/tool.
#
#   tests/bench/migrate_deadline_agreement.sh [ROUNDS] [SECONDS] [RTGATE_BINARY]
#
# rt-migrate-test -c -p2 -m1000 -l LOOPS  vs  rtgate run sched.migrate (prio 2, max_err 1000 us,
#   run 20 ms, period 200 ms, SECONDS s). N+1 tasks on N CPUs in both. rt-migrate-test 2.x ignores
#   -r and -s (its busy loop and sleeps use the 20 ms and 100 ms defaults), and each of its loops
#   is two 100 ms sleeps, so LOOPS = SECONDS x 5 and rtgate's period is 200 ms. Compared: the
#   verdict, and each task's longest start delay (rt-migrate-test's per-task "max", from the
#   barrier's release; rtgate's start_delay max, from the period's absolute start). For the
#   lowest task that is a higher task's whole run by design; for the others it is their wait.
# cyclicdeadline -t N -i INTERVAL -s 500  vs  rtgate run deadline.cyclic (interval, step 500 us,
#   60% runtime, one thread per CPU). cyclicdeadline refuses runtimes under 2 ms unless it can
#   turn on HRTICK_DL in debugfs's sched/features (which it then leaves on), so INTERVAL defaults
#   to 4000 us (runtime 2400 us). cyclicdeadline 2.x writes no histogram: its p50 and p99 come
#   from the Act column it prints every 10 ms (one wakeup in every 2 or 3, taken by time, not by
#   value), its max from its JSON.
# Exit status 1 when a round's verdicts differ (rt-migrate-test's pass against rtgate's fail, or
# the other way), 0 otherwise; ratios are printed, not judged (the two measure from different
# starts, see the README's paragraph on each suite). Needs root; run it under the RT lock.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2}
SECONDS_PER_RUN=${2:-10}
RTGATE=${3:-build/rtgate}
INTERVAL_US=${INTERVAL_US:-4000}
STEP_US=500
for tool in rt-migrate-test cyclicdeadline jq awk "$RTGATE"; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install rt-tests jq)" >&2; exit 2; }
done
NCPU=$(nproc)
LOOPS=$((SECONDS_PER_RUN * 5))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
flag() { awk -v r="$1" 'BEGIN { print (r >= 0.8 && r <= 1.2) ? "" : "*" }'; }

# Nearest-rank quantile (us) of the numbers on stdin.
quantile() {
  sort -n | awk -v q="$1" '{ v[NR] = $1 } END { r = int(q * NR); if (r < q * NR) r++; if (r < 1) r = 1; print v[r] }'
}

echo "rt-migrate-test vs sched.migrate: $((NCPU + 1)) tasks on $NCPU CPUs, prio 2.., run 20 ms,"
echo "max_err 1000 us, $LOOPS loops / $SECONDS_PER_RUN s of 200 ms periods"
printf '%-5s %-6s %14s %14s %7s\n' round prio rmt_max_us rtgate_max_us ratio
disagree=0
for round in $(seq 1 "$ROUNDS"); do
  rc=0
  rt-migrate-test -c -p 2 -m 1000 -l "$LOOPS" -q --json="$work/rmt.json" >"$work/rmt.out" 2>&1 || rc=$?
  "$RTGATE" run sched.migrate -p prio=2 -p max_err_us=1000 -p run_ms=20 -p period_ms=200 \
    --duration "$SECONDS_PER_RUN" --no-progress -o "$work/rg.json" >/dev/null || true
  rmt_verdict=$([ "$rc" -eq 0 ] && echo passed || echo failed)
  rg_verdict=$(jq -r '.suites[0].status' "$work/rg.json")
  for t in $(seq 0 "$NCPU"); do
    prio=$((2 + t))
    rmt_max=$(jq -r --arg t "$t" '.thread[$t].max' "$work/rmt.json")
    rg_max=$(jq -r --arg c "prio$prio" '.suites[0].cases[] | select(.name == $c)
      | .metrics[] | select(.name == "start_delay") | .summary.max / 1000 | floor' "$work/rg.json")
    r=$(ratio "$rg_max" "$rmt_max")
    printf '%-5s %-6s %14s %14s %7s %s\n' "$round" "$prio" "$rmt_max" "$rg_max" "$r" "$(flag "$r")"
  done
  violations=$(jq -r '.suites[0].cases[] | select(.name == "order") | .metrics[]
    | select(.name == "violations") | .samples[0]' "$work/rg.json")
  printf '%-5s verdict: rt-migrate-test %s, rtgate %s (%s violations)%s\n' "$round" \
    "$rmt_verdict" "$rg_verdict" "$violations" \
    "$([ "$rmt_verdict" = "$rg_verdict" ] && echo "" || echo "  DIFFER")"
  [ "$rmt_verdict" = "$rg_verdict" ] || disagree=1
done

echo
echo "cyclicdeadline vs deadline.cyclic: $NCPU threads, interval $INTERVAL_US us + $STEP_US us per"
echo "thread, runtime 60%, deadline = period, $SECONDS_PER_RUN s"
printf '%-5s %-6s %-7s %-8s %8s %8s %8s %8s\n' round thread period tool samples p50_us p99_us max_us
for round in $(seq 1 "$ROUNDS"); do
  cyclicdeadline -t "$NCPU" -i "$INTERVAL_US" -s "$STEP_US" -D "$SECONDS_PER_RUN" \
    --json="$work/cd.json" >"$work/cd.out" 2>&1
  "$RTGATE" run deadline.cyclic -p interval_us="$INTERVAL_US" -p step_us="$STEP_US" \
    --duration "$SECONDS_PER_RUN" --no-progress -o "$work/dl.json" >/dev/null
  status=$(jq -r '.suites[0].status' "$work/dl.json")
  if [ "$status" != passed ]; then
    echo "$round deadline.cyclic $status: $(jq -r '.suites[0].reason' "$work/dl.json")"
    continue
  fi
  for t in $(seq 0 $((NCPU - 1))); do
    period=$((INTERVAL_US + t * STEP_US))
    # The Act column of thread t's status lines (after the cursor-up escapes).
    sed 's/\x1b\[[0-9]*[AB]//g' "$work/cd.out" |
      awk -v t="$t" '$1 == "T:" && $2 == t { for (i = 1; i <= NF; i++) if ($i == "Act:") print $(i + 1) }' \
        >"$work/act"
    cd_n=$(jq -r --arg t "$t" '.thread[$t].cycles' "$work/cd.json")
    cd_50=$(quantile 0.5 <"$work/act")
    cd_99=$(quantile 0.99 <"$work/act")
    cd_max=$(jq -r --arg t "$t" '.thread[$t].max' "$work/cd.json")
    read -r rg_n rg_50 rg_99 rg_max rg_min < <(jq -r --arg c "thread$t" '.suites[0].cases[]
      | select(.name == $c) | .metrics[] | select(.name == "wakeup_latency").summary
      | "\(.count) \(.p50 / 1000) \(.p99 / 1000) \(.max / 1000) \(.min / 1000)"' "$work/dl.json")
    printf '%-5s %-6s %-7s %-8s %8s %8s %8s %8s\n' "$round" "$t" "$period" cycdl "$cd_n" "$cd_50" "$cd_99" "$cd_max"
    printf '%-5s %-6s %-7s %-8s %8s %8.1f %8.1f %8.1f\n' "$round" "$t" "$period" rtgate "$rg_n" "$rg_50" "$rg_99" "$rg_max"
    r50=$(ratio "$rg_50" "$cd_50"); r99=$(ratio "$rg_99" "$cd_99"); rmax=$(ratio "$rg_max" "$cd_max")
    printf '%-5s %-6s %-7s %-8s %8s %8s %8s %8s\n' "$round" "$t" "$period" ratio "" \
      "$r50$(flag "$r50")" "$r99$(flag "$r99")" "$rmax$(flag "$rmax")"
    # cyclicdeadline's latency is the wakeup less the earliest wakeup it has seen (its period base
    # starts at its first wakeup and moves earlier whenever one comes earlier): rtgate's figures
    # less rtgate's min are the like quantity.
    a50=$(awk -v a="$rg_50" -v m="$rg_min" 'BEGIN { printf "%.1f", a - m }')
    a99=$(awk -v a="$rg_99" -v m="$rg_min" 'BEGIN { printf "%.1f", a - m }')
    amax=$(awk -v a="$rg_max" -v m="$rg_min" 'BEGIN { printf "%.1f", a - m }')
    printf '%-5s %-6s %-7s %-8s %8s %8s %8s %8s\n' "$round" "$t" "$period" rtg-min "" "$a50" "$a99" "$amax"
    r50=$(ratio "$a50" "$cd_50"); r99=$(ratio "$a99" "$cd_99"); rmax=$(ratio "$amax" "$cd_max")
    printf '%-5s %-6s %-7s %-8s %8s %8s %8s %8s\n' "$round" "$t" "$period" ratio-min "" \
      "$r50$(flag "$r50")" "$r99$(flag "$r99")" "$rmax$(flag "$rmax")"
  done
done
echo "(* marks a ratio more than 20% from 1)"
exit "$disagree"
