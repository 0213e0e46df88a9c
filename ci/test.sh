#!/usr/bin/env bash
# Quick start 2: set up, build from scratch, and run the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
export RTGATE_BUILD_DIR=${RTGATE_BUILD_DIR:-build}
rm -rf "$RTGATE_BUILD_DIR"
ci/build.sh
cd "$RTGATE_BUILD_DIR"
ctest --output-on-failure --timeout 600 -j 1
