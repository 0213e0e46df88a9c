#!/usr/bin/env bash
# A board's history across kernels, on the virtual board (ci/lab/board.sh): boot each kernel of a
# sequence a number of times, run ci/gate-kernel.sh in every boot against one shared baseline
# directory (every result stored: the board's history), then judge that history on the host
# with `rtgate history` (table, JSON and the HTML trend page in OUT).
#
#   ci/lab/history-kernels.sh [OPTIONS] KERNEL:BOOTS... [--] [SELECTOR... [-p K=V]...]
#
#   KERNEL:BOOTS       a Debian kernel as board.sh --kernel takes it, booted BOOTS times in a row
#                      (6.1.0-47-rt:4 6.1.0-53-rt:4: four boots of 47-rt, then four of 53-rt)
#   --duration S, --runs N   per suite, as ci/gate-kernel.sh (defaults 2 and 5)
#   --out DIR          the job folder (default lab-history): boot-NN/ holds each boot's
#                      artifacts and log, baselines/ the history, history.{txt,json,html} the
#                      verdict over it, summary.tsv each boot's kernel and exit code
#   --policy FILE      gate policy, for ci/gate-kernel.sh and rtgate history
#   --timeout S        per boot (default 900); --smp, --mem, --append, --accel as board.sh
#
# The selection defaults to `cyclic lock.latency -p locks=pi_mutex,futex_mutex`. rtgate is
# copied first (to the lab cache's bin/, by its checksum, not to OUT, where the guest writes),
# so that a rebuild on the host during the job cannot change it under a running board.
# A boot that hangs or fails is recorded in summary.tsv and the sequence goes on; a job run
# again with the same OUT adds its boots to the history already there.
# Exit code: rtgate history's (0, 1, 3; 2 when it could not judge); 125 when a boot failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "history-kernels.sh: $*" >&2; exit 2; }

duration=2 runs=5 out=lab-history policy="" limit=900 board_opts=() sequence=()
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --policy) policy=$(realpath "${2:?}"); shift 2 ;;
    --timeout) limit=${2:?}; shift 2 ;;
    --smp|--mem|--append|--lab|--accel) board_opts+=("$1" "${2:?}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *:[0-9]*) sequence+=("$1"); shift ;;
    *) break ;;
  esac
done
[ ${#sequence[@]} -gt 0 ] || die "no KERNEL:BOOTS given (e.g. 6.1.0-47-rt:4 6.1.0-53-rt:4)"
selection=("$@")
[ ${#selection[@]} -gt 0 ] || selection=(cyclic lock.latency -p locks=pi_mutex,futex_mutex)

mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(command -v rtgate 2> /dev/null || echo "$repo/build/rtgate")
[ -x "$src" ] || die "no rtgate binary at $src"
# A copy that a rebuild during the boots cannot change, outside the job folder (the guest writes
# there, and the host runs this binary): in the lab's cache, which the guest sees read-only.
pinned="${RTGATE_LAB_DIR:-${HOME:-/root}/.cache/rtgate-lab}/bin"
mkdir -p "$pinned"
rtgate="$pinned/rtgate-$(sha256sum "$src" | cut -c1-16)"
[ -x "$rtgate" ] || { cp "$src" "$rtgate.$$" && mv "$rtgate.$$" "$rtgate"; }
board=("$here/board.sh" --out "$out" --timeout "$limit" "${board_opts[@]}")
gk=(ci/gate-kernel.sh --rtgate "$rtgate" --duration "$duration" --runs "$runs"
    --store-inconclusive --baseline-dir "$out/baselines")
[ -z "$policy" ] || gk+=(--policy "$policy")

bpid=""
trap '[ -z "$bpid" ] || kill -TERM "$bpid" 2> /dev/null; exit 130' INT TERM
# Boots already in OUT (an earlier, interrupted job) keep their numbers; new ones follow.
[ -s "$out/summary.tsv" ] || printf 'boot\tkernel\texit\n' > "$out/summary.tsv"
n=$(find "$out" -maxdepth 1 -name 'boot-*' | wc -l)
failed=0
for item in "${sequence[@]}"; do
  kernel=${item%:*} boots=${item##*:}
  for _ in $(seq 1 "$boots"); do
    n=$((n + 1))
    dir=$(printf '%s/boot-%02d' "$out" "$n")
    rm -rf "$dir"
    mkdir -p "$dir"
    code=0
    "${board[@]}" --kernel "$kernel" -- sh -c "cd '$repo' && exec $(printf '%q ' "${gk[@]}") \
      --artifacts '$dir' -- $(printf '%q ' "${selection[@]}")" > "$dir/log" 2>&1 &
    bpid=$!
    wait "$bpid" || code=$?
    bpid=""
    cp "$out/console.log" "$dir/console.log" 2> /dev/null || true
    printf '%s\t%s\t%s\n' "$n" "$kernel" "$code" >> "$out/summary.tsv"
    echo "history-kernels.sh: boot $n: $kernel: exit $code" >&2
    # A boot that hung or failed (124, 125) stored nothing; the sequence goes on.
    if [ "$code" -ge 124 ]; then
      tail -5 "$dir/log" >&2
      failed=$((failed + 1))
    fi
  done
done

# The history: every stored session of the one host and key under baselines/.
hist=$(dirname "$(find "$out/baselines" -name KEY | head -1)")
[ -n "$hist" ] && [ -d "$hist" ] || die "no stored results under $out/baselines"
hargs=(history "$hist" --html "$out/history.html")
[ -z "$policy" ] || hargs+=(--policy "$policy")
code=0
"$rtgate" "${hargs[@]}" > "$out/history.txt" || code=$?
"$rtgate" "${hargs[@]}" --format json > "$out/history.json" || true
column -t -s $'\t' "$out/summary.tsv"
cat "$out/history.txt"
[ "$failed" = 0 ] || { echo "history-kernels.sh: $failed boots failed" >&2; exit 125; }
exit "$code"
