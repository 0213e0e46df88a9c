#!/usr/bin/env bash
# What `rtgate history --prometheus` costs at lab scale, against `rtgate history` over the same
# files: bench_history_gen writes SESSIONS results of a CASES-case selection (an hour apart, a
# kernel every 10 sessions); each is exported (`rtgate export --textfile`), the families a history
# reads are stamped with the session's time (shifted to end an hour ago) and backfilled into a
# fresh TSDB (`promtool tsdb create-blocks-from openmetrics`), which Debian's prometheus serves on
# a free loopback port. Then both readings run under /usr/bin/time -v.
#
#   tests/bench/history_prometheus_scale.sh [SESSIONS] [CASES] [RTGATE] [GENERATOR]
#
# Prints the series a session exports for the history (its label cardinality), the backfill's
# time, and per reading the wall time, CPU, peak RSS, exit code, sessions, series and change
# points; then whether the two agree; then the same for `rtgate gate` of the newest session against
# the one before, its history as files (--history) and in Prometheus (--prometheus). The data
# lives in a temporary directory removed at the end; with RTGATE_BENCH_KEEP=DIR it lives in DIR,
# stays, and a DIR that already holds it is read again without being made anew.
set -euo pipefail
cd "$(dirname "$0")/../.."
SESSIONS=${1:-1000}
CASES=${2:-1000}
RTGATE=$(realpath "${3:-build/rtgate}")
GEN=${4:-build/bench_history_gen}
for tool in jq prometheus promtool "$RTGATE" "$GEN" /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }
done
prom=""
if [ -n "${RTGATE_BENCH_KEEP:-}" ]; then
  work=$RTGATE_BENCH_KEEP
  mkdir -p "$work"
  trap '[ -z "$prom" ] || kill "$prom" 2>/dev/null' EXIT
else
  work=$(mktemp -d)
  trap '[ -z "$prom" ] || kill "$prom" 2>/dev/null; rm -rf "$work"' EXIT
fi

make_data() {
t0=$SECONDS
"$GEN" "$work/files" --sessions "$SESSIONS" --cases "$CASES" > /dev/null
echo "$SESSIONS sessions of $CASES cases: $(du -sh "$work/files" | cut -f1) generated in $((SECONDS - t0)) s"

# Each session's families a history reads, stamped with its time, one file per family.
families="rtgate_run_timestamp_seconds rtgate_boot_key rtgate_suite_contaminated rtgate_history_point rtgate_history_point_variance rtgate_history_point_spread rtgate_history_point_spread_df"
mkdir -p "$work/om" "$work/tf"
t0=$SECONDS
last=$(find "$work/files" -name '*.json' | sort | tail -1)
shift_s=$(( $(date -d "$(jq -r .finished_at "$last")" +%s) - $(date +%s) + 3600 ))
export RTGATE work shift_s families
find "$work/files" -name '*.json' | sort | xargs -P "$(nproc)" -I{} sh -c '
  f=$1; d="$work/tf/$(basename "$f" .json)"; mkdir -p "$d"
  "$RTGATE" export "$f" --textfile "$d" > /dev/null
  t=$(( $(date -d "$(jq -r .finished_at "$f")" +%s) - shift_s ))
  awk -v t="$t" -v fams="$families" -v out="$d" "
    BEGIN { n = split(fams, a, \" \"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    /^#/ { next }
    { name = \$1; sub(/\\{.*/, \"\", name); if (name in want) print \$0, t > (out \"/\" name) }
  " "$d/rtgate.prom"
  rm "$d/rtgate.prom"' _ {}
{
  for fam in $families; do
    echo "# TYPE $fam gauge"
    find "$work/tf" -name "$fam" | sort | xargs cat
  done
  echo "# EOF"
} > "$work/om.txt"
per_session=$(( $(grep -vc '^#' "$work/om.txt") / SESSIONS ))
echo "exported and stamped in $((SECONDS - t0)) s: $per_session series a session for the history" \
  "($(du -h "$work/om.txt" | cut -f1) of OpenMetrics)"
rm -rf "$work/tf"

t0=$SECONDS
# One block over the whole span: promtool reads the input again for each block it writes.
/usr/bin/time -v -o "$work/promtool.time" promtool tsdb create-blocks-from openmetrics \
  --max-block-duration="$(( SESSIONS + 48 ))h" \
  "$work/om.txt" "$work/tsdb" > /dev/null
echo "backfilled in $((SECONDS - t0)) s, peak $(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$work/promtool.time") MB"
rm -f "$work/om.txt"
}
[ -d "$work/tsdb" ] || make_data

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global: {}\n' > "$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" > "$work/prom.log" 2>&1 &
prom=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null && break; sleep 0.2; done

figures() {
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; wall = s }
    /User time/ { user = $2 } /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 / 1024 }
    END { printf "%.2f s wall, %.2f s user, %.2f s sys, %.0f MB peak", wall, user, sys, rss }' "$1"
}
summary() { jq -r '"\(.sessions | length) sessions, \(.series | length) series, \([.series[].change_points | length] | add) change points, outcome \(.outcome)"' "$1"; }
days=$(( (SESSIONS / 24) + 3 ))
for how in files prometheus; do
  args=("$work/files")
  [ "$how" = prometheus ] && args=(--prometheus "http://127.0.0.1:$port" --since "${days}d")
  rc=0
  /usr/bin/time -v -o "$work/$how.time" "$RTGATE" history "${args[@]}" --format json > "$work/$how.json" || rc=$?
  echo "$how: exit $rc, $(figures "$work/$how.time"); $(summary "$work/$how.json")"
done
same=$(jq -n --slurpfile a "$work/files.json" --slurpfile b "$work/prometheus.json" '
  def cp(d): [d.series[] | {k: "\(.suite)/\(.case)/\(.metric)/\(.statistic)", c: [.change_points[].session]}] | sort_by(.k);
  ($a[0].exit_code == $b[0].exit_code) and (cp($a[0]) == cp($b[0]))')
echo "the same exit code and change points: $same"

newest=$(find "$work/files" -name '*.json' | sort | tail -2)
for how in files prometheus; do
  args=(--history "$work/files")
  [ "$how" = prometheus ] && args=(--prometheus "http://127.0.0.1:$port" --since "${days}d")
  rc=0
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$work/gate-$how.time" "$RTGATE" gate $newest "${args[@]}" --format json > "$work/gate-$how.json" || rc=$?
  echo "gate, $how: exit $rc, $(figures "$work/gate-$how.time"); $(jq -r .session_noise "$work/gate-$how.json")"
done
same=$(jq -n --slurpfile a "$work/gate-files.json" --slurpfile b "$work/gate-prometheus.json" '
  def v(d): [d.suites[].metrics[]];
  v($a[0]) == v($b[0])')
echo "the gate's verdicts and figures alike: $same"
