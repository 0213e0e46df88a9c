#!/usr/bin/env bash
# Gate a kernel change on this board: run a named selection, gate it against the last good
# result of the same host, selection and parameters, write the artifacts a CI job keeps, push to
# Prometheus when asked, and store the new result as the next baseline when it passed.
#
#   ci/gate-kernel.sh [OPTIONS] [--] SELECTOR... [-p KEY=VALUE]... [RTGATE RUN OPTIONS]
#
# Everything after the options (or after --) goes to `rtgate run` as given: selectors, -p,
# --cpus, --load, --trace ... and it is part of what makes two results comparable.
#
#   --baseline FILE          gate against this result
#   --baseline-dir DIR       gate against the newest passed result stored in DIR for this
#                            host, selection and parameters, with up to 9 more stored boots of
#                            its kernel as further baseline sessions, and every stored result
#                            there as the history the between-session noise is learned from;
#                            store the new result there, and judge the history with it
#                            (`rtgate history`: change points, the newest kernel's segment)
#   --baseline-kernel REL    with --baseline-dir: the newest of that kernel_release only
#   --artifacts DIR          where result.json, junit.xml, rtgate.prom and report.html go
#                            (default: artifacts)
#   --duration S, --runs N   as `rtgate run` (defaults 30 and 3)
#   --until-decided          run until every gated metric is decided (with --max-runs, --budget)
#   --max-runs N, --budget T as `rtgate run --until-decided`
#   --policy FILE            gate policy
#   --push URL               push the result to a Pushgateway
#   --rtgate PATH            the rtgate binary (default: rtgate on PATH, else build/rtgate)
#   --store-inconclusive     let a result whose gate was inconclusive (exit 3) be a baseline
#                            too; by default only a passed one becomes the next baseline, so
#                            that a slow drift that is never decided cannot creep into it
#   --dry-run                check everything (rtgate run --dry-run) and print the commands
#
# Every measured result is stored as DIR/<host>/<key>/<kernel_release>/<UTC time>.json when its
# gate passed (a baseline), <UTC time>.inconclusive.json or <UTC time>.regressed.json otherwise
# (history only), where <key> names the selection and parameters (a hash of them, with the
# readable form in DIR/<host>/<key>/KEY). With --baseline-dir the history of DIR/<host>/<key> is
# then judged (artifacts history.txt, history.json, history.html): it says when the baseline is
# already in a worse segment, and when a kernel that was inconclusive at its own gate started
# one, as the sessions since show.
# Exit code: the gate's (0 passed, 1 regressed or a suite failed, 2 bad input, 3 inconclusive,
# 4 cannot run what was required), except that 1 when the history shows this kernel starts a
# worse segment (the false-alarm rate is then at most the sum of the two alphas); with no
# baseline yet, the run's own, and a passed run becomes the first baseline.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "gate-kernel.sh: $*" >&2; exit 2; }

baseline="" baseline_dir="" baseline_kernel="" more_sessions=() artifacts="artifacts" duration=30 runs=3
until_decided=0 max_runs="" budget="" policy="" push="" rtgate="" dry_run=0 store_inconclusive=0
selection=()
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) baseline=${2:?}; shift 2 ;;
    --baseline-dir) baseline_dir=${2:?}; shift 2 ;;
    --baseline-kernel) baseline_kernel=${2:?}; shift 2 ;;
    --artifacts) artifacts=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --until-decided) until_decided=1; shift ;;
    --max-runs) max_runs=${2:?}; shift 2 ;;
    --budget) budget=${2:?}; shift 2 ;;
    --policy) policy=${2:?}; shift 2 ;;
    --push) push=${2:?}; shift 2 ;;
    --rtgate) rtgate=${2:?}; shift 2 ;;
    --store-inconclusive) store_inconclusive=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; selection+=("$@"); break ;;
    -*) die "unknown option $1 (rtgate run's own options go after the selection, or after --)" ;;
    *) selection+=("$@"); break ;;
  esac
