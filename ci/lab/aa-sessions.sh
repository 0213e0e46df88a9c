#!/usr/bin/env bash
# The gate's A/A check on this machine, with separate processes as sessions: record a history of
# H sessions, then P pairs of sessions, and gate each pair twice: with the default prior alone
# (nothing learned), and with --history over the H earlier sessions. Prints one line per gate
# and a summary of the exit codes; every result stays in OUT for the closing note's figures.
#
#   ci/lab/aa-sessions.sh [--history H] [--pairs P] [--out DIR] [--rtgate PATH] [--load SPEC]
#                         [--] [RUN ARGS...]
#
#   --history H    sessions recorded first (default 10)
#   --pairs P      A/A pairs after them (default 10)
#   --load SPEC    give every current side of the pairs this --load (an interferer: the gates
#                  then run with --allow-env-mismatch and must exit 1)
#   RUN ARGS       what each session runs (default: cyclic lock.latency --runs 5 --duration 2)
# Exit code: 0 when it ran; the gates' exit codes are in OUT/summary.tsv.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
history=10 pairs=10 out=aa-sessions rtgate="" load=""
while [ $# -gt 0 ]; do
  case "$1" in
    --history) history=${2:?}; shift 2 ;;
    --pairs) pairs=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --rtgate) rtgate=${2:?}; shift 2 ;;
    --load) load=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ -n "$rtgate" ] || rtgate=$(command -v rtgate || echo "$repo/build/rtgate")
[ -x "$rtgate" ] || { echo "aa-sessions.sh: no rtgate binary at $rtgate" >&2; exit 2; }
run_args=("$@")
[ ${#run_args[@]} -gt 0 ] || run_args=(cyclic lock.latency --runs 5 --duration 2)

mkdir -p "$out/history" "$out/pairs"
session() {  # FILE [EXTRA ARGS]: one session, one process
  local file=$1; shift
  "$rtgate" run "${run_args[@]}" "$@" -o "$file" >"$file.log" 2>&1 || true
  [ -s "$file" ] || { echo "aa-sessions.sh: no result in $file (see $file.log)" >&2; exit 1; }
}
for ((i = 1; i <= history; i++)); do
  [ -s "$out/history/s$i.json" ] || session "$out/history/s$i.json"
done
printf 'pair\tprior\thistory\n' >"$out/summary.tsv"
for ((p = 1; p <= pairs; p++)); do
  base="$out/pairs/p$p-base.json" cur="$out/pairs/p$p-cur.json"
  [ -s "$base" ] || session "$base"
  extra=()
  [ -z "$load" ] || extra=(--load "$load")
  [ -s "$cur" ] || session "$cur" "${extra[@]}"
  gate_args=()
  [ -z "$load" ] || gate_args=(--allow-env-mismatch)
  set +e
  "$rtgate" gate "$base" "$cur" "${gate_args[@]}" >"$out/pairs/p$p-prior.txt" 2>&1
  prior=$?
  "$rtgate" gate "$base" "$cur" --history "$out/history" "${gate_args[@]}" \
    >"$out/pairs/p$p-history.txt" 2>&1
  hist=$?
  set -e
  printf '%s\t%s\t%s\n' "$p" "$prior" "$hist" >>"$out/summary.tsv"
  echo "pair $p: default prior exit $prior, history exit $hist"
done
for col in 2 3; do
  name=$(head -1 "$out/summary.tsv" | cut -f"$col")
  echo "$name: $(tail -n +2 "$out/summary.tsv" | cut -f"$col" | sort | uniq -c | tr -s ' ' |
    sed 's/^ //; s/ \([0-9]*\)$/ x exit \1/' | paste -sd, -)"
done
