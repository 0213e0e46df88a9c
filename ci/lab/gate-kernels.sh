#!/usr/bin/env bash
# Gate one kernel against another across a reboot, on the virtual board (ci/lab/board.sh):
# boot the baseline kernel and run ci/gate-kernel.sh there (its passing result becomes the
# baseline), power off, boot the candidate kernel and run the same selection through
# ci/gate-kernel.sh against the baseline kernel's result. The same kernel on both sides is the
# A/A pair of two boots: --pairs N repeats the whole pair and counts the exit codes.
#
#   ci/lab/gate-kernels.sh --baseline-kernel K0 --kernel K1 [OPTIONS] [--] SELECTOR... [-p K=V]...
#
#   --baseline-kernel K0, --kernel K1   Debian kernels, as board.sh --kernel takes them
#   --pairs N          baseline boot + candidate boot, N times, each pair with a fresh baseline
#                      (default 1)
#   --duration S, --runs N   per suite, as ci/gate-kernel.sh (defaults 2 and 5)
#   --out DIR          the job folder (default lab-gate): pair-P/{baseline,candidate}/ hold
#                      result.json, junit.xml, rtgate.prom, report.html and the console log;
#                      summary.tsv the exit codes
#   --policy FILE      gate policy, passed to ci/gate-kernel.sh
#   --timeout S        per boot (default 900); --smp, --mem, --append as board.sh
#   --dry-run          print the plan and check the selection (rtgate run --dry-run); no boot
#   --shared-history   one baseline directory for every pair, every boot's result stored in it
#                      (ci/gate-kernel.sh --store-inconclusive): from the third pair on, the gate
#                      learns the between-boot spread from the earlier boots (--history)
#
# The selection defaults to `cyclic lock.latency -p locks=pi_mutex,futex_mutex`. Every boot
# uses the same job folder, so that the kernel command line (which names it) is the same on both
# sides: the gate calls differing boot parameters incomparable.
# Exit code: 0 when every candidate exited 0, else the last candidate's non-zero exit code
# (1 regressed, 3 inconclusive, ...); 125 when a boot failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "gate-kernels.sh: $*" >&2; exit 2; }

k0="" k1="" pairs=1 duration=2 runs=5 out=lab-gate policy="" limit=900 board_opts=() shared=0 dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline-kernel) k0=${2:?}; shift 2 ;;
    --kernel) k1=${2:?}; shift 2 ;;
    --pairs) pairs=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --policy) policy=$(realpath "${2:?}"); shift 2 ;;
    --timeout) limit=${2:?}; shift 2 ;;
    --shared-history) shared=1; shift ;;
    --dry-run) dry=1; shift ;;
    --smp|--mem|--append|--lab|--accel) board_opts+=("$1" "${2:?}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ -n "$k0" ] && [ -n "$k1" ] || die "--baseline-kernel and --kernel are required"
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || die "--pairs $pairs: a positive number"
selection=("$@")
[ ${#selection[@]} -gt 0 ] || selection=(cyclic lock.latency -p locks=pi_mutex,futex_mutex)

# --dry-run (the CI templates' test): the plan, and the selection checked by `rtgate run
# --dry-run`; nothing fetched, booted or written.
if [ "$dry" = 1 ]; then
  echo "dry run: gate-kernels.sh, $pairs pair(s): $k0 -> $k1, board options: ${board_opts[*]:-none}"
  echo "artifacts: $out/pair-1/candidate/ (result.json, junit.xml, rtgate.prom, report.html)"
  echo "junit: $out/pair-1/candidate/junit.xml"
  exec "$(command -v rtgate 2> /dev/null || echo "$repo/build/rtgate")" run --dry-run \
    "${selection[@]}" --duration "$duration" --runs "$runs"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
board=("$here/board.sh" --out "$out" --timeout "$limit" "${board_opts[@]}")
# The release names the kernel in the stored baselines (DIR/<host>/<key>/<release>/).
r0=$("${board[@]}" --kernel "$k0" --fetch-only)
r1=$("${board[@]}" --kernel "$k1" --fetch-only)
gk=(ci/gate-kernel.sh --rtgate "$(command -v rtgate 2> /dev/null || echo "$repo/build/rtgate")"
    --duration "$duration" --runs "$runs")
[ -z "$policy" ] || gk+=(--policy "$policy")
[ "$shared" = 0 ] || gk+=(--store-inconclusive)

# Each boot in the background, so that a signal to this script reaches it (board.sh then kills
# its qemu) instead of waiting for the boot to end.
bpid=""
trap '[ -z "$bpid" ] || kill -TERM "$bpid" 2> /dev/null; exit 130' INT TERM
run_board() {
  "${board[@]}" "$@" &
  bpid=$!
  local code=0
  wait "$bpid" || code=$?
  bpid=""
  return "$code"
}

printf 'pair\tbaseline_kernel\tbaseline_exit\tkernel\tcandidate_exit\tverdict\n' > "$out/summary.tsv"
last=0
for p in $(seq 1 "$pairs"); do
  dir="$out/pair-$p"
  rm -rf "$dir"
  mkdir -p "$dir"
  base="$dir/baselines"
  [ "$shared" = 0 ] || base="$out/baselines"
  # Baseline boot: no baseline stored yet, so the run is measured and, when it passes, stored.
  code0=0
  run_board --kernel "$k0" -- sh -c "cd '$repo' && exec $(printf '%q ' "${gk[@]}") \
    --baseline-dir '$base' --artifacts '$dir/baseline' -- $(printf '%q ' "${selection[@]}")" \
    > "$dir/baseline.log" 2>&1 || code0=$?
  cp "$out/console.log" "$dir/baseline.console.log" 2> /dev/null || true
  code1=125
  # With a shared history the baseline boot is gated too (against the earlier boots): its exit 3
  # or 1 is an A/A verdict to count, not a failed boot.
  if [ "$code0" = 0 ] || { [ "$shared" = 1 ] && { [ "$code0" = 1 ] || [ "$code0" = 3 ]; }; }; then
    code1=0
    run_board --kernel "$k1" -- sh -c "cd '$repo' && exec $(printf '%q ' "${gk[@]}") \
      --baseline-dir '$base' --baseline-kernel '$r0' --artifacts '$dir/candidate' \
      -- $(printf '%q ' "${selection[@]}")" > "$dir/candidate.log" 2>&1 || code1=$?
    cp "$out/console.log" "$dir/candidate.console.log" 2> /dev/null || true
  fi
  case "$code1" in
    0) verdict=green ;;
    1) verdict=red ;;
    3) verdict=inconclusive ;;
    125) verdict="not run (baseline boot exited $code0)" ;;
    *) verdict="error ($code1)" ;;
  esac
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$r0" "$code0" "$r1" "$code1" "$verdict" >> "$out/summary.tsv"
  echo "gate-kernels.sh: pair $p: $r0 (exit $code0) -> $r1: exit $code1, $verdict" >&2
  [ "$code1" = 0 ] || last=$code1
done
column -t -s $'\t' "$out/summary.tsv"
exit "$last"
