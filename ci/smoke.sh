#!/usr/bin/env bash
# Quick start 1: set up, build, and run the default smoke selection (tag:smoke) with a readable
# summary. Extra arguments go to `rtgate run` (e.g. --duration 30 -o result.json).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
ci/build.sh >/dev/null
exec "${RTGATE_BUILD_DIR:-build}/rtgate" run tag:smoke --duration 5 "$@"
