#!/usr/bin/env bash
# Quick start 2: set up, build from scratch, and run the whole test suite through ctest:
# the normal build (unit, integration, locks, e2e, and the unit tests again as nobody), its .deb
# (ci/deb.sh: lintian, install, run, purge), then the lock tests in a ThreadSanitizer build
# (label tsan), then ci/sanitize.sh: the unit and integration tests in an ASan + UBSan build
# (label asan) and a few seconds of each fuzz target; the calibrations (label calibration) run
# beside the sanitizer steps at SCHED_IDLE.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ci/setup.sh
export RTGATE_BUILD_DIR=${RTGATE_BUILD_DIR:-build}
# The project's own CI builds with warnings as errors (RTGATE_WERROR), every configuration, and
# with line tables for debug info (ci/build.sh): CI has an hour on 2 cores.
export RTGATE_WERROR=ON RTGATE_DEBUG_INFO=-g1
# Each step's end, in minutes since the start: where the CI's hour goes.
step() { echo "ci/test.sh: $1 done at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }
step setup
rm -rf "$RTGATE_BUILD_DIR"
ci/build.sh
step build
# The RT tests one at a time, on a quiet machine: they measure it.
(cd "$RTGATE_BUILD_DIR" && ctest --output-on-failure --timeout 600 -j 1 --no-tests=error -LE calibration)
step ctest

# The .deb of this build: lintian clean of errors, installed with apt-get, run, purged. (It moves
# the build directory aside while the package is installed, so nothing else may use it then.)
ci/deb.sh "$RTGATE_BUILD_DIR"
step deb

# The calibrations (seeded simulations: CPU only, no clock, no RT) on every core at SCHED_IDLE,
# beside the sanitizer builds and tests below: they take only the CPU time those leave idle, and
# any SCHED_OTHER or RT thread of a test preempts them.
CALIBRATION_LOG="$(realpath "$RTGATE_BUILD_DIR")-calibration.log"
(cd "$RTGATE_BUILD_DIR" &&
  exec chrt --idle 0 nice -n 19 ctest --output-on-failure --timeout 1800 -j "$(nproc)" \
    --no-tests=error -L calibration) >"$CALIBRATION_LOG" 2>&1 &
CALIBRATION_PID=$!
# Whatever ends this script first, the calibrations do not outlive it.
trap 'kill "$CALIBRATION_PID" 2>/dev/null || true' EXIT

# ThreadSanitizer: the lock correctness tests only (the PI-timing tests measure the kernel, not
# data races, and TSAN's slowdown would only blur them).
TSAN_DIR="$RTGATE_BUILD_DIR-tsan"
rm -rf "$TSAN_DIR"
cmake -S . -B "$TSAN_DIR" -DRTGATE_TSAN=ON -DRTGATE_WERROR=ON -DRTGATE_BUILD_BENCH=OFF \
  -DRTGATE_PCH=ON >/dev/null
cmake --build "$TSAN_DIR" --target rtgate_lock_tests -j "$(nproc)"
cd "$TSAN_DIR"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --output-on-failure --timeout 900 -j 1 --no-tests=error -L tsan -E PiInversion
step tsan

# ASan + UBSan suite and fuzz smoke test (ci/sanitize.sh says what it leaves out and why).
cd "$ROOT"
ci/sanitize.sh
step sanitize

calibration_rc=0
wait "$CALIBRATION_PID" || calibration_rc=$?
trap - EXIT
cat "$CALIBRATION_LOG"
[ "$calibration_rc" -eq 0 ] || { echo "ci/test.sh: calibrations failed" >&2; exit 1; }
step calibration
