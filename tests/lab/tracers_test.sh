#!/usr/bin/env bash
# The timerlat and osnoise suites on a kernel that has the tracers (label lab): one boot of
# Debian's 6.1 RT kernel on the virtual board (ci/lab/board.sh, TCG here) runs this build's
# rtgate, and the host checks what it wrote:
#   1. timerlat passes: a case per CPU, irq_latency and thread_latency with samples (about
#      700 a second per CPU under TCG at 1 ms), the thread's p50 at or above the IRQ's (it
#      contains it), no event lost;
#   2. osnoise passes: a case per CPU, a period per second or so, max single noise no larger
#      than the largest period noise, cpu_available in (0, 100], interference counted;
#   3. the global osnoise/* knobs are as they were before each run, and no tracefs instance is
#      left, after a normal end, after SIGINT, and after an error;
#   4. osnoise while timerlat runs in another instance: an error that says why (the kernel runs
#      one of the two at a time), not a pass;
#   5. KernelTracer's unit tests (tests/rtgate_unit_tests beside rtgate, when built) where the
#      tracer exists: knobs restored after a normal end and after an exception.
# About 2 min on 2 cores (boot 13 s). Needs root, qemu and the Debian archive (apt-get download
# of the kernel package, cached under $RTGATE_LAB_DIR); skips (77) without them.
#   tests/lab/tracers_test.sh BUILD_DIR|RTGATE SOURCE_DIR [KERNEL]
set -euo pipefail
RTGATE=$(realpath "$1")
[ -d "$RTGATE" ] && RTGATE="$RTGATE/rtgate"
UNIT="$(dirname "$RTGATE")/tests/rtgate_unit_tests"
SRC=$(realpath "$2")
KERNEL=${3:-${RTGATE_LAB_KERNEL:-6.1.0-53-rt}}
. "$SRC/tests/lab/lab_common.sh"
lab_prelude "tracefs"

