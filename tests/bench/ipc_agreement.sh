#!/usr/bin/env bash
# Agreement with rt-tests' IPC tools: runs each tool and `rtgate run ipc.wakeup` on the matching
# mechanism with the same interval, priorities and duration, one right after the other, on one
# CPU and across two, and prints the figures side by side with their ratio.
#
#   tests/bench/ipc_agreement.sh [SECONDS] [RTGATE_BINARY] [one|two|both]
#
#   rtgate via   tool         what the tool times (one way unless said)
#   signal       sigwaittest  pthread_kill(SIGUSR2) -> sigwait returns
#   signal       signaltest   a ring of two threads passing SIGUSR1: thread 0's time between
#                             sending and the signal coming back, two wakeups (round trip)
#   pmq          pmqtest      mq_send -> mq_receive returns
#   futex, sem   ptsematest   pthread_mutex_unlock -> the blocked pthread_mutex_lock returns
#   svsem        svsematest   semop(+1) -> the blocked semop(-1) returns
# pipe and eventfd have no rt-tests counterpart.
#
# Every tool writes --json (rt-tests 2.x), but only min, avg and max in whole microseconds
# (gettimeofday): no histogram, so the tools' p50 and p99 do not exist; rtgate's mean is compared
# with the tool's avg and max with max. The pair tools run sender and receiver at the same
# priority (-p; only the next pair gets one less) and so does signaltest, so rtgate runs with
# sender_priority = priority here. On one CPU everything is pinned to the last CPU (-a N). Across
# two, signaltest pins its threads to CPUs 0 and 1 (-a 0,1) and rtgate puts its sender on 0 and
# its receiver on 1, but the pair tools cannot split a pair (-a puts both on one CPU): they run
# unpinned under `taskset -c 0,1`, and the CPUs their JSON reports (each thread's last) are shown.
# One more rtgate run per placement, all five mechanisms in turn over the same duration, keeps
# rtgate's own default (receiver one priority above the sender): its rows ("rx>tx") show the
# wakeup alone, where an equal-priority receiver on the sender's CPU also waits for the sender
# to block. Ratios (rtgate/tool) are of min, mean/avg and max; outside [0.8, 1.25] they are
# marked DIFF. Exit status 1 when a run fails. Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${1:-10}
RTGATE=${2:-build/rtgate}
WHERE=${3:-both}
PRIO=95
INTERVAL_US=1000
for tool in sigwaittest signaltest pmqtest ptsematest svsematest jq taskset "$RTGATE"; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install rt-tests jq)" >&2; exit 2; }
done
case "$WHERE" in one | two | both) ;; *) echo "where: one, two or both, not '$WHERE'" >&2; exit 2 ;; esac
LAST=$(($(nproc) - 1))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tool NAME FILE CPUS: one tool run; CPUS "N" pins to CPU N, "0,1" spreads over CPUs 0 and 1.
tool() {
  local name=$1 out=$2 cpus=$3 pin=() wrap=()
  local args=(-p"$PRIO" -D"$DURATION" --json="$out")
  [ "$name" = signaltest ] && args+=(-m) || args+=(-i"$INTERVAL_US")
  if [ "$name" = signaltest ] || [ "$cpus" = "$LAST" ]; then pin=(-a "$cpus"); else wrap=(taskset -c "$cpus"); fi
  "${wrap[@]}" "$name" "${args[@]}" "${pin[@]}" >/dev/null 2>"$out.err" ||
    { echo "$name failed: $(head -c 300 "$out.err")" >&2; return 1; }
}

rtgate_run() {  # VIA FILE CPUS [SENDER_PRIORITY]
  "$RTGATE" run ipc.wakeup -p via="$1" -p cpus="$3" -p priority=$PRIO -p sender_priority="${4:-$PRIO}" \
    -p interval_us=$INTERVAL_US --duration "$DURATION" --no-progress -o "$2" >/dev/null ||
    { echo "rtgate ipc.wakeup via=$1 failed" >&2; return 1; }
}

# "cpus samples min avg max" in us from a tool's JSON.
tool_row() {  # NAME FILE CPUS
  if [ "$1" = signaltest ]; then
    # Its JSON prints thread 0's CPU for every thread: the CPUs come from -a.
    jq -r --arg cpus "$3" '.thread["0"] | "\($cpus) \(.cycles) \(.min) \(.avg) \(.max)"' "$2"
  else
    jq -r '.thread["0"] | "\(.sender.cpu)>\(.receiver.cpu) \(.sender.samples) \(.receiver.min)
           \(.receiver.avg) \(.receiver.max)"' "$2" | tr '\n' ' '
    echo
  fi
}

