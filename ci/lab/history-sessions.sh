#!/usr/bin/env bash
# A history of this machine with a change in it: record N sessions, each its own process, in time
# order, and from session K on run an external interferer during each session (started just before
# the rtgate run, killed and waited for right after it). The interferer runs outside rtgate, not
# through --load, so every session has the same selection, parameters and options and only the
# machine changes: the test data for a history that shifts at session K.
#
#   ci/lab/history-sessions.sh [--sessions N] [--from K] [--out DIR] [--rtgate PATH]
#                              [--interferer CMD] [--] [RUN ARGS...]
#
#   --sessions N      sessions to record (default 16, at most 99), as OUT/s01.json .. OUT/sNN.json
#   --from K          first session with the interferer (default 9; K > N: none has it)
#   --out DIR         where the results go (default history-sessions); a result already there is
#                     kept, so an interrupted recording resumes where it stopped
#   --rtgate PATH     the rtgate binary (default: rtgate on PATH, else build/rtgate)
#   --interferer CMD  shell command run beside sessions K..N (default: a SCHED_FIFO 98 stress-ng
#                     CPU hog on CPU 1 at 10% duty, about 50 ms busy every 500 ms:
#                     stress-ng --cpu 1 --cpu-load 10 --sched fifo --sched-prio 98 --taskset 1
#                     --timeout 0)
#   RUN ARGS          what each session runs (default: cyclic lock.latency
#                     -p locks=pi_mutex,futex_mutex --runs 5 --duration 2)
# Writes OUT/sNN.json (and sNN.json.log, the run's output; sNN.interferer.log) and OUT/sessions.tsv
# (session, interferer on or off, rtgate's exit code, start time). Prints a line per session.
# Exit code: 0 when every session left a result (whatever rtgate's exit code, which is in
# sessions.tsv), 1 when one did not, 2 on bad usage, a missing rtgate or an interferer that does
# not start or dies during a session; 130 on SIGINT, 143 on SIGTERM. The interferer is killed on
# every exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
sessions=16 from=9 out=history-sessions rtgate=""
interferer="stress-ng --cpu 1 --cpu-load 10 --sched fifo --sched-prio 98 --taskset 1 --timeout 0"
usage() { sed -n '8,9s/^# //p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --sessions) sessions=${2:?}; shift 2 ;;
    --from) from=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --rtgate) rtgate=${2:?}; shift 2 ;;
    --interferer) interferer=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[[ $sessions =~ ^[0-9]+$ ]] && [ "$sessions" -ge 1 ] && [ "$sessions" -le 99 ] ||
  { echo "history-sessions.sh: --sessions must be 1..99, not '$sessions'" >&2; exit 2; }
[[ $from =~ ^[0-9]+$ ]] && [ "$from" -ge 1 ] ||
  { echo "history-sessions.sh: --from must be 1 or more, not '$from'" >&2; exit 2; }
[ -n "$rtgate" ] || rtgate=$(command -v rtgate || echo "$repo/build/rtgate")
[ -x "$rtgate" ] || { echo "history-sessions.sh: no rtgate binary at $rtgate" >&2; exit 2; }
run_args=("$@")
[ ${#run_args[@]} -gt 0 ] ||
  run_args=(cyclic lock.latency -p locks=pi_mutex,futex_mutex --runs 5 --duration 2)

ipid=""  # the interferer's pid, which is also its process group (setsid): kill the whole group
stop_interferer() {
  [ -n "$ipid" ] || return 0
  kill -TERM -- "-$ipid" 2>/dev/null || kill -TERM "$ipid" 2>/dev/null || true
  for _ in $(seq 50); do  # 5 s for a clean exit, then SIGKILL
    kill -0 -- "-$ipid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$ipid" 2>/dev/null || kill -KILL "$ipid" 2>/dev/null || true
  wait "$ipid" 2>/dev/null || true
  ipid=""
}
trap stop_interferer EXIT
trap 'stop_interferer; exit 130' INT
trap 'stop_interferer; exit 143' TERM

start_interferer() {  # LOG
  # setsid: its own process group, so that its children (stress-ng's workers) die with it.
  setsid bash -c "exec $interferer" </dev/null >"$1" 2>&1 &
  ipid=$!
  sleep 1  # let it start and settle before the measurement
  kill -0 "$ipid" 2>/dev/null || {
    wait "$ipid" 2>/dev/null || true; ipid=""
    echo "history-sessions.sh: the interferer did not start (see $1): $interferer" >&2; exit 2
  }
}

mkdir -p "$out"
[ -s "$out/sessions.tsv" ] || printf 'session\tinterferer\trtgate_exit\tstart\n' >"$out/sessions.tsv"
for ((i = 1; i <= sessions; i++)); do
  name=$(printf 's%02d' "$i")
  file="$out/$name.json"
  if [ -s "$file" ]; then echo "$name: kept $file"; continue; fi
  on=off
  if [ "$i" -ge "$from" ]; then on=on; start_interferer "$out/$name.interferer.log"; fi
  start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  set +e
  "$rtgate" run "${run_args[@]}" -o "$file" >"$file.log" 2>&1
  rc=$?
  set -e
  if [ "$on" = on ]; then
    kill -0 "$ipid" 2>/dev/null || {
      echo "history-sessions.sh: the interferer died during $name (see" \
        "$out/$name.interferer.log); $file removed" >&2
      rm -f "$file"; exit 2
    }
    stop_interferer
  fi
  [ -s "$file" ] || { echo "history-sessions.sh: no result in $file (see $file.log)" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\n' "$name" "$on" "$rc" "$start" >>"$out/sessions.tsv"
  echo "$name: interferer $on, rtgate exit $rc"
done