done
[ ${#selection[@]} -gt 0 ] || die "no selection given (e.g. cyclic 'lock.*' tag:smoke)"
[ -z "$baseline" ] || [ -z "$baseline_dir" ] || die "--baseline and --baseline-dir exclude each other"
[ -z "$baseline_kernel" ] || [ -n "$baseline_dir" ] || die "--baseline-kernel needs --baseline-dir"
[ -z "$baseline" ] || [ -f "$baseline" ] || die "--baseline $baseline: no such file"
if [ -z "$rtgate" ]; then
  rtgate=$(command -v rtgate || true)
  [ -n "$rtgate" ] || rtgate="$(dirname "$0")/../build/rtgate"
fi
[ -x "$rtgate" ] || die "no rtgate binary (looked for $rtgate; use --rtgate PATH)"

host=$(hostname)
kernel=$(uname -r)
# Both name folders under --baseline-dir: a name that could climb out of it is refused.
for name in "host name:$host" "kernel release:$kernel" "--baseline-kernel:${baseline_kernel:-x}"; do
  case "${name#*:}" in
    "" | . | *..* | */* | -*) die "the ${name%%:*} '${name#*:}' cannot name a folder under --baseline-dir" ;;
  esac
done
# The key: what makes two results comparable besides the host (selection, parameters, duration
# and runs as given).
key_text="${selection[*]} --duration $duration --runs $runs"
key=$(printf '%s' "$key_text" | sha256sum | cut -c1-16)

if [ -n "$baseline_dir" ]; then
  # The newest stored result (names are UTC timestamps, so they sort by time), of any kernel or
  # of the one asked for; none leaves $baseline empty. awk reads to the end: `head` would leave
  # sort writing into a closed pipe (SIGPIPE, an error under pipefail) past 64 KiB of names.
  # Baselines: passed results (<time>Z.json), and inconclusive ones when asked.
  shopt -s nullglob
  eligible=("*Z.json")
  [ "$store_inconclusive" = 0 ] || eligible+=("*Z.inconclusive.json")
  stored=()
  for pattern in "${eligible[@]}"; do
    stored+=("$baseline_dir/$host/$key"/${baseline_kernel:-*}/$pattern)
  done
  shopt -u nullglob
  if [ ${#stored[@]} -gt 0 ]; then
    baseline=$(for f in "${stored[@]}"; do printf '%s\t%s\n' "${f##*/}" "$f"; done |
               sort -r | awk -F '\t' 'NR == 1 { print $2 }')
    # The baseline kernel's other stored boots are further sessions of the baseline (up to 9
    # more, newest first): the level of a kernel is the mean of its sessions, not of one boot.
    # (A here-document, not a process substitution: a minimal init has no /dev/fd.)
    while IFS= read -r f; do
      [ -z "$f" ] || [ "$f" = "$baseline" ] || [ ${#more_sessions[@]} -ge 9 ] ||
        more_sessions+=("$f")
    done <<EOF
$(for pattern in "${eligible[@]}"; do ls -1 "$(dirname "$baseline")"/$pattern 2>/dev/null; done |
  sort -r)
EOF
  fi
fi

mkdir -p "$artifacts"
args=(run "${selection[@]}" --duration "$duration" --runs "$runs" --no-progress
      -o "$artifacts/result.json" --junit "$artifacts/junit.xml" --textfile "$artifacts"
      --report "$artifacts/report.html")
[ -z "$push" ] || args+=(--push "$push")
if [ -n "$baseline" ]; then
  args+=(--baseline "$baseline")
  for s in "${more_sessions[@]}"; do args+=(--baseline-session "$s"); done
  # Every stored session of this host, selection and parameters, of any kernel: the history the
  # gate learns the between-session noise from.
  [ -z "$baseline_dir" ] || args+=(--history "$baseline_dir/$host/$key")
  [ -z "$policy" ] || args+=(--policy "$policy")
  if [ "$until_decided" = 1 ]; then
    args+=(--until-decided)
    [ -z "$max_runs" ] || args+=(--max-runs "$max_runs")
    [ -z "$budget" ] || args+=(--budget "$budget")
  fi
  echo "gate-kernel.sh: $host, kernel $kernel, against $baseline" >&2
else
  echo "gate-kernel.sh: $host, kernel $kernel: no baseline yet; this run becomes the first" >&2
fi
store="$baseline_dir/$host/$key/$kernel"
if [ "$dry_run" = 1 ]; then
  # rtgate checks the selection, parameters, files and flags as a real run would, and says what
  # it would run; nothing is measured or stored.
  printf '%q ' "$rtgate" "${args[@]}"; echo
  code=0
  "$rtgate" "${args[@]}" --dry-run || code=$?
  [ -z "$baseline_dir" ] || echo "on exit 0: store $artifacts/result.json in $store/"
  exit "$code"
fi

# Evidence from an earlier job in the same folder must not pass for this one's.
rm -f "$artifacts/result.json" "$artifacts/junit.xml" "$artifacts/rtgate.prom" "$artifacts/report.html"
code=0
"$rtgate" "${args[@]}" || code=$?

if [ -n "$baseline_dir" ] && [ -s "$artifacts/result.json" ] &&
   { [ "$code" = 0 ] || [ "$code" = 1 ] || [ "$code" = 3 ]; }; then
  stamp=$(date -u +%Y%m%dT%H%M%S.%NZ)
  case "$code" in
    0) name="$stamp.json" ;;
    3) name="$stamp.inconclusive.json" ;;
    *) name="$stamp.regressed.json" ;;
  esac
  mkdir -p "$store"
  printf '%s\n' "$key_text" > "$baseline_dir/$host/$key/KEY"
  # Atomically: a half-copied file must never be the newest baseline.
  cp "$artifacts/result.json" "$store/.$name.tmp"
  mv "$store/.$name.tmp" "$store/$name"
  if [ "$code" = 0 ] || { [ "$code" = 3 ] && [ "$store_inconclusive" = 1 ]; }; then
    echo "gate-kernel.sh: stored as the new baseline: $store/$name" >&2
  else
    echo "gate-kernel.sh: exit $code: stored for the history, not as a baseline: $store/$name" >&2
  fi
  # The board's history with this session as its newest: change points, this kernel's segment,
  # and whether the baseline was already in a worse one.
  history_args=(history "$baseline_dir/$host/$key" --html "$artifacts/history.html")
  [ -z "$baseline" ] || history_args+=(--baseline "$baseline")
  [ -z "$policy" ] || history_args+=(--policy "$policy")
  hcode=0
  "$rtgate" "${history_args[@]}" >"$artifacts/history.txt" || hcode=$?
  "$rtgate" "${history_args[@]}" --format json >"$artifacts/history.json" 2>/dev/null || true
  sed 's/^/gate-kernel.sh: /' "$artifacts/history.txt" >&2
  if [ "$hcode" = 1 ] && [ "$code" != 1 ]; then
    echo "gate-kernel.sh: the history shows kernel $kernel starts a worse segment: exit 1" >&2
    code=1
  elif [ "$hcode" = 2 ]; then
    echo "gate-kernel.sh: the history could not be judged (above); the gate's exit stands" >&2
  fi
fi
exit "$code"
