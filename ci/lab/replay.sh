#!/usr/bin/env bash
# Record a measured boot of the deterministic board and replay it, instruction for instruction.
#
#   ci/lab/replay.sh --kernel K [--out DIR] [--timeout S] [--no-replay] -- RTGATE-RUN-ARGS...
#
# The board boots a root of its own (an initramfs holding busybox, rtgate and its libraries:
# ci/lab/replay-init), so the boot reads nothing from the host while it runs: QEMU's
# record/replay cannot replay 9p, and the host's I/O is what made the shared-root boots differ.
# It runs `rtgate run RTGATE-RUN-ARGS -o result.json` under
# `-icount shift=1,rr=record` with `idle=poll` on the guest's command line. The guest then never
# halts, so its clock is its instruction count and nothing else: QEMU's `sleep=off`, which the
# shared-root board uses for the same end, hangs a recording before the firmware prints a line.
# The replay runs the same boot from the recording and must give the same console and the same
# result, byte for byte. DIR keeps replay.bin (the recording), the console logs, result.json,
# the run's output and the guest's kallsyms (for naming addresses in the replay).
#
# Exit: 0 replayed exactly (or recorded, with --no-replay), 1 the replay differed, 2 usage,
# 125 the boot failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "replay.sh: $*" >&2; exit 2; }
fail() { echo "replay.sh: $*" >&2; exit 125; }
say() { echo "replay: $*" >&2; }

kernel="" out=lab-replay limit=900 replay=1 mem=1024
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --timeout) limit=${2:?}; shift 2 ;;
    --mem) mem=${2:?}; shift 2 ;;
    --no-replay) replay=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option $1 (rtgate's arguments go after --)" ;;
  esac
done
[ -n "$kernel" ] || die "--kernel is required (e.g. --kernel 6.1.0-53-rt)"
[ $# -gt 0 ] || die "no rtgate run arguments after -- (e.g. -- cyclic --runs 3 --duration 2)"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || die "--timeout $limit: seconds, a positive number"
[[ "$mem" =~ ^[1-9][0-9]*$ ]] || die "--mem $mem: megabytes, a positive number"
rtgate=$(command -v rtgate 2> /dev/null || echo "$repo/${RTGATE_BUILD_DIR:-build}/rtgate")
[ -x "$rtgate" ] || die "no rtgate binary (build it, or put it on PATH)"
for tool in qemu-system-x86_64 busybox cpio strip ldd; do
  command -v "$tool" > /dev/null || fail "$tool not found (ci/setup.sh installs it)"
done

release=$("$here/board.sh" --kernel "$kernel" --fetch-only)
vmlinuz="${RTGATE_LAB_DIR:-${HOME:-/root}/.cache/rtgate-lab}/kernels/$release/root/boot/vmlinuz-$release"
[ -f "$vmlinuz" ] || fail "no kernel image at $vmlinuz"
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/record" "$out/replay" "$out/replay.bin"
mkdir -p "$out/record" "$out/replay"

# --- the root: busybox, rtgate and the libraries it loads, the job -------------------------------
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,usr/bin,proc,sys,dev,tmp,out}
cp "$(command -v busybox)" "$stage/bin/busybox"
for applet in $(busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$stage/bin/$applet"; done
strip -o "$stage/usr/bin/rtgate" "$rtgate"
for lib in $(ldd "$rtgate" | grep -o '/[^ ]*'); do
  mkdir -p "$stage$(dirname "$lib")"
  cp -L "$lib" "$stage$lib"
done
install -m 755 "$here/replay-init" "$stage/init"
{ printf 'exec rtgate run'; printf ' %q' "$@"; printf ' -o result.json\n'; } > "$stage/job"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.cpio.gz"

# boot MODE DIR: one boot under record or replay; the console and the second port in DIR.
boot() {
  timeout --kill-after=5 "$limit" qemu-system-x86_64 \
    -accel tcg -icount "shift=1,rr=$1,rrfile=$out/replay.bin" -cpu max -smp 1 -m "$mem" \
    -no-reboot -display none -nic none -monitor none \
    -serial "file:$2/console.log" -serial "file:$2/port1.log" \
    -kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init nokaslr idle=poll" \
    > "$2/qemu.log" 2>&1
}

# unpack DIR: the job folder out of the second port's stream. The guest wrote that stream: at
# most 1 GiB of it is unpacked, owners and set-id bits are not taken, and only regular files
# and folders are kept (a link the guest packed would have the host read or copy through it).
unpack() {
  tr -d '\r' < "$1/port1.log" | sed -n '/^rtgate-replay-begin$/,/^rtgate-replay-end$/p' |
    sed '1d;$d' | base64 -d | head -c 1073741824 |
    tar xzf - -C "$1" --no-same-owner --no-same-permissions 2> /dev/null
  local code=$?
  find "$1" -mindepth 1 ! -type f ! -type d -delete
  chmod -R u-s,g-s "$1"
  return "$code"
}

t0=$SECONDS
boot record "$out/record" || fail "the recorded boot failed (qemu exit $?): $(tail -n 3 "$out/record/console.log")"
unpack "$out/record" || fail "the recorded boot gave no job folder; console tail: $(tail -n 5 "$out/record/console.log")"
say "recorded $release in $((SECONDS - t0)) s: $(du -h "$out/replay.bin" | cut -f1) of recording, rtgate exit $(cat "$out/record/exit")"
cat "$out/record/stdout"
cp "$out/record/result.json" "$out/record/kallsyms" "$out/" 2> /dev/null || true
[ "$replay" = 1 ] || exit 0

t0=$SECONDS
boot replay "$out/replay" || fail "the replay failed (qemu exit $?): $(tail -n 3 "$out/replay/qemu.log")"
unpack "$out/replay" || true
if cmp -s "$out/record/console.log" "$out/replay/console.log" &&
   cmp -s "$out/record/port1.log" "$out/replay/port1.log"; then
  say "replayed in $((SECONDS - t0)) s: the same console and the same result, byte for byte"
  exit 0
fi
say "the replay differed from the recording (diff $out/record $out/replay)"
exit 1
