#!/usr/bin/env bash
# Bisecting Debian's RT kernels on the deterministic board (label lab): ci/lab/bisect-kernels.sh
# over 6.1.0-50, -53, -54 and -55, with a change injected from -54 on through --setup (the
# function tracer on, which lengthens every kernel path: cyclic's p50 x13 on this board), must
# end with "first bad: 6.1.0-54-rt"; then ci/lab/bisect-step.sh, as `git bisect run` calls it in
# a scratch repository whose "build" leaves the -53 package, must say good (0) for the plain
# kernel and bad (1) with the injection. The floors are a policy's for a gross change (x2 a
# quantile, x3 the max; the injection is x13), so that the plain kernels' gates are green: a
# skip (exit 3) of -53 would leave the bisect a range.
# About 3 min and 3 kernel packages (about 70 MB each) on a fresh machine. Needs root, qemu and
# the Debian archive; skips (77) without them.
#   tests/lab/bisect_test.sh RTGATE SOURCE_DIR
set -euo pipefail
RTGATE=$(realpath "$1")
SRC=$(realpath "$2")
. "$SRC/tests/lab/lab_common.sh"
lab_prelude "SCHED_FIFO, tracefs"
export RTGATE

for k in 6.1.0-50-rt 6.1.0-53-rt 6.1.0-54-rt 6.1.0-55-rt; do
  "$SRC/ci/lab/board.sh" --kernel "$k" --fetch-only > /dev/null 2> "$T/fetch.log" || {
    cat "$T/fetch.log"
    echo "SKIP: $k could not be fetched"
    exit 77
  }
done
printf 'latency_noise_floor_pct: 100\nmax_noise_floor_pct: 200\n' > "$T/gross.yaml"
inject='case $(uname -r) in 6.1.0-5[4-9]-*) echo function > /sys/kernel/tracing/current_tracer;; esac'
run=(cyclic --runs 5 --duration 5)

code=0
"$SRC/ci/lab/bisect-kernels.sh" --good 6.1.0-50-rt --bad 6.1.0-55-rt \
  --kernels 6.1.0-50-rt,6.1.0-53-rt,6.1.0-54-rt,6.1.0-55-rt --setup "$inject" \
  --policy "$T/gross.yaml" --out "$T/bisect" -- "${run[@]}" > "$T/bisect.log" 2>&1 || code=$?
grep '^bisect:\|^first bad' "$T/bisect.log"
[ "$code" = 0 ] || { cat "$T/bisect.log"; fail "bisect-kernels.sh exited $code"; }
[ "$(tail -1 "$T/bisect.log")" = "first bad: 6.1.0-54-rt" ] || fail "not the injected version"
grep -q '^bisect: 6.1.0-53-rt: good' "$T/bisect.log" || fail "6.1.0-53-rt was not judged good"

# git bisect run's step: a scratch repository whose build leaves Debian's -53 package.
deb=$(ls "${RTGATE_LAB_DIR:-$HOME/.cache/rtgate-lab}"/debs/linux-image-6.1.0-53-rt-amd64-unsigned_*.deb)
git init -q "$T/tree" && git -C "$T/tree" commit -q --allow-empty -m step
good=$(ls "$T"/bisect/k00-*.json | head -1)
step() {
  (cd "$T/tree" && "$SRC/ci/lab/bisect-step.sh" --good-result "$good" --build true --deb "$deb" \
    --policy "$T/gross.yaml" --out "$T/steps-$1" "${@:2}" -- "${run[@]}")
}
code=0; step plain > "$T/step-plain.log" 2>&1 || code=$?
cat "$T/step-plain.log"
[ "$code" = 0 ] || fail "the plain kernel's step exited $code, not 0 (good)"
code=0; step injected --setup "echo function > /sys/kernel/tracing/current_tracer" \
  > "$T/step-injected.log" 2>&1 || code=$?
cat "$T/step-injected.log"
[ "$code" = 1 ] || fail "the injected kernel's step exited $code, not 1 (bad)"
echo "PASS"
