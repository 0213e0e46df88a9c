#!/usr/bin/env bash
# Configures and builds rtgate in ./build (or $RTGATE_BUILD_DIR). Used by the two quick-start
# commands; safe to run repeatedly (incremental). Warnings are errors only with RTGATE_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${RTGATE_BUILD_DIR:-build}
# RTGATE_WERROR=ON (ci/test.sh): warnings in rtgate's own code are errors.
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRTGATE_WERROR="${RTGATE_WERROR:-OFF}" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
