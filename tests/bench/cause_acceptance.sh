#!/usr/bin/env bash
# Does the cause comparison name what was injected, and nothing when nothing was? REPS pairs of
# traced runs per scenario, each pair a fresh baseline and a fresh current run, compared with
# `rtgate compare --format json`:
#
#   aa        cyclic against cyclic: no case may name a cause that grew.
#   fifo      current with --load rt:1:98 (a SCHED_FIFO 98 spinner on CPU 0, above cyclic's 95,
#             spinning 20% of each 10 ms): cpu0's leading new cause must be the spinner, task
#             load-rt*. (A spinner below cyclic's priority costs a wakeup only its context
#             switch, a few us, rarely over a p99 threshold: not a cause of the tail.)
#   net       current with --load stress:--sock 2 (stress-ng's TCP over loopback, whose
#             packets are received in the NET_RX softirq; NET_LOAD=ARGS for other stress-ng
#             arguments); io and msg: --load io:2 (writes + fsync) or msg:2 (hackbench-like
#             groups over AF_UNIX sockets): the leading new cause of some case must be the
#             load: its threads (task stress-ng-*, load-io*, load-msg*, in the kernel for it),
#             the kernel threads working for it (kworker, jbd2) or the interrupts it raises (an
#             IRQ, a softirq, an interrupt vector, reschedule IPIs among them).
#   lock      fs.dentry --trace=locks, 4 threads, files spread over 64 directories in the baseline
#             and all in one in the current run: the leading grown lock must be a directory's
#             lock (a rwsem, mutex or spinlock taken on the path walk, create or rename).
#   lock-aa   fs.dentry against itself, 64 directories both: no lock may be named.
#
#   tests/bench/cause_acceptance.sh [REPS] [SECONDS] [RTGATE_BINARY]
#
# The threshold is chosen as users get it: each pair's baseline runs with --baseline of an
# untraced run (its lowest p99), the current run with --baseline of the traced baseline (its
# threshold). QUANTILE=p90 (or p50, ...) gives the baseline that quantile of the untraced run
# instead, its lowest over the cases, as --trace-threshold-us: a lower threshold sees causes
# that add tens of microseconds where the tail belongs to something else (a VM's idle exits).
# SCENARIOS="aa fifo" picks scenarios; KEEP=DIR keeps every result there. Prints one
# line per pair and the count of passing pairs per scenario; exit 0 when every scenario passed
# in at least 9 of 10 pairs (REPS - REPS/10). Needs root, SCHED_FIFO, tracefs and jq.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPS=${1:-10}
DURATION=${2:-8}
RTGATE=$(realpath "${3:-build/rtgate}")
SCENARIOS=${SCENARIOS:-aa fifo net io lock lock-aa}
command -v jq >/dev/null || { echo "missing: jq" >&2; exit 2; }
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

run() { "$RTGATE" run --duration "$DURATION" --no-progress "$@" >/dev/null 2>>"$work/stderr" || true; }

# suite and flags of each scenario's baseline and current run
setup() {
  case $1 in
    aa) suite=(cyclic); trace=--trace; base_extra=(); cur_extra=() ;;
    fifo) suite=(cyclic); trace=--trace; base_extra=(); cur_extra=(--load rt:1:98) ;;
    io | msg) suite=(cyclic); trace=--trace; base_extra=(); cur_extra=(--load "$1:2") ;;
    net) suite=(cyclic); trace=--trace; base_extra=(); cur_extra=(--load "stress:${NET_LOAD:---sock 2}") ;;
    lock | lock-aa)
      suite=(fs.dentry -p threads=4); trace=--trace=locks; base_extra=(-p dirs=64)
      cur_extra=(-p dirs=64)
      if [ "$1" = lock ]; then cur_extra=(-p dirs=1); fi ;;
    *) echo "unknown scenario $1" >&2; exit 2 ;;
  esac
}

# Prints "PASS|FAIL <what the comparison named>" for scenario $1 from compare JSON $2.
judge() {
  local named
  case $1 in
    aa) named=$(jq -r '[.causes[] | select(.case != "") | .grew[] | .cause] | join("; ")' "$2")
        [ -z "$named" ] && echo "PASS none" || echo "FAIL $named" ;;
    fifo) named=$(jq -r '[.causes[] | select(.case == "cpu0") | .grew[0].cause // "none"][0] // "no comparison"' "$2")
        [[ $named == "task load-rt*"* ]] && echo "PASS $named" || echo "FAIL $named" ;;
    io | msg | net) named=$(jq -r '[.causes[] | select(.case != "") | "\(.case): \(.grew[0].cause // "none")"] | join("; ")' "$2")
        grep -qE ': (irq |softirq |vector |task (load-io|load-msg|stress-ng|kworker|jbd2))' <<<"$named" \
          && echo "PASS $named" || echo "FAIL $named" ;;
    lock) named=$(jq -r '[.causes[] | select(.case == "") | .locks_grew[0].lock // "none"][0] // "no comparison"' "$2")
        grep -qiE 'rwsem|mutex|spin|rename|d_lock|i_rwsem|lockref' <<<"$named" && [ "$named" != none ] \
          && echo "PASS $named" || echo "FAIL $named" ;;
    lock-aa) named=$(jq -r '[.causes[] | select(.case == "") | .locks_grew[] | .lock] | join("; ")' "$2")
        [ -z "$named" ] && echo "PASS none" || echo "FAIL $named" ;;
  esac
}

status=0
for scenario in $SCENARIOS; do
  setup "$scenario"
  pass=0
  for i in $(seq 1 "$REPS"); do
    p="$work/$scenario-$i"
    run "${suite[@]}" "${base_extra[@]}" -o "$p-plain.json"
    threshold=(--baseline "$p-plain.json")
    if [ -n "${QUANTILE:-}" ]; then
      threshold=(--trace-threshold-us "$(jq --arg q "$QUANTILE" '[.suites[0].cases[].metrics[]
        | select(.kind == "latency") | .summary[$q]] | min / 1000' "$p-plain.json")")
    fi
    run "${suite[@]}" "${base_extra[@]}" "$trace" "${threshold[@]}" -o "$p-base.json"
    run "${suite[@]}" "${cur_extra[@]}" "$trace" --baseline "$p-base.json" -o "$p-cur.json"
    "$RTGATE" compare "$p-base.json" "$p-cur.json" --format json >"$p-cmp.json" 2>>"$work/stderr" || true
    verdict=$(judge "$scenario" "$p-cmp.json")
    [[ $verdict == PASS* ]] && pass=$((pass + 1))
    shown=$(jq -r '[.causes[0].threshold_ns // 0][0] / 1000' "$p-cmp.json")
    printf '%-8s %2d  threshold %5.1f us  %s\n' "$scenario" "$i" "$shown" "$verdict"
  done
  need=$((REPS - REPS / 10))
  printf '%-8s passed in %d of %d pairs (need %d)\n' "$scenario" "$pass" "$REPS" "$need"
  [ "$pass" -ge "$need" ] || status=1
done
exit $status
