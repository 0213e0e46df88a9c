#!/usr/bin/env bash
# rtgate on a PREEMPT_RT kernel (label lab): one boot of Debian's 6.1 RT kernel on the virtual
# board (ci/lab/board.sh, TCG here) runs this build's rtgate, and the host checks what it wrote:
#   1. `rtgate env` reports PREEMPT_RT;
#   2. pi.inversion engages and passes: high met a held lock in every round, PI locks bounded,
#      the non-PI controls show the inversion;
#   3. lock.latency and pi.stress run and pass;
#   4. cyclic --trace passes and leaves no tracefs instance behind;
#   5. the RT kernel's threaded IRQs (irq/N-name, FIFO 50) are recorded as kernel threads and
#      never named as contamination;
#   6. ipc.wakeup, sched.migrate, deadline.cyclic and oslat pass (or are skipped with a reason).
# About 90 s on 2 cores (boot 13 s). Needs root, qemu and the Debian archive (apt-get download
# of the kernel package, cached under $RTGATE_LAB_DIR); skips (77) without them.
#   tests/lab/rt_kernel_test.sh RTGATE SOURCE_DIR [KERNEL]
set -euo pipefail
RTGATE=$(realpath "$1")
SRC=$(realpath "$2")
KERNEL=${3:-${RTGATE_LAB_KERNEL:-6.1.0-53-rt}}
. "$SRC/tests/lab/lab_common.sh"
lab_prelude "SCHED_FIFO, tracefs"

cat > "$T/guest.sh" << EOF
set -x
R=$RTGATE
\$R env --json > env.json
\$R run pi.inversion --duration 3 -p rounds=5 --no-progress -o pi.json > pi.log 2>&1
echo \$? > pi.exit
\$R run lock.latency pi.stress --duration 2 -p locks=pi_mutex,futex_mutex --no-progress \
  -o locks.json > locks.log 2>&1
echo \$? > locks.exit
ls /sys/kernel/tracing/instances > instances.before
\$R run cyclic --trace --duration 3 --no-progress -o cyclic.json > cyclic.log 2>&1
echo \$? > cyclic.exit
ls /sys/kernel/tracing/instances > instances.after
ps -eLo comm,cls,rtprio | grep '^irq/' > irq_threads.txt || true
\$R run ipc.wakeup sched.migrate deadline.cyclic oslat --duration 2 --no-progress \
  -o twins.json > twins.log 2>&1
echo \$? > twins.exit
EOF

lab_boot "$SRC" "$KERNEL"

echo "== 1. rtgate env on $KERNEL"
model=$(jq -r '.preempt_model // .environment.preempt_model' "$T/env.json")
realtime=$(jq -r '.realtime // .environment.realtime' "$T/env.json")
echo "preempt_model=$model realtime=$realtime"
[ "$model" = rt ] || fail "rtgate env says preempt model '$model', not rt"
[ "$realtime" = true ] || fail "rtgate env says realtime=$realtime"

echo "== 2. pi.inversion"
cat "$T/pi.log"
[ "$(cat "$T/pi.exit")" = 0 ] || fail "pi.inversion exited $(cat "$T/pi.exit")"
jq -r '.suites[0].cases[] | [.name, .labels.verdict,
        (.metrics[] | select(.name == "high_never_blocked") | .summary.mean // .summary.max)] | @tsv' \
  "$T/pi.json" | tee "$T/pi.tsv"
[ "$(jq -r '.suites[0].status' "$T/pi.json")" = passed ] || fail "pi.inversion did not pass"
! grep -q "not engaged\|NOT shown\|FAIL" "$T/pi.tsv" || fail "a case did not engage or failed"
grep -q "control: inversion shown" "$T/pi.tsv" || fail "no control showed the inversion"
grep -q "pass: bounded" "$T/pi.tsv" || fail "no PI lock was bounded"

echo "== 3. lock.latency and pi.stress"
tail -n 5 "$T/locks.log"
[ "$(cat "$T/locks.exit")" = 0 ] || fail "lock.latency pi.stress exited $(cat "$T/locks.exit")"
jq -r '.suites[] | "\(.name) \(.status)"' "$T/locks.json"
[ "$(jq '[.suites[] | select(.status != "passed")] | length' "$T/locks.json")" = 0 ] ||
  fail "a lock suite did not pass"

echo "== 4. cyclic --trace leaves no instance"
[ "$(cat "$T/cyclic.exit")" = 0 ] || { cat "$T/cyclic.log"; fail "cyclic --trace exited $(cat "$T/cyclic.exit")"; }
diff "$T/instances.before" "$T/instances.after" || fail "a tracefs instance was left behind"

echo "== 5. threaded IRQs are the system's"
cat "$T/irq_threads.txt"
[ -s "$T/irq_threads.txt" ] || fail "no irq/ threads on a PREEMPT_RT kernel?"
for f in pi.json locks.json cyclic.json; do
  jq -r '.suites[] | .hygiene.foreign_rt_threads[]? | select(.comm | startswith("irq/")) |
         "\(.comm) kernel_thread=\(.kernel_thread)"' "$T/$f"
  bad=$(jq '[.suites[] | .hygiene.foreign_rt_threads[]? |
             select((.comm | startswith("irq/")) and (.kernel_thread != true))] | length' "$T/$f")
  [ "$bad" = 0 ] || fail "$f: an irq/ thread not recorded as a kernel thread"
  named=$(jq '[.suites[] | .contaminated_reasons[]? | select(test("irq/"))] | length' "$T/$f")
  [ "$named" = 0 ] || fail "$f: a threaded IRQ named as contamination"
done

echo "== 6. the rt-tests twins: ipc.wakeup, sched.migrate, deadline.cyclic, oslat"
cat "$T/twins.log"
jq -r '.suites[] | "\(.name) \(.status) \(.reason // "")"' "$T/twins.json"
[ "$(jq '.suites | length' "$T/twins.json")" = 4 ] || fail "not every twin suite ran"
# Passed, or skipped with the kernel's reason (SCHED_DEADLINE admission can be refused), or
# inconclusive because of the host: a TCG vCPU the 2-core host did not run can delay a push IPI
# by milliseconds, and sched.migrate sets sporadic violations apart on a guest that cannot see
# its steal (exit 3).
[ "$(jq '[.suites[] | select(.status != "passed" and
                            (.status != "skipped" or (.reason // "") == "") and
                            (.status != "inconclusive" or
                             ((.reason // "") | startswith("host") | not)))] | length' \
     "$T/twins.json")" = 0 ] || fail "a twin suite neither passed nor was skipped with a reason"
case "$(cat "$T/twins.exit")" in
  0) ;;
  3) [ "$(jq '[.suites[] | select(.status == "inconclusive")] | length' "$T/twins.json")" -gt 0 ] ||
       fail "the twin suites exited 3 with no inconclusive suite" ;;
  *) fail "the twin suites exited $(cat "$T/twins.exit")" ;;
esac
echo "PASS"
