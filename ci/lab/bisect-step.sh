#!/usr/bin/env bash
# One step of `git bisect run` in a kernel tree: build, boot on the board, gate against the good
# kernel's result.
#
#   git bisect run /path/to/ci/lab/bisect-step.sh --good-result GOOD.json --build CMD --deb GLOB
#                  [--setup CMD] [--accel A] [--out DIR] [--policy FILE] -- SELECTION [RUN OPTIONS]
#
#   --good-result  the good kernel's result of the same selection (a boot of the good commit,
#                  e.g. through ci/lab/boot-result.sh)
#   --build CMD    the build, run in the tree (e.g. 'make -j"$(nproc)" bindeb-pkg')
#   --deb GLOB     the kernel package it makes (e.g. '../linux-image-*.deb'); the newest match
#   --setup, --accel, --policy   as in ci/lab/bisect-kernels.sh; --out keeps each step's result
#                  and gate, named by the commit (default ./bisect-steps)
# Exit code, as git bisect run reads it: 0 good, 1 bad, 125 skip (the build failed, the kernel
# did not boot, or the gate was inconclusive), 2 bad usage (which makes git bisect stop).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
good="" build="" deb="" setup=true accel=icount out=bisect-steps policy=()
usage() { echo "bisect-step.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --good-result) good=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --deb) deb=${2:?}; shift 2 ;;
    --setup) setup=${2:?}; shift 2 ;;
    --accel) accel=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --policy) policy=(--policy "${2:?}"); shift 2 ;;
    --) shift; break ;;
    *) usage "unknown option $1 (the selection comes after --)" ;;
  esac
done
[ -f "$good" ] && [ -n "$build" ] && [ -n "$deb" ] || usage "--good-result FILE, --build and --deb are required"
[ $# -gt 0 ] || usage "no selection after --"
export RTGATE
RTGATE=$(realpath "${RTGATE:-$repo/build/rtgate}")
rev=$(git rev-parse --short HEAD 2> /dev/null || echo step)
mkdir -p "$out"

echo "bisect-step: $rev: building"
bash -c "$build" > "$out/$rev.build.log" 2>&1 ||
  { echo "bisect-step: $rev: the build failed (skip; $out/$rev.build.log)"; exit 125; }
# shellcheck disable=SC2086  # the glob is the user's, expanded here on purpose
package=$(ls -t $deb 2> /dev/null | head -1)
[ -f "$package" ] || { echo "bisect-step: $rev: no package matches $deb (skip)"; exit 125; }
"$here/boot-result.sh" "$out/$rev.json" --kernel "$package" --accel "$accel" --setup "$setup" \
  -- "$@" || { echo "bisect-step: $rev: no result (skip; $out/$rev.json.log)"; exit 125; }
"$RTGATE" gate "$good" "$out/$rev.json" "${policy[@]}" > "$out/$rev.gate.txt" 2>&1
case $? in
  0) echo "bisect-step: $rev: good"; exit 0 ;;
  1) echo "bisect-step: $rev: bad"; grep -v '^    ' "$out/$rev.gate.txt" | grep regressed; exit 1 ;;
  *) echo "bisect-step: $rev: inconclusive (skip; $out/$rev.gate.txt)"; exit 125 ;;
esac
