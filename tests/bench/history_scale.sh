#!/usr/bin/env bash
# What `rtgate history` costs at lab scale (the requirement: 1,000 sessions of a 1,000-case
# selection read and judged in under 10 s and 1 GB): bench_history_gen writes a host's history of
# 100 and of SESSIONS results of a CASES-case selection, 5 runs each, as `run -o` writes them;
# then `rtgate history DIR --format json` runs twice on each, under /usr/bin/time -v, and
# bench_history_phases once: the same reading with ReadOptions::history_only (what the history
# needs), on every core as the CLI reads, and the time of each phase.
#
#   tests/bench/history_scale.sh [SESSIONS] [CASES] [RTGATE_BINARY] [GENERATOR]
#
# Prints per history: the files' count and total bytes (and the generator's time), then per run
# the wall time, user and system CPU, peak RSS and exit status, the sessions, series and outcome
# the history reports, and the phases (judge, JSON, dump) of the history_only run. At 100
# sessions, also the full and the history_only read's time a file and whether both make the same
# history. The first CLI run's JSON goes to a file (to count those), the second to /dev/null.
# Nothing is dropped from the page cache: the files were just written, so both runs read them
# from memory, and the figures are of parsing and judging, not of the disk. The machine's load
# average is printed with them. The data (about 2.7 MB a session at 1,000 cases) lives in a
# temporary directory removed at the end; the script stops before generating when it would pass
# 20 GB or the free space there. bench_history_phases is GENERATOR's neighbour.
set -euo pipefail
cd "$(dirname "$0")/../.."
SESSIONS=${1:-1000}
CASES=${2:-1000}
RTGATE=${3:-build/rtgate}
GEN=${4:-build/bench_history_gen}
PHASES=$(dirname "$GEN")/bench_history_phases
LIMIT_BYTES=$((20 * 1000 * 1000 * 1000))
for tool in jq "$RTGATE" "$GEN" "$PHASES" /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (build its target)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# One session's size, and what SESSIONS and 100 sessions need against the limit and free space.
"$GEN" "$work/probe" --sessions 1 --cases "$CASES" >"$work/probe.out"
per_session=$(awk '$1 == "bytes" {print $2}' "$work/probe.out")
rm -rf "$work/probe"
need=$((per_session * (SESSIONS + 100)))
free=$(df -PB1 "$work" | awk 'NR == 2 {print $4}')
echo "one session of $CASES cases: $(mb "$per_session") MB; $SESSIONS + 100 sessions need" \
  "$(mb "$need") MB ($(mb "$free") MB free in $(dirname "$work"))"
if [ "$need" -gt "$LIMIT_BYTES" ] || [ "$need" -gt "$free" ]; then
  echo "too large: not generated (limit 20 GB and the free space)" >&2
  exit 1
fi

# "NAME VALUE" lines of /usr/bin/time -v's output: wall seconds, user, sys, peak RSS in MB.
time_figures() {  # file
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; wall = s }
    /User time/ { user = $2 } /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 / 1024 }
    END { printf "%.2f %.2f %.2f %.0f\n", wall, user, sys, rss }' "$1"
}

for n in 100 "$SESSIONS"; do
  dir="$work/history-$n"
  "$GEN" "$dir" --sessions "$n" --cases "$CASES" >"$work/gen.out"
  files=$(find "$dir" -name '*.json' | wc -l)
  bytes=$(awk '$1 == "bytes" {print $2}' "$work/gen.out")
  printf '\n%s sessions of %s cases: %s files, %s MB (generated in %s s)\n' "$n" "$CASES" \
    "$files" "$(mb "$bytes")" "$(awk '$1 == "seconds" {print $2}' "$work/gen.out")"
  echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '  %-24s %8s %8s %8s %9s %5s\n' run wall_s user_s sys_s rss_mb exit
  row() {  # name exit
    read -r wall user sys rss < <(time_figures "$work/time.txt")
    printf '  %-24s %8s %8s %8s %9s %5s\n' "$1" "$wall" "$user" "$sys" "$rss" "$2"
  }
  for run in 1 2; do
    out=/dev/null
    [ "$run" = 1 ] && out="$work/history.json"
    rc=0
    /usr/bin/time -v -o "$work/time.txt" "$RTGATE" history "$dir" --format json >"$out" || rc=$?
    row "rtgate history ($run)" "$rc"
  done
  rc=0
  /usr/bin/time -v -o "$work/time.txt" "$PHASES" "$dir" --threads "$(nproc)" >"$work/phases.out" ||
    rc=$?
  row "history_only, $(nproc) readers" "$rc"
  jq -r '"  history: \(.sessions | length) sessions, \(.series | length) series, "
         + "\(.kernels | length) kernels, outcome \(.outcome) (\(.reason))"' "$work/history.json"
  echo "  its JSON: $(mb "$(stat -c %s "$work/history.json")") MB"
  echo "  history_only run's phases:"
  grep -E '^(read and add|judge|history_json|dump|peak)' "$work/phases.out" | sed 's/^/    /'
  if [ "$n" = 100 ]; then
    echo "  one thread, history_only and full:"
    "$PHASES" "$dir" --check | grep -E '^(read_report_file|HistoryBuilder|full read|history_only)' |
      sed 's/^/    /'
  fi
  rm -rf "$dir" "$work/history.json"
done
