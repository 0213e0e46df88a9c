#!/usr/bin/env bash
# Quick start 2: set up, build from scratch, and run the whole test suite through ctest:
# the normal build (unit, integration, locks, e2e, and the unit tests again as nobody), its .deb
# (ci/deb.sh: lintian, install, run, purge), then the
# lock tests in a ThreadSanitizer build (label tsan), then ci/sanitize.sh: the unit and
# integration tests in an ASan + UBSan build (label asan) and a few seconds of each fuzz target.
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
# The RT tests one at a time (they measure the machine), then the calibrations on every core.
(cd "$RTGATE_BUILD_DIR" &&
  ctest --output-on-failure --timeout 600 -j 1 --no-tests=error -LE calibration &&
  ctest --output-on-failure --timeout 600 -j "$(nproc)" --no-tests=error -L calibration)
step ctest

# The .deb of this build: lintian clean of errors, installed with apt-get, run, purged.
ci/deb.sh "$RTGATE_BUILD_DIR"
step deb

# ThreadSanitizer: the lock correctness tests only (the PI-timing tests measure the kernel, not
# data races, and TSAN's slowdown would only blur them).
TSAN_DIR="$RTGATE_BUILD_DIR-tsan"
rm -rf "$TSAN_DIR"
cmake -S . -B "$TSAN_DIR" -DRTGATE_TSAN=ON -DRTGATE_WERROR=ON -DRTGATE_BUILD_BENCH=OFF >/dev/null
cmake --build "$TSAN_DIR" --target rtgate_lock_tests -j "$(nproc)"
cd "$TSAN_DIR"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --output-on-failure --timeout 900 -j 1 --no-tests=error -L tsan -E PiInversion
step tsan

# ASan + UBSan suite and fuzz smoke test (ci/sanitize.sh says what it leaves out and why).
cd "$ROOT"
ci/sanitize.sh
step sanitize
