#!/usr/bin/env bash
# Which kernel made it worse: bisect a list of kernels on the deterministic board, gating each
# boot against the good kernel's, and name the first bad one with the evidence.
#
#   ci/lab/bisect-kernels.sh --good K --bad K [--kernels K1,K2,...] [--setup CMD]
#                            [--accel A] [--out DIR] [--policy FILE] -- SELECTION [RUN OPTIONS]
#
#   --good, --bad  kernels as board.sh takes them: Debian releases (6.1.0-47-rt), package names,
#                  versions or .deb files
#   --kernels      the order to bisect in, good and bad among them (or added at the ends);
#                  without it, the releases of the same flavour between good and bad in the apt
#                  lists, by version (releases or package names then)
#   --setup CMD    a shell command the guest runs before the selection on every kernel (load a
#                  module, set a sysctl)
#   --accel A      the board's accelerator (default icount: the deterministic board)
#   --out DIR      results and gate outputs (default bisect); boots already there are reused
#   --policy FILE  passed to every rtgate gate
# Each kernel boots once and runs `rtgate run SELECTION [RUN OPTIONS]`; `rtgate gate GOOD K`
# decides: exit 1 bad, 0 good, 3 skipped (inconclusive), as is a kernel that does not boot. It
# prints each step, then the first bad kernel's gate against the good one and its comparison with
# the last good one (`rtgate compare`: with --trace in the run options, the causes of both), and
# ends with the line `first bad: K`.
# Exit code: 0 found; 3 undecided (skips left a range: its line says which); 1 the bad kernel is
# not bad, or the good one did not boot; 2 bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
good="" bad="" kernels="" setup=true accel=icount out=bisect policy=()
usage() { echo "bisect-kernels.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --good) good=${2:?}; shift 2 ;;
    --bad) bad=${2:?}; shift 2 ;;
    --kernels) kernels=${2:?}; shift 2 ;;
    --setup) setup=${2:?}; shift 2 ;;
    --accel) accel=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --policy) policy=(--policy "$(realpath "${2:?}")"); shift 2 ;;
    --) shift; break ;;
    *) usage "unknown option $1 (the selection comes after --)" ;;
  esac
done
[ -n "$good" ] && [ -n "$bad" ] || usage "--good and --bad are required"
[ $# -gt 0 ] || usage "no selection after --"
run_args=("$@")
mkdir -p "$out"
out=$(cd "$out" && pwd)
# A copy in OUT, so that a rebuild on the host during the bisect cannot change it under a board.
cp "$(realpath "${RTGATE:-$repo/build/rtgate}")" "$out/rtgate"
export RTGATE=$out/rtgate

# The releases of good's flavour in the apt lists, by version: "6.1.0-47-rt", "6.12.107+deb12-rt".
apt_releases() {
  local flavour=${good##*-}
  apt-cache pkgnames linux-image- 2> /dev/null |
    sed -n "s/^linux-image-\(.*-$flavour\)-amd64-unsigned\$/\1/p" | sort -uV
}

list=()
if [ -n "$kernels" ]; then
  IFS=, read -r -a list <<< "$kernels"
  [[ " ${list[*]} " == *" $good "* ]] || list=("$good" "${list[@]}")
  [[ " ${list[*]} " == *" $bad "* ]] || list+=("$bad")
else
  mapfile -t all < <(apt_releases)
  on=0
  for k in "${all[@]}"; do
    [ "$k" = "$good" ] && on=1
    [ "$on" = 1 ] && list+=("$k")
    [ "$k" = "$bad" ] && [ "$on" = 1 ] && on=2 && break
  done
  [ "$on" = 2 ] || usage "$good .. $bad are not releases of one flavour in the apt lists in that order; give --kernels"
fi
lo=-1 hi=-1
for i in "${!list[@]}"; do
  [ "${list[$i]}" = "$good" ] && lo=$i
  [ "${list[$i]}" = "$bad" ] && hi=$i
done
[ "$lo" -ge 0 ] && [ "$lo" -lt "$hi" ] || usage "--good must come before --bad in the kernel order"
g0=$lo  # the good kernel: every gate is against it
echo "bisect: ${#list[@]} kernels, ${list[$lo]} (good) .. ${list[$hi]} (bad)"

name_of() { printf 'k%02d-%s' "$1" "$(printf '%s' "${list[$1]}" | tr -c 'A-Za-z0-9.+-' '_')"; }
# verdict I: boots kernel I (once) and gates it against the good kernel: 0 good, 1 bad, 3 skip,
# with $why saying what skipped it.
verdict() {
  local n code=0
  n=$(name_of "$1")
  why=""
  if ! "$here/boot-result.sh" "$out/$n.json" --kernel "${list[$1]}" --accel "$accel" \
    --setup "$setup" -- "${run_args[@]}" 2> "$out/$n.err"; then
    why="no result: $(tail -1 "$out/$n.err")"
    return 3
  fi
  [ "$1" = "$g0" ] && return 0
  "$RTGATE" gate "$out/$(name_of "$g0").json" "$out/$n.json" "${policy[@]}" > "$out/$n.gate.txt" \
    2>&1 || code=$?
  case "$code" in
    0 | 1) return "$code" ;;
    *) why="gate exit $code: $(grep -m1 'inconclusive:\|missing:\|^rtgate' "$out/$n.gate.txt" |
      cut -c1-200)"
      return 3 ;;
  esac
}
say() { echo "bisect: ${list[$1]}: $2 ($3 kernels left)"; }

