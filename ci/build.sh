#!/usr/bin/env bash
# Configures and builds rtgate in ./build (or $RTGATE_BUILD_DIR). Used by the two quick-start
# commands; safe to run repeatedly (incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${RTGATE_BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
