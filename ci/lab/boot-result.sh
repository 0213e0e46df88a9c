#!/usr/bin/env bash
# One boot of the virtual board that runs `rtgate run` and brings back its result as a plain file:
#
#   ci/lab/boot-result.sh RESULT [BOARD OPTIONS...] [--setup CMD] -- RUN ARGS...
#
# Boots with ci/lab/board.sh and the BOARD OPTIONS (--kernel, --accel, --smp, --append, ...) in
# the job folder RESULT.job, runs CMD (default true) and then `rtgate run RUN ARGS --no-progress`
# in the guest, and copies the guest's result to RESULT, never through a link the guest planted.
# The board's output goes to RESULT.log. An existing RESULT is kept and nothing boots.
# Exit code: 0 with a result; 1 when the boot left none (see RESULT.log).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
result=${1:?result file}; shift
board=() setup=true
while [ $# -gt 0 ]; do
  case "$1" in
    --setup) setup=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) board+=("$1"); shift ;;
  esac
done
[ -s "$result" ] && exit 0
# The same rtgate measures in the guest (whose root is the host's /) as the caller gates with.
rtgate=$(realpath "${RTGATE:-$repo/build/rtgate}")
job="$result.job"
mkdir -p "$job"
job=$(cd "$job" && pwd)
args=$(printf '%q ' "$@")  # each run argument one word in the guest's shell: no globbing
"$here/board.sh" "${board[@]}" --out "$job" --timeout 1500 \
  -- sh -c "$setup && $rtgate run $args--no-progress -o $job/result.json" > "$result.log" 2>&1 ||
  true
[ -f "$job/result.json" ] && [ ! -L "$job/result.json" ] ||
  { echo "boot-result.sh: $result: the boot left no result (see $result.log)" >&2; exit 1; }
cp --no-dereference "$job/result.json" "$result"
