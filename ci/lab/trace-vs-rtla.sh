#!/usr/bin/env bash
# rtgate's worst-sample analysis against rtla's timerlat auto-analysis, on the virtual board's
# RT kernel, with a known cause injected: a SCHED_FIFO 98 hog (stress-ng, duty-cycled in long
# slices) on the measured CPU, above both measuring threads (rtgate cyclic's and the timerlat
# thread, FIFO 95). Each repetition is one boot that runs, while the hog runs:
#   rtgate run cyclic -p cpus=C --trace     -> the worst sample's largest part (a task, by name)
#   rtla timerlat top -c C --aa-only US     -> the auto-analysis's largest blocking/interfering task
# and the table says whether both named the hog.
#
#   ci/lab/trace-vs-rtla.sh [--kernel K] [--reps N] [--cpu C] [--out DIR]
#
# Debian 12's rtla (6.1) predates the auto-analysis (rtla 6.3); bookworm-backports has rtla 6.12,
# which runs on bookworm's libtracefs. It is fetched with apt-get download through a private
# apt configuration under the lab cache (the host's apt sources are left as they are; the
# archive's signatures are checked with the host's Debian keyring) and run from there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel=6.1.0-53-rt reps=3 cpu=1 out=lab-trace-vs-rtla
lab=${RTGATE_LAB_DIR:-${HOME:-/root}/.cache/rtgate-lab}
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=${2:?}; shift 2 ;;
    --reps) reps=${2:?}; shift 2 ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "trace-vs-rtla.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

# rtla from bookworm-backports, through apt with its own sources list and state.
fetch_rtla() {
  local apt="$lab/apt-backports" bin="$lab/rtla-backports/usr/bin/rtla"
  [ -x "$bin" ] && { echo "$bin"; return; }
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$lab/rtla-backports"
  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\n%s\n%s\n' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
    > "$apt/backports.sources"
  local opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt/parts"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Get::List-Cleanup=0")
  mkdir -p "$apt/parts"
  cp "$apt/backports.sources" "$apt/parts/backports.sources"
  apt-get "${opts[@]}" update -qq >&2
  (cd "$lab/rtla-backports" && apt-get "${opts[@]}" download -qq rtla/bookworm-backports 2>&1 |
     grep -v 'unsandboxed' >&2 || true)
  local deb
  deb=$(ls "$lab/rtla-backports"/rtla_*.deb | tail -1)
  dpkg-deb -x "$deb" "$lab/rtla-backports"
  echo "$bin"
}
rtla=$(fetch_rtla)
echo "rtla: $("$rtla" --version 2>&1 | head -1) ($rtla)" >&2

mkdir -p "$out"
out=$(cd "$out" && pwd)
cat > "$out/guest.sh" << EOF
# The hog: FIFO 98 on CPU $cpu, 20 ms busy slices at 30% load (stress-ng's own duty cycle).
stress-ng --cpu 1 --cpu-load 30 --cpu-load-slice 20 --taskset $cpu --sched fifo --sched-prio 98 \
  --timeout 60 > hog.log 2>&1 &
hog=\$!
sleep 2
rtgate run cyclic -p cpus=$cpu --trace --duration 5 --no-progress -o cyclic.json > cyclic.log 2>&1
# Stop at the first thread latency over 100 ms: only the hog's slices reach that (they hold the
# CPU 200-800 ms under TCG); at 5 ms, an exit from idle under a loaded host once stopped it first.
# --aa-only: the analysis without saving the trace (-a writes all of it to the job folder, which
# took over 4 minutes over 9p under TCG).
$rtla timerlat top -c $cpu --aa-only 100000 -d 30 -q > rtla.txt 2>&1
kill \$hog 2> /dev/null
wait
EOF

printf 'rep\trtgate_worst_us\trtgate_top_part\trtla_blocking_thread\tsame\n' > "$out/summary.tsv"
for r in $(seq 1 "$reps"); do
  "$here/board.sh" --kernel "$kernel" --out "$out" --timeout 300 -- sh guest.sh > "$out/board.log" 2>&1 ||
    { cat "$out/board.log" >&2; exit 125; }
  mkdir -p "$out/rep-$r"
  cp "$out"/{cyclic.json,cyclic.log,rtla.txt,hog.log,console.log} "$out/rep-$r/" 2> /dev/null || true
  # The worst sample's largest traced part: a sample whose delay began before the trace did
  # (the hog already running at the start) has an "untraced" head, which names nothing.
  ours=$(jq -r '[.suites[0].cases[0].analysis // [] | .[] ] | max_by(.latency_ns) |
                ([.parts[] | select(.kind != "untraced")] | max_by(.ns)) as $top |
                "\(.latency_ns / 1000 | floor)\t\($top.kind):\($top.name)"' "$out/cyclic.json")
  # rtla's culprit: the task with the most time among the "Blocking thread" (the task current
  # when the timer fired: "<comm>:<pid> <time> us" on the next line) and the "Thread
  # interference" entries (tasks that ran between the IRQ and the timerlat thread). The blocking
  # thread alone is often the idle task (swapper/N) when the hog woke after the timer fired.
  theirs=$(awk '
    function take(line,   f, n, a) {
      n = split(line, f, " ")
      if (n >= 3 && f[n] == "us") {
        split(f[1], a, ":")
        if (a[1] != "" && f[n-1] + 0 > best) { best = f[n-1] + 0; name = a[1] }
      }
    }
    /Blocking thread:/ { getline; take($0); next }
    /Thread interference/ { in_thread = 1; next }
    in_thread && (/^-+/ || /^  [A-Z]/) { in_thread = 0 }
    in_thread { take($0) }
    END { print name }' "$out/rtla.txt")
  top=$(echo "$ours" | cut -f2)
  same=no
  [ -n "$theirs" ] && [ "${top#task:}" = "$theirs" ] && same=yes
  printf '%s\t%s\t%s\n' "$r" "$ours" "${theirs:-none}	$same" >> "$out/summary.tsv"
done
column -t -s $'\t' "$out/summary.tsv"
