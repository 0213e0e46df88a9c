#!/usr/bin/env bash
# Quick start 2: set up, build from scratch, and run the whole test suite through ctest:
# the normal build (unit, integration, locks, and the unit tests again as nobody), then the
# lock tests in a ThreadSanitizer build (label tsan), the unit and integration tests in an
# ASan + UBSan build (label asan), and a few seconds of each fuzz target (tests/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ci/setup.sh
export RTGATE_BUILD_DIR=${RTGATE_BUILD_DIR:-build}
rm -rf "$RTGATE_BUILD_DIR"
ci/build.sh
(cd "$RTGATE_BUILD_DIR" && ctest --output-on-failure --timeout 600 -j 1 --no-tests=error)

# ThreadSanitizer: the lock correctness tests only (the PI-timing tests measure the kernel, not
# data races, and TSAN's slowdown would only blur them).
TSAN_DIR="$RTGATE_BUILD_DIR-tsan"
rm -rf "$TSAN_DIR"
cmake -S . -B "$TSAN_DIR" -DRTGATE_TSAN=ON -DRTGATE_BUILD_BENCH=OFF >/dev/null
cmake --build "$TSAN_DIR" --target rtgate_lock_tests -j "$(nproc)"
cd "$TSAN_DIR"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --output-on-failure --timeout 900 -j 1 --no-tests=error -L tsan -E PiInversion

# AddressSanitizer + UndefinedBehaviorSanitizer: the unit and integration tests (the rtgate binary
# they drive is instrumented too), no recovery. Left out, as slow or meaningless here: the gate's
# calibration (GateCalibration*, minutes of seeded simulations whose rates do not depend on
# memory errors, and which ASan's slowdown would make the longest part of CI) and the PI timing
# tests (LockSuites.PiInversion*, PiStress*: they measure the kernel's scheduling, which the
# slowdown only blurs).
cd "$ROOT"
ASAN_DIR="$RTGATE_BUILD_DIR-asan"
rm -rf "$ASAN_DIR"
cmake -S . -B "$ASAN_DIR" -DRTGATE_ASAN=ON -DRTGATE_BUILD_BENCH=OFF >/dev/null
cmake --build "$ASAN_DIR" --target rtgate rtgate_unit_tests rtgate_integration_tests -j "$(nproc)"
(cd "$ASAN_DIR" &&
  ASAN_OPTIONS="halt_on_error=1:detect_leaks=1" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  ctest --output-on-failure --timeout 900 -j 1 --no-tests=error -L asan \
    -E "GateCalibration|PiInversion|PiStress")

# Fuzz smoke test: each target for a few seconds from its seed corpus (ci/fuzz.sh runs longer).
RTGATE_FUZZ_DIR="$RTGATE_BUILD_DIR-fuzz" ci/fuzz.sh 3
