#!/usr/bin/env bash
# rtgate env on a tuned RT board (label lab): one boot of Debian's 6.1 RT kernel on the virtual
# board (TCG, 2 CPUs) with isolcpus=1 nohz_full=1 rcu_nocbs=1 threadirqs, and the host checks:
#   1. the tuning shows: measured on CPU 1, cpu isolation is ok; on CPU 0 (the housekeeping CPU)
#      it is bad, with the fix; the preempt model is ok on this kernel either way;
#   2. --hwlat 3 on CPU 1 runs the kernel's hwlat tracer: the item "hardware latency" is ok or
#      bad (a gap under TCG is the host's), says CPU 1, and the exit code is 0;
#   3. the global hwlat knobs (hwlat_detector/*, tracing_thresh, current_tracer) and tracefs
#      instances are as they were, after that run and after a SIGINT in the middle of a 60 s one
#      (exit 130, the item says it was stopped);
#   4. the hwlat unit tests (tests/rtgate_unit_tests beside rtgate, when built) pass in the guest,
#      none skipped.
# About 1 min on 2 cores. Needs root, qemu and the Debian archive (apt-get download of the
# kernel package, cached under $RTGATE_LAB_DIR); skips (77) without them.
#   tests/lab/readiness_test.sh BUILD_DIR|RTGATE SOURCE_DIR [KERNEL]
set -euo pipefail
RTGATE=$(realpath "$1")
[ -d "$RTGATE" ] && RTGATE="$RTGATE/rtgate"
UNIT="$(dirname "$RTGATE")/tests/rtgate_unit_tests"
SRC=$(realpath "$2")
KERNEL=${3:-${RTGATE_LAB_KERNEL:-6.1.0-53-rt}}
. "$SRC/tests/lab/lab_common.sh"
lab_prelude "tracefs"

cat > "$T/guest.sh" << EOF
R=$RTGATE
state() {
  for f in hwlat_detector/window hwlat_detector/width hwlat_detector/mode tracing_thresh \
    current_tracer; do
    echo "\$f: \$(cat /sys/kernel/tracing/\$f)"
  done
  ls /sys/kernel/tracing/instances
}
cat /proc/cmdline > cmdline
\$R env --cpus 1 > env1.txt 2>&1
\$R env --cpus 1 --json > env1.json 2> env1.err
\$R env --cpus 0 --json > env0.json 2> env0.err
state > state.0
\$R env --cpus 1 --hwlat 3 --json > hwlat.json 2> hwlat.err
echo \$? > hwlat.exit
state > state.1
# SIGINT in the middle of a 60 s run, sent from FIFO 99 so that it comes on time.
\$R env --cpus 1 --hwlat 60 --json > sigint.json 2> sigint.err &
P=\$!
chrt -f 99 sh -c 'sleep 5; kill -INT \$0' \$P
wait \$P
echo \$? > sigint.exit
state > state.2
if [ -x "$UNIT" ]; then
  "$UNIT" --gtest_filter='HwlatCheck.*' > unit.log 2>&1; echo \$? > unit.exit
fi
state > state.3
EOF

lab_boot "$SRC" "$KERNEL" --accel tcg --smp 2 --append "isolcpus=1 nohz_full=1 rcu_nocbs=1 threadirqs"
item() { jq -r --arg i "$2" '.verdicts.items[] | select(.item == $i) | .'"$3" "$T/$1"; }

echo "== 1. the tuning shows"
cat "$T/cmdline" "$T/env1.txt"
grep -q "isolcpus=1 nohz_full=1 rcu_nocbs=1 threadirqs" "$T/cmdline" || fail "cmdline"
[ "$(item env1.json "cpu isolation" level)" = ok ] || fail "CPU 1 is not judged isolated"
[ "$(item env0.json "cpu isolation" level)" = bad ] || fail "CPU 0 is judged isolated"
item env0.json "cpu isolation" fix | grep -q "isolcpus=" || fail "no isolcpus fix for CPU 0"
[ "$(item env1.json "preempt model" level)" = ok ] || fail "the RT kernel's preempt model"

echo "== 2. --hwlat 3"
cat "$T/hwlat.err"
jq -r '.verdicts.items[] | select(.item == "hardware latency")' "$T/hwlat.json"
[ "$(cat "$T/hwlat.exit")" = 0 ] || fail "env --hwlat exited $(cat "$T/hwlat.exit")"
case "$(item hwlat.json "hardware latency" level)" in ok | bad) ;; *) fail "hwlat level" ;; esac
item hwlat.json "hardware latency" evidence | grep -q "^hwlat 3.* s on CPUs 1 (" ||
  fail "hwlat evidence"
[ -z "$(item env1.json "hardware latency" level)" ] || fail "hwlat ran without --hwlat"

echo "== 3. knobs and instances as they were"
cat "$T/state.0"
for i in 1 2 3; do diff "$T/state.0" "$T/state.$i" || fail "state after step $i differs"; done
[ "$(cat "$T/sigint.exit")" = 130 ] || { cat "$T/sigint.err"; fail "SIGINT exit $(cat "$T/sigint.exit")"; }
item sigint.json "hardware latency" evidence | grep -q "^hwlat [0-9.]* s on CPUs 1 " ||
  fail "the stopped run's item"
! item sigint.json "hardware latency" evidence | grep -q "^hwlat 60" || fail "SIGINT did not stop it"

echo "== 4. hwlat unit tests in the guest"
if [ -f "$T/unit.exit" ]; then
  tail -n 4 "$T/unit.log"
  [ "$(cat "$T/unit.exit")" = 0 ] || { cat "$T/unit.log"; fail "HwlatCheck unit tests"; }
  ! grep -q "SKIPPED.*EveryRunPutsBack" "$T/unit.log" || fail "the hwlat unit test skipped"
else
  echo "(no $UNIT: not run)"
fi
echo PASS
