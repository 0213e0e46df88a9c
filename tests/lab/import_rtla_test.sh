#!/usr/bin/env bash
# rtgate import of `rtla timerlat hist` on a kernel that has the timerlat tracer (label lab): one
# boot of Debian's 6.1 RT kernel on the virtual board (ci/lab/board.sh, TCG here) runs rtla and
# this build's rtgate import (--host-env, --cmdline) and rtgate run timerlat of the same
# period and CPUs, and the host checks:
#   1. per CPU, irq_latency's and thread_latency's count, min and max are rtla's own (its count:,
#      min: and max: lines; max in us), rtla's overflow counted in;
#   2. the environment is the guest's (PREEMPT_RT, its kernel release) and the suite says it
#      was imported from rtla with the given command line;
#   3. the gate of the import against rtgate's timerlat lists who measured and nothing of the
#      period, the CPUs or the machine.
# About 1 min on 2 cores. Needs root, qemu and the Debian archive (apt-get download of the
# kernel package, cached under $RTGATE_LAB_DIR); skips (77) without them.
#   tests/lab/import_rtla_test.sh BUILD_DIR|RTGATE SOURCE_DIR [KERNEL]
set -euo pipefail
RTGATE=$(realpath "$1")
[ -d "$RTGATE" ] && RTGATE="$RTGATE/rtgate"
SRC=$(realpath "$2")
KERNEL=${3:-${RTGATE_LAB_KERNEL:-6.1.0-53-rt}}
. "$SRC/tests/lab/lab_common.sh"
lab_prelude "tracefs"
command -v jq > /dev/null || { echo "SKIP: no jq"; exit 77; }
command -v rtla > /dev/null || { echo "SKIP: no rtla (ci/setup.sh installs it)"; exit 77; }

CMD="rtla timerlat hist -d 5 -c 0-1 -p 1000 -E 2000"
cat > "$T/guest.sh" << EOF
set -x
R=$RTGATE
$CMD > rtla.txt 2> rtla.err
echo \$? > rtla.exit
\$R import --host-env --cmdline "$CMD" rtla.txt -o imported.json > import.log 2>&1
echo \$? > import.exit
\$R run timerlat --duration 5 -p cpus=0-1 -p period_us=1000 --no-progress -o timerlat.json \
  > timerlat.log 2>&1
\$R gate imported.json timerlat.json > gate.log 2>&1
echo \$? > gate.exit
uname -r > release
EOF
lab_boot "$SRC" "$KERNEL"
cd "$T"
[ "$(cat rtla.exit)" = 0 ] || { cat rtla.txt rtla.err; fail "rtla exited $(cat rtla.exit)"; }
[ "$(cat import.exit)" = 0 ] || { cat import.log; fail "rtgate import exited $(cat import.exit)"; }

# rtla's summary lines, one value per column (IRQ-000 Thr-000 IRQ-001 Thr-001).
row() { awk -v k="$1" '$1 == k { $1 = ""; print }' rtla.txt; }
read -r -a count <<< "$(row count:)"
read -r -a min <<< "$(row min:)"
read -r -a max <<< "$(row max:)"
read -r -a cols <<< "$(awk '$1 == "Index" { $1 = ""; print }' rtla.txt)"
[ "${#cols[@]}" = 4 ] || fail "rtla printed columns ${cols[*]}"
for i in 0 1 2 3; do
  cpu=$((10#${cols[$i]#*-}))
  case "${cols[$i]}" in IRQ-*) m=irq_latency ;; *) m=thread_latency ;; esac
  got=$(jq -c --arg c "cpu$cpu" --arg m "$m" '.suites[0].cases[] | select(.name == $c)
        | .metrics[] | select(.name == $m) | .summary | [.count, .min, .max]' imported.json)
  want="[${count[$i]},$((min[$i] * 1000)),$((max[$i] * 1000))]"
  [ "$got" = "$want" ] || fail "cpu$cpu $m: count, min, max $got, rtla's $want"
  echo "ok: cpu$cpu $m count, min, max $got as rtla's"
done

[ "$(jq -r .environment.realtime imported.json)" = true ] || fail "not PREEMPT_RT"
[ "$(jq -r .environment.kernel_release imported.json)" = "$(cat release)" ] ||
  fail "kernel release $(jq -r .environment.kernel_release imported.json)"
[ "$(jq -r '.suites[0].imported.tool' imported.json)" = "rtla timerlat hist" ] || fail "tool"
[ "$(jq -r '.suites[0].imported.commands[0]' imported.json)" = "$CMD" ] || fail "command line"
[ "$(jq -r '.suites[0].params.period_us' imported.json)" = 1000 ] || fail "period"
echo "ok: the guest's environment, the tool and its command line"

[ "$(cat gate.exit)" = 3 ] || { cat gate.log; fail "gate exited $(cat gate.exit), not 3"; }
grep -q "^incomparable: timerlat: measured by: 'rtla timerlat hist (imported)' -> 'rtgate', block_ms: (absent) -> 1000, buffer_kb: (absent) -> 4096$" gate.log ||
  { cat gate.log; fail "the gate does not list who measured (or lists more)"; }
! grep -q "^environment differs\|^run options" gate.log || { cat gate.log; fail "more differs"; }
echo "ok: gate against rtgate's timerlat: who measured, and timerlat's own block_ms and buffer_kb"
echo "PASS"
