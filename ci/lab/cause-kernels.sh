#!/usr/bin/env bash
# What delays the RT threads on one kernel that did not on another: boot the baseline kernel on
# the virtual board (ci/lab/board.sh) and run the selection traced, boot the candidate kernel and
# run it traced at the baseline's threshold, then compare the two on the host. The baseline
# boot first runs the selection untraced, so that its traced run takes its threshold from that
# run's p99 (`run --trace --baseline`), as a user without a threshold gets it.
#
#   ci/lab/cause-kernels.sh --baseline-kernel K0 --kernel K1 [OPTIONS] [--] SELECTOR... [-p K=V]...
#
#   --baseline-kernel K0, --kernel K1   Debian kernels, as board.sh --kernel takes them
#   --duration S       seconds per run (default 20)
#   --out DIR          the job folder (default lab-causes): plain.json, base.json, cur.json,
#                      compare.txt and compare.json, the console logs
#   --timeout S        per boot (default 900); --smp, --mem, --append, --accel as board.sh
#
# The selection defaults to `cyclic fs.dentry`. Runs are traced with --trace=locks, so that
# workload suites bring their kernel lock contention.
# Exit code: that of `rtgate compare` (0 nothing regressed, 1 regressed, 3 inconclusive), 125
# when a boot failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "cause-kernels.sh: $*" >&2; exit 2; }

k0="" k1="" duration=20 out=lab-causes limit=900 board_opts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline-kernel) k0=${2:?}; shift 2 ;;
    --kernel) k1=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --timeout) limit=${2:?}; shift 2 ;;
    --smp|--mem|--append|--lab|--accel) board_opts+=("$1" "${2:?}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ -n "$k0" ] && [ -n "$k1" ] || die "--baseline-kernel and --kernel are required"
selection=("$@")
[ ${#selection[@]} -gt 0 ] || selection=(cyclic fs.dentry)

mkdir -p "$out"
out=$(cd "$out" && pwd)
rtgate=$(command -v rtgate 2> /dev/null || echo "$repo/build/rtgate")
board=("$here/board.sh" --out "$out" --timeout "$limit" "${board_opts[@]}")
run=("$rtgate" run "${selection[@]}" --duration "$duration" --no-progress)
q() { printf '%q ' "$@"; }

# Both boots use the same job folder, so that the kernel command line (which names it) is the
# same on both sides. A run that gates against its baseline may exit 1 or 3: still a result.
# (One line: board.sh quotes the command, and a newline would make it $'...', which sh lacks.)
rm -f "$out"/{plain,base,cur}.json
plain="$(q "${run[@]}") -o plain.json > plain.log 2>&1"
base="$(q "${run[@]}") --trace=locks --baseline plain.json -o base.json > base.log 2>&1"
"${board[@]}" --kernel "$k0" -- sh -c "$plain; $base; true" || exit 125
cp "$out/console.log" "$out/baseline.console.log" 2> /dev/null || true
[ -s "$out/base.json" ] || { cat "$out/base.log" >&2; echo "cause-kernels.sh: no baseline" >&2; exit 125; }
"${board[@]}" --kernel "$k1" -- sh -c \
  "$(q "${run[@]}") --trace=locks --baseline base.json -o cur.json > cur.log 2>&1; true" || exit 125
cp "$out/console.log" "$out/candidate.console.log" 2> /dev/null || true
[ -s "$out/cur.json" ] || { cat "$out/cur.log" >&2; echo "cause-kernels.sh: no current result" >&2; exit 125; }

grep -h "threshold" "$out/base.log" "$out/cur.log" >&2 || true
code=0
"$rtgate" compare "$out/base.json" "$out/cur.json" --format json > "$out/compare.json" || true
"$rtgate" compare "$out/base.json" "$out/cur.json" | tee "$out/compare.txt" || code=$?
exit "$code"
