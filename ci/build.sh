#!/usr/bin/env bash
# Configures and builds rtgate, its tests and benchmarks in ./build (or $RTGATE_BUILD_DIR). Used
# by ci/test.sh; safe to run repeatedly (incremental). Warnings are errors only with RTGATE_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${RTGATE_BUILD_DIR:-build}
# RTGATE_WERROR=ON (ci/test.sh): warnings in rtgate's own code are errors.
# The tests and benchmarks explicitly: a build dir ci/smoke.sh made has them off.
# RTGATE_DEBUG_INFO: -g (the default) or -g1, line tables only, which ci/test.sh asks for: a
# crash's backtrace keeps its file and line, and the build takes about a fifth less time.
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRTGATE_WERROR="${RTGATE_WERROR:-OFF}" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 ${RTGATE_DEBUG_INFO:--g} -DNDEBUG" \
  -DRTGATE_BUILD_TESTS=ON -DRTGATE_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
