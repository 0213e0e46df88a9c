#!/usr/bin/env bash
# How deterministic the deterministic board is, per suite: N boots of one kernel under
# board.sh --accel icount, each running the same selection, then ci/lab/determinism.py's table
# of every gated statistic's spread between boots and within a boot.
#
#   ci/lab/determinism.sh [--kernel K] [--boots N] [--smp N] [--out DIR] [--] [RUN ARGS...]
#
#   RUN ARGS   what each boot runs (default: every suite, '*' --runs 3 --duration 1)
# Writes OUT/bN.json per boot and OUT/table.md. Boots already done are kept (resumable).
# Exit code: 0 when it ran, 2 bad usage, 1 a boot left no result.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=6.1.0-53-rt boots=10 smp=1 out=determinism
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=${2:?}; shift 2 ;;
    --boots) boots=${2:?}; shift 2 ;;
    --smp) smp=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) echo "determinism.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for v in "$boots" "$smp"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "determinism.sh: $v is not a count" >&2; exit 2; }
done
run_args=("$@")
[ ${#run_args[@]} -gt 0 ] || run_args=('*' --runs 3 --duration 1)
mkdir -p "$out"
# A copy in OUT, so that a rebuild on the host during the boots cannot change it under a board.
cp "$(realpath "${RTGATE:-$here/../../build/rtgate}")" "$out/rtgate"
export RTGATE
RTGATE=$(realpath "$out/rtgate")
for ((i = 1; i <= boots; i++)); do
  start=$(date +%s)
  "$here/boot-result.sh" "$out/b$i.json" --kernel "$kernel" --accel icount --smp "$smp" \
    -- "${run_args[@]}"
  echo "boot $i of $boots: $(($(date +%s) - start)) s"
done
python3 "$here/determinism.py" "$out"/b*.json | tee "$out/table.md"