code=0
verdict "$lo" || code=$?
[ "$code" = 0 ] || { cat "$out/$(name_of "$lo").err"; echo "bisect: the good kernel did not boot" >&2; exit 1; }
code=0
verdict "$hi" || code=$?
if [ "$code" != 1 ]; then
  cat "$out/$(name_of "$hi").gate.txt" 2> /dev/null || cat "$out/$(name_of "$hi").err"
  echo "bisect: ${list[$hi]} does not gate red against ${list[$lo]} (exit $code): nothing to bisect" >&2
  exit 1
fi
say "$hi" bad $((hi - lo - 1))
# Binary search over (lo, hi): lo good, hi bad. A skipped kernel is set aside and the search tries
# its neighbours, nearest the middle first, as git bisect does.
skipped=" "
while :; do
  cands=()
  for ((i = lo + 1; i < hi; i++)); do [[ "$skipped" == *" $i "* ]] || cands+=("$i"); done
  [ ${#cands[@]} -gt 0 ] || break
  mid=$(((lo + hi) / 2)) pick=${cands[0]}
  for i in "${cands[@]}"; do
    d=$((i > mid ? i - mid : mid - i)) b=$((pick > mid ? pick - mid : mid - pick))
    [ "$d" -lt "$b" ] && pick=$i
  done
  code=0
  verdict "$pick" || code=$?
  case "$code" in
    0) lo=$pick; say "$pick" good $((hi - lo - 1)) ;;
    1) hi=$pick; say "$pick" bad $((hi - lo - 1)) ;;
    *) skipped+="$pick "; say "$pick" "skipped, $why" $((hi - lo - 1)) ;;
  esac
done

first=$(name_of "$hi") last=$(name_of "$lo")
echo
echo "== ${list[$hi]} against the good kernel ${list[$g0]}: rtgate gate"
grep -v '^    ' "$out/$first.gate.txt" | grep -v 'unchanged$' || true
echo
echo "== ${list[$hi]} against the last good kernel ${list[$lo]}: rtgate compare"
"$RTGATE" compare "$out/$last.json" "$out/$first.json" "${policy[@]}" 2>&1 | tail -n 40 || true
echo
between=()
for ((i = lo + 1; i < hi; i++)); do between+=("${list[$i]}"); done
if [ ${#between[@]} -gt 0 ]; then
  echo "first bad: one of ${between[*]} ${list[$hi]} (skipped: ${between[*]})"
  exit 3
fi
echo "first bad: ${list[$hi]}"