# "cpus samples min p50 p99 mean max" in us from rtgate's result, for the case of VIA.
rg_row() {  # FILE VIA
  jq -r --arg via "$2" '.suites[0].cases[] | select(.labels.via == $via)
         | (.metrics[] | select(.name == "wakeup_latency").summary) as $s
         | "\(.labels.sender_cpu)>\(.labels.cpu) \($s.count) \($s.min / 1000) \($s.p50 / 1000)
            \($s.p99 / 1000) \($s.mean / 1000) \($s.max / 1000)"' "$1" | tr '\n' ' '
  echo
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
flag() { awk -v r="$1" 'BEGIN { print (r >= 0.8 && r <= 1.25) ? "" : "DIFF" }'; }

rg_print() {  # LABEL VIA NAME FILE [TOOL_MIN TOOL_AVG TOOL_MAX]
  local r_cpus r_n r_min r_50 r_99 r_mean r_max ratios=""
  read -r r_cpus r_n r_min r_50 r_99 r_mean r_max <<<"$(rg_row "$4" "$2")"
  if [ $# -gt 4 ]; then
    local a b c
    a=$(ratio "$r_min" "$5") b=$(ratio "$r_mean" "$6") c=$(ratio "$r_max" "$7")
    ratios=$(printf 'min %s %-4s mean %s %-4s max %s %s' "$a" "$(flag "$a")" "$b" "$(flag "$b")" \
      "$c" "$(flag "$c")")
  fi
  printf '%-5s %-7s %-12s %-5s %8s %7.1f %7.1f %7.1f %7.1f %8.1f   %s\n' "$1" "$2" "$3" \
    "$r_cpus" "$r_n" "$r_min" "$r_50" "$r_mean" "$r_99" "$r_max" "$ratios"
}

compare() {  # LABEL VIA TOOL TOOLFILE RGFILE CPUS RXFILE
  local t_cpus t_n t_min t_avg t_max
  read -r t_cpus t_n t_min t_avg t_max <<<"$(tool_row "$3" "$4" "$6")"
  printf '%-5s %-7s %-12s %-5s %8s %7s %7s %7s %7s %8s\n' "$1" "$2" "$3" "$t_cpus" "$t_n" "$t_min" \
    - "$t_avg" - "$t_max"
  rg_print "$1" "$2" rtgate "$5" "$t_min" "$t_avg" "$t_max"
  rg_print "$1" "$2" "rtgate rx>tx" "$7" "$t_min" "$t_avg" "$t_max"
}

measure() {  # LABEL CPUS
  local label=$1 cpus=$2 d="$work/$1"
  mkdir -p "$d"
  # Interleaved: each tool right before the rtgate run it is compared with.
  tool sigwaittest "$d/sigwait.json" "$cpus"
  rtgate_run signal "$d/rg-signal.json" "$cpus"
  tool signaltest "$d/signal.json" "$cpus"
  tool pmqtest "$d/pmq.json" "$cpus"
  rtgate_run pmq "$d/rg-pmq.json" "$cpus"
  tool ptsematest "$d/ptsema.json" "$cpus"
  rtgate_run futex "$d/rg-futex.json" "$cpus"
  rtgate_run sem "$d/rg-sem.json" "$cpus"
  tool svsematest "$d/svsema.json" "$cpus"
  rtgate_run svsem "$d/rg-svsem.json" "$cpus"
  rtgate_run signal,pmq,futex,sem,svsem "$d/rg-rx.json" "$cpus" 0

  printf '\n%s (%s s each, -p%s -i%s; tool rows: min, avg, max; rtgate rows: min, p50, mean, p99, max)\n' \
    "$label" "$DURATION" "$PRIO" "$INTERVAL_US"
  printf '%-5s %-7s %-12s %-5s %8s %7s %7s %7s %7s %8s   rtgate/tool\n' cpus via run 's>r' samples \
    min_us p50_us avg_us p99_us max_us
  local rx="$d/rg-rx.json"
  compare "$label" signal sigwaittest "$d/sigwait.json" "$d/rg-signal.json" "$cpus" "$rx"
  compare "$label" signal signaltest "$d/signal.json" "$d/rg-signal.json" "$cpus" "$rx"
  compare "$label" pmq pmqtest "$d/pmq.json" "$d/rg-pmq.json" "$cpus" "$rx"
  compare "$label" futex ptsematest "$d/ptsema.json" "$d/rg-futex.json" "$cpus" "$rx"
  compare "$label" sem ptsematest "$d/ptsema.json" "$d/rg-sem.json" "$cpus" "$rx"
  compare "$label" svsem svsematest "$d/svsema.json" "$d/rg-svsem.json" "$cpus" "$rx"
}

if [ "$WHERE" != two ]; then measure one "$LAST"; fi
if [ "$WHERE" != one ] && [ "$LAST" -ge 1 ]; then measure two 0,1; fi
