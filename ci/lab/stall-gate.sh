#!/usr/bin/env bash
# Green where nothing changed, red where something did, on the virtual board: P pairs of boots
# of one kernel gated A/A, and the same baselines gated against boots with an injected kernel
# change (ci/lab/stall/rtgate_stall.c: a section of --hold-us with interrupts or preemption off,
# every --period-ms). One session a side, no history: a first gate, as a new user runs it.
#
#   ci/lab/stall-gate.sh [--kernel K] [--pairs P] [--accel icount|tcg|kvm|auto] [--out DIR]
#                        [--hold-us N] [--period-ms M] [--mode irq|preempt] [--cpu C]
#                        [--] [RUN ARGS...]
#
#   RUN ARGS   what each boot runs (default: cyclic --runs 5 --duration 5)
# Writes OUT/summary-STALL.tsv (pair, A/A exit, stall exit; STALL names the module's parameters,
# stall-irq-1000us-100ms-cpu0) and keeps every result and gate output; boots already in OUT are
# reused, so a sweep of --hold-us over one OUT boots each baseline and A/A boot once.
# Exit code: 0 when it ran (the gates' codes are in the summary), 2 bad usage, 1 a boot failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kernel=6.1.0-53-rt pairs=10 accel=icount out=stall-gate hold=1000 period=100 mode=irq cpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=${2:?}; shift 2 ;;
    --pairs) pairs=${2:?}; shift 2 ;;
    --accel) accel=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --hold-us) hold=${2:?}; shift 2 ;;
    --period-ms) period=${2:?}; shift 2 ;;
    --mode) mode=${2:?}; shift 2 ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) echo "stall-gate.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for v in "$pairs" "$hold" "$period" "$cpu"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "stall-gate.sh: $v is not a number" >&2; exit 2; }
done
case "$mode" in irq|preempt) ;; *) echo "stall-gate.sh: --mode irq or preempt" >&2; exit 2 ;; esac
run_args=("$@")
[ ${#run_args[@]} -gt 0 ] || run_args=(cyclic --runs 5 --duration 5)
# The same rtgate gates on the host and measures in the guest (boot-result.sh).
rtgate=$(realpath "${RTGATE:-$repo/build/rtgate}")
export RTGATE=$rtgate

mkdir -p "$out"
out=$(cd "$out" && pwd)
release=$("$here/board.sh" --kernel "$kernel" --fetch-only)
module=$("$here/stall/build.sh" "$release" "$out/module")

# boot NAME [SETUP]: one boot running the selection into OUT/NAME.json (SETUP first, in the guest).
boot() {
  "$here/boot-result.sh" "$out/$1.json" --kernel "$kernel" --accel "$accel" \
    --setup "${2:-true}" -- "${run_args[@]}" || exit 1
}

insmod="insmod $module hold_us=$hold period_ms=$period mode=$mode cpu=$cpu"
# The stall's boots are named by its parameters, so that runs with other --hold-us (a
# sensitivity sweep) share the same baseline and A/A boots in one --out.
stall="stall-$mode-${hold}us-${period}ms-cpu$cpu"
summary="$out/summary-$stall.tsv"
printf 'pair\taa\tstall\n' > "$summary"
for ((p = 1; p <= pairs; p++)); do
  boot "p$p-base"
  boot "p$p-aa"
  boot "p$p-$stall" "$insmod"
  set +e
  "$rtgate" gate "$out/p$p-base.json" "$out/p$p-aa.json" > "$out/p$p-aa.txt" 2>&1
  aa=$?
  "$rtgate" gate "$out/p$p-base.json" "$out/p$p-$stall.json" > "$out/p$p-$stall.txt" 2>&1
  st=$?
  set -e
  printf '%s\t%s\t%s\n' "$p" "$aa" "$st" | tee -a "$summary"
done
awk -F'\t' 'NR > 1 { aa[$2]++; st[$3]++; n++ }
  END { printf "A/A pairs: %d; exit 0: %d, 1: %d, 3: %d\n", n, aa[0], aa[1], aa[3];
        printf "stall pairs: %d; exit 0: %d, 1: %d, 3: %d\n", n, st[0], st[1], st[3] }' \
  "$summary"