cat > "$T/guest.sh" << EOF
set -x
R=$RTGATE
knobs() { for f in /sys/kernel/tracing/osnoise/*; do echo "\$f: \$(cat \$f)"; done; }
state() {
  { set +x; } 2> /dev/null
  knobs; ls /sys/kernel/tracing/instances; cat /sys/kernel/tracing/current_tracer
  set -x
}
state > state.0
\$R run timerlat --duration 5 --no-progress -o timerlat.json > timerlat.log 2>&1
echo \$? > timerlat.exit
state > state.1
\$R run osnoise --duration 5 --no-progress -o osnoise.json > osnoise.log 2>&1
echo \$? > osnoise.exit
state > state.2
# SIGINT in the middle of a run. What interrupts it runs at FIFO 99, above the tracer's
# threads: the signal comes on time and a stuck rtgate is recorded even in a starved guest.
\$R run timerlat --duration 60 --no-progress -o sigint.json > sigint.log 2>&1 &
P=\$!
echo "SIGINT step: rtgate is \$P" > /dev/console
chrt -f 99 sh -c '
  sleep 12
  kill -INT \$0
  i=0
  while kill -0 \$0 2> /dev/null && [ \$i -lt 60 ]; do sleep 1; i=\$((i + 1)); done
  if kill -0 \$0 2> /dev/null; then  # still there a minute later: evidence, then SIGKILL
    for t in /proc/\$0/task/*; do echo "\$t \$(cat \$t/comm) \$(cat \$t/wchan)"; cat \$t/stack; done \
      > sigint.stuck 2>&1
    ps -eo pid,comm,cls,rtprio,stat,pcpu,time >> sigint.stuck
    cat sigint.stuck > /dev/console
    kill -KILL \$0
  fi' \$P
wait \$P
echo \$? > sigint.exit
state > state.3
# osnoise while timerlat runs in another instance
mkdir /sys/kernel/tracing/instances/other
echo timerlat > /sys/kernel/tracing/instances/other/current_tracer
\$R run osnoise --duration 2 --no-progress -o busy.json > busy.log 2>&1
echo \$? > busy.exit
echo nop > /sys/kernel/tracing/instances/other/current_tracer
rmdir /sys/kernel/tracing/instances/other
state > state.4
# KernelTracer's own tests, where the tracer exists
if [ -x "$UNIT" ]; then
  "$UNIT" --gtest_filter='KernelTracer.*' > unit.log 2>&1; echo \$? > unit.exit
fi
state > state.5
EOF

lab_boot "$SRC" "$KERNEL"
cpus=$(jq -r '.environment.online_cpus | if type == "array" then length else . end' \
  "$T/timerlat.json")

echo "== 1. timerlat"
cat "$T/timerlat.log"
[ "$(cat "$T/timerlat.exit")" = 0 ] || fail "timerlat exited $(cat "$T/timerlat.exit")"
[ "$(jq -r '.suites[0].status' "$T/timerlat.json")" = passed ] || fail "timerlat did not pass"
n=$(jq '.suites[0].cases | length' "$T/timerlat.json")
[ "$n" -ge 1 ] || fail "timerlat has no case"
jq -e '.suites[0].cases | all(.labels.thread_class == "rt" and (.labels.cpu | length > 0))' \
  "$T/timerlat.json" > /dev/null || fail "timerlat case labels"
jq -e '.suites[0].cases | all(
    ([.metrics[] | select(.name == "irq_latency")][0].summary) as $i |
    ([.metrics[] | select(.name == "thread_latency")][0].summary) as $t |
    $i.count > 500 and $t.count > 500 and $t.p50 >= $i.p50 and $t.min >= $i.min)' \
  "$T/timerlat.json" > /dev/null || fail "timerlat: too few samples, or thread below IRQ"
jq -e '[.suites[0].cases[].metrics[] | select(.name == "lost_events") | .samples[0]] | add == 0' \
  "$T/timerlat.json" > /dev/null || fail "timerlat lost events"

echo "== 2. osnoise"
cat "$T/osnoise.log"
[ "$(cat "$T/osnoise.exit")" = 0 ] || fail "osnoise exited $(cat "$T/osnoise.exit")"
[ "$(jq -r '.suites[0].status' "$T/osnoise.json")" = passed ] || fail "osnoise did not pass"
jq -e '.suites[0].cases | length >= 1 and all(
    ([.metrics[] | select(.name == "max_single_noise")][0].summary) as $s |
    ([.metrics[] | select(.name == "period_noise")][0].summary) as $p |
    ([.metrics[] | select(.name == "cpu_available")][0].samples[0]) as $a |
    ([.metrics[] | select(.name | startswith("interference_")) | .samples[0]] | add) as $i |
    $s.count >= 3 and $s.max <= $p.max and $a > 0 and $a <= 100 and $i > 0)' \
  "$T/osnoise.json" > /dev/null || fail "osnoise figures out of bounds"

echo "== 3. knobs restored, no instance left (end, end, SIGINT)"
for i in 1 2 3; do
  diff "$T/state.0" "$T/state.$i" || fail "state after step $i differs from before"
done
[ ! -f "$T/sigint.stuck" ] || { cat "$T/sigint.stuck"; fail "rtgate did not end within 60 s of SIGINT"; }
[ "$(cat "$T/sigint.exit")" = 130 ] || { cat "$T/sigint.log"; fail "SIGINT exit $(cat "$T/sigint.exit")"; }
jq -e '.complete == false' "$T/sigint.json" > /dev/null || fail "an interrupted result is complete"

echo "== 4. osnoise beside timerlat"
cat "$T/busy.log"
[ "$(jq -r '.suites[0].status' "$T/busy.json")" = error ] || fail "osnoise beside timerlat: not an error"
jq -r '.suites[0].reason' "$T/busy.json" | grep -q "cannot start while timerlat runs" ||
  fail "the reason does not say timerlat runs"
diff "$T/state.0" "$T/state.4" || fail "state after the error differs from before"
echo "== 5. KernelTracer unit tests in the guest"
if [ -f "$T/unit.exit" ]; then
  tail -n 4 "$T/unit.log"
  [ "$(cat "$T/unit.exit")" = 0 ] || { cat "$T/unit.log"; fail "KernelTracer unit tests"; }
  ! grep -q "SKIPPED.*TimerlatRuns" "$T/unit.log" || fail "the timerlat unit test skipped in the guest"
  diff "$T/state.0" "$T/state.5" || fail "state after the unit tests differs from before"
else
  echo "(no $UNIT: not run)"
fi
echo "PASS ($cpus CPUs)"
