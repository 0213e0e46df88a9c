#!/usr/bin/env bash
# The deterministic board in CI (label lab): Debian's 6.1 RT kernel under ci/lab/board.sh
# --accel icount (time counted in instructions, one vCPU), through ci/lab/stall-gate.sh --pairs 1:
# a baseline boot, an A/A boot, and a boot with ci/lab/stall's module holding interrupts off for
# 1 ms every 100 ms, each running cyclic; both gated against the baseline, one boot a side, no
# history, as a new user's first gate. The host checks:
#   1. the results say what their time is: board class "deterministic", rtgate_lab.clock=icount1;
#   2. the A/A gate is never red (exit 0 in 361 of 380 such pairs measured, else 3: a
#      p99 a histogram bucket apart; gate/README.md);
#   3. the injected change is red (exit 1), decided by the gross worst-case rule.
# About 2 min on 2 cores (3 boots, the module's build). Needs root, qemu, the Debian archive
# (the kernel and its headers); skips (77) without them.
#   tests/lab/deterministic_test.sh RTGATE SOURCE_DIR [KERNEL]
set -euo pipefail
RTGATE=$(realpath "$1")
SRC=$(realpath "$2")
KERNEL=${3:-${RTGATE_LAB_KERNEL:-6.1.0-53-rt}}
. "$SRC/tests/lab/lab_common.sh"
lab_prelude "SCHED_FIFO, a kernel module"

release=$("$SRC/ci/lab/board.sh" --kernel "$KERNEL" --fetch-only 2> "$T/fetch.log") || {
  cat "$T/fetch.log"
  grep -q "not in Debian's apt lists\|apt-get download .* failed" "$T/fetch.log" &&
    { echo "SKIP: the kernel package could not be fetched"; exit 77; }
  fail "board.sh --fetch-only failed"
}
"$SRC/ci/lab/stall/build.sh" "$release" "$T/module" > /dev/null 2> "$T/module.log" || {
  cat "$T/module.log"
  [ -d "/usr/src/linux-headers-$release" ] || { echo "SKIP: no linux-headers-$release"; exit 77; }
  fail "the stall module did not build"
}

code=0
RTGATE=$RTGATE "$SRC/ci/lab/stall-gate.sh" --kernel "$KERNEL" --pairs 1 --out "$T/sg" \
  -- cyclic --runs 5 --duration 5 > "$T/sg.log" 2>&1 || code=$?
cat "$T/sg.log"
[ "$code" = 0 ] || { tail -30 "$T"/sg/*.log; fail "stall-gate.sh exited $code"; }

stall=p1-stall-irq-1000us-100ms-cpu0
for f in p1-base p1-aa $stall; do
  grep -q '"board_class": *"deterministic"' "$T/sg/$f.json" || fail "$f.json is not deterministic"
  grep -q 'rtgate_lab.clock=icount1' "$T/sg/$f.json" || fail "$f.json has no icount cmdline"
done
read -r _ aa st < <(tail -1 "$T/sg/summary-${stall#p1-}.tsv")
echo "A/A gate exit $aa, stall gate exit $st"
[ "$aa" = 0 ] || [ "$aa" = 3 ] || { cat "$T/sg/p1-aa.txt"; fail "the A/A gate exited $aa"; }
[ "$aa" = 0 ] || grep 'inconclusive:' "$T/sg/p1-aa.txt"
[ "$st" = 1 ] || { cat "$T/sg/$stall.txt"; fail "the stall gate exited $st, not 1"; }
grep -q 'gross worst case' "$T/sg/$stall.txt" ||
  { cat "$T/sg/$stall.txt"; fail "the stall was not decided by the gross rule"; }
echo "PASS"
