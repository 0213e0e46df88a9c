#!/usr/bin/env bash
# The unit and integration tests in an ASan + UBSan build (label asan), then a few seconds of each
# fuzz target (tests/fuzz). ci/test.sh ends with it; it also runs on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ci/setup.sh
export RTGATE_BUILD_DIR=${RTGATE_BUILD_DIR:-build}

# AddressSanitizer + UndefinedBehaviorSanitizer: the unit and integration tests (the rtgate binary
# they drive is instrumented too), no recovery. Left out, as slow or meaningless here: the gate's
# calibration (GateCalibration*, GateSessionCalibration*: minutes of seeded simulations whose
# rates do not depend on memory errors, and which ASan's slowdown would make the longest part of
# CI; the session code runs under ASan in GateSessionNoise and GateRealSessions), the PI timing
# tests (LockSuites.PiInversion*, PiStress*: they measure the kernel's scheduling, which the
# slowdown only blurs) and the trace integration tests (Trace.*: they assert what the trace of
# a real-time run shows, and under ASan the collector falls so far behind the run that the
# tasks it must name have exited before it analyses their samples; the trace decoding and
# analysis are in the unit tests, which do run here). Also left out, as their time is another
# program's: the browser tests (ReportBrowser, HistoryBrowser: Chromium drawing the pages, whose
# C++ generators run here in HtmlReport, TrendSection and the Svg tests) and PrometheusFleet
# (Prometheus evaluating the alert rules and dashboard; the push and /metrics code runs here in
# PrometheusExport and ExportCli).
cd "$ROOT"
ASAN_DIR="$RTGATE_BUILD_DIR-asan"
rm -rf "$ASAN_DIR"
# clang-14 (as the fuzz targets): it builds this tree with ASan + UBSan in about half g++ 12's
# time, and its warnings are a second compiler's opinion of the code.
# Each CLI file on its own (RTGATE_UNITY_CLI=OFF): a missing include fails here.
cmake -S . -B "$ASAN_DIR" -DCMAKE_CXX_COMPILER=clang++-14 -DRTGATE_ASAN=ON \
  -DRTGATE_WERROR="${RTGATE_WERROR:-OFF}" -DRTGATE_BUILD_BENCH=OFF -DRTGATE_UNITY_CLI=OFF \
  -DRTGATE_PCH=ON >/dev/null
cmake --build "$ASAN_DIR" --target rtgate rtgate_unit_tests rtgate_integration_tests -j "$(nproc)"
echo "ci/sanitize.sh: ASan build done at $((SECONDS / 60)) min $((SECONDS % 60)) s"
(cd "$ASAN_DIR" &&
  ASAN_OPTIONS="halt_on_error=1:detect_leaks=1" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  ctest --output-on-failure --timeout 900 -j 1 --no-tests=error -L asan \
    -E "GateCalibration|GateSessionCalibration|PiInversion|PiStress|^Trace\.|Browser\.|^PrometheusFleet\.")

echo "ci/sanitize.sh: ASan tests done at $((SECONDS / 60)) min $((SECONDS % 60)) s"

# Fuzz smoke test: each target for a few seconds from its seed corpus (ci/fuzz.sh runs longer).
RTGATE_FUZZ_DIR="$RTGATE_BUILD_DIR-fuzz" ci/fuzz.sh 3
