#!/usr/bin/env bash
# Quick start 1: the packages the rtgate binary needs, that binary alone (no tests, benchmarks or
# man page), and the default smoke selection (tag:smoke) with a readable summary. Extra arguments
# go to `rtgate run` (e.g. --duration 30 -o result.json).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh --binary
BUILD_DIR=${RTGATE_BUILD_DIR:-build}
# A build dir ci/build.sh configured keeps its tests; a new one is configured without them, whose
# packages `--binary` does not install.
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  # -O2 without debug info: the first command's build is most of its time, and -g adds a
  # third to it (ci/build.sh and the package keep RelWithDebInfo).
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DRTGATE_BUILD_TESTS=OFF -DRTGATE_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$BUILD_DIR" --target rtgate -j "$(nproc)" >/dev/null
exec "$BUILD_DIR/rtgate" run tag:smoke --duration 5 "$@"
