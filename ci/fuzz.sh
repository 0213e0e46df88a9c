#!/usr/bin/env bash
# Fuzzes rtgate's input parsers with libFuzzer (tests/fuzz/): the result loader, the gate policy,
# --load, --cpus, selectors, -p and rtgate import's formats. Builds the targets in
# $RTGATE_FUZZ_DIR (default build-fuzz, clang-14 + ASan + UBSan), then runs each for SECONDS (default 300) from its seed corpus in
# tests/fuzz/corpus/<target>/. New inputs go to a scratch corpus beside the build, never into the
# tree; a crash leaves crash-* in $RTGATE_FUZZ_DIR/artifacts/ and fails the script. Reports the
# executions of each target.
#   ci/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-300}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(result_loader policy load_spec cpu_list selection params import text)
ci/setup.sh
DIR=${RTGATE_FUZZ_DIR:-build-fuzz}
cmake -S . -B "$DIR" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRTGATE_FUZZ=ON -DRTGATE_BUILD_TESTS=OFF -DRTGATE_BUILD_BENCH=OFF -DRTGATE_PCH=ON >/dev/null
cmake --build "$DIR" --target rtgate_fuzz -j "$(nproc)" >/dev/null
mkdir -p "$DIR/artifacts"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
for t in "${TARGETS[@]}"; do
  scratch="$DIR/corpus/$t"
  mkdir -p "$scratch"
  log="$DIR/fuzz_$t.log"
  # -timeout: one input taking over 10 s is a finding (a hang), as is -rss_limit_mb.
  if ! "$DIR/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$DIR/artifacts/$t-" \
       "$scratch" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    echo "ci/fuzz.sh: $t: FINDING (see $log and $DIR/artifacts/)" >&2
    grep -E "ERROR|runtime error|property broken" "$log" | head -5 >&2
    exit 1
  fi
  echo "ci/fuzz.sh: $t: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") executions in ${SECONDS_EACH}s, peak RSS $(sed -n 's/^stat::peak_rss_mb: *//p' "$log") MB, no finding"
done
