#!/usr/bin/env bash
# A virtual board: boot one of Debian's kernels (PREEMPT_RT among them) under QEMU with this
# machine's root file system, run one command inside it, bring back its output and exit code.
#
#   ci/lab/board.sh --kernel KERNEL [OPTIONS] -- COMMAND [ARG...]
#
#   --kernel K     a Debian kernel: package (linux-image-6.1.0-53-rt-amd64-unsigned), release
#                  (6.1.0-53-rt, 6.1.0-53-rt-amd64), package version (6.1.187, 6.1.187-1; the
#                  --flavour picks among the packages of that version) or a .deb file
#   --flavour F    with a version: rt (default), amd64, cloud-amd64
#   --out DIR      the job folder (default ./lab-out): the command runs there, with the same path
#                  inside the guest, writable; console.log and the command's files stay in it
#   --lab DIR      cache for packages, kernels and initramfs (default $RTGATE_LAB_DIR, else
#                  ~/.cache/rtgate-lab)
#   --accel A      auto (default: KVM when a test boot under it reaches init, else TCG), kvm, tcg,
#                  or icount: TCG with time counted in instructions (-icount shift=1,sleep=off:
#                  a virtual ns per 2 instructions, guest time never waits for the host), the
#                  deterministic board. Its latencies are instruction time, not a real board's
#                  microseconds; the guest's cmdline says rtgate_lab.clock=icount1, and results
#                  record the board class "deterministic". One vCPU by default; with --smp N the
#                  others come online after boot (maxcpus=1, then the init), since bringing them
#                  up during boot hangs under icount, and cross-CPU waits are then quantized by
#                  QEMU's round-robin of the vCPUs (steps of about 4 ms)
#   --icount OPTS  with --accel icount, QEMU's -icount options (default shift=1,sleep=off)
#   --smp N, --mem MB   guest CPUs (default 2; 1 under icount) and memory (default 2048)
#   --append ARGS  more kernel command line (isolcpus=1, threadirqs, ...)
#   --hostname H   the guest's host name (default rtgate-lab; ci/gate-kernel.sh keys on it)
#   --timeout S    hard limit for boot, command and power-off (default 900); qemu is killed then
#   --ro-path P    show the guest P (read-only) besides the system, the checkout, the build and
#                  what the command names; the guest's root is a view of the host's, without
#                  /root, /home, /var or /etc's secrets (ci/lab/root-view.sh)
#   --runas U      the user QEMU drops to once its files are open (default $RTGATE_LAB_USER, else
#                  rtgate-lab, made on first use by ci/lab/lab-user.sh); never root
#   --fetch-only   fetch the kernel and build the initramfs, print the kernel release, boot nothing
#
# Inside, a view of the host's / is the root (read-only, with writes kept in guest RAM; without
# /root, /home, /var and /etc's secrets), so the host's build/rtgate, rt-tests, rtla and
# trace-cmd run as they are; PATH starts with the build folder
# ($RTGATE_BUILD_DIR or build) and ci/. The kernel package comes from the Debian archive through
# apt-get download; nothing else is fetched. qemu never outlives this script.
#
# Exit code: the command's own; 2 bad usage; 124 the hard limit was hit; 125 the board could not
# boot or run the command (the reason and the console's tail are printed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "board.sh: $*" >&2; exit 2; }
fail() { echo "board.sh: $*" >&2; exit 125; }
say() { echo "lab: $*" >&2; }

kernel="" flavour=rt out=lab-out lab=${RTGATE_LAB_DIR:-${HOME:-/root}/.cache/rtgate-lab}
accel=auto smp="" mem=2048 append="" guest_host=rtgate-lab limit=900 fetch_only=0
icount_opts=shift=1,sleep=off ro_paths=() runas=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=${2:?}; shift 2 ;;
    --flavour) flavour=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --lab) lab=${2:?}; shift 2 ;;
    --accel) accel=${2:?}; shift 2 ;;
    --icount) icount_opts=${2:?}; shift 2 ;;
    --smp) smp=${2:?}; shift 2 ;;
    --mem) mem=${2:?}; shift 2 ;;
    --append) append=${2:?}; shift 2 ;;
    --hostname) guest_host=${2:?}; shift 2 ;;
    --timeout) limit=${2:?}; shift 2 ;;
    --runas) runas=${2:?}; shift 2 ;;
    --fetch-only) fetch_only=1; shift ;;
    --ro-path) ro_paths+=("$(realpath "${2:?}")"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option $1 (the command goes after --)" ;;
  esac
done
[ -n "$kernel" ] || die "--kernel is required (e.g. --kernel 6.1.0-53-rt)"
[ $# -gt 0 ] || [ "$fetch_only" = 1 ] || die "no command given (after --)"
case "$accel" in auto|kvm|tcg|icount) ;; *) die "--accel $accel: use auto, kvm, tcg or icount" ;; esac
# Under icount one vCPU is the default: two run round-robin, which quantizes every wait across
# CPUs (see --accel above).
[ -n "$smp" ] || { [ "$accel" = icount ] && smp=1 || smp=2; }
[[ "$icount_opts" =~ ^[a-z0-9=,]+$ ]] || die "--icount $icount_opts: QEMU's -icount options"
icount_shift=$(sed -n 's/.*shift=\([0-9a-z]*\).*/\1/p' <<< "$icount_opts")
[[ "$smp" =~ ^[1-9][0-9]*$ ]] || die "--smp $smp: a positive number"
[[ "$mem" =~ ^[1-9][0-9]*$ ]] || die "--mem $mem: megabytes, a positive number"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || die "--timeout $limit: seconds, a positive number"
[[ "$guest_host" =~ ^[A-Za-z0-9.-]+$ ]] || die "--hostname $guest_host: letters, digits, . and -"
for tool in qemu-system-x86_64 dpkg-deb depmod modprobe cpio busybox apt-get python3; do
  command -v "$tool" > /dev/null || fail "$tool not found (ci/setup.sh installs it)"
done

# --- the kernel package -------------------------------------------------------------------------
package_of() {
  local k=$1
  case "$k" in
    *.deb) echo "$k"; return ;;
    linux-image-*) echo "$k"; return ;;
  esac
  if [[ "$k" =~ [a-z]$ ]]; then  # a release ends in its flavour: 6.1.0-53-rt(-amd64)
    echo "linux-image-${k%-amd64}-amd64-unsigned"
    return
  fi
  # A package version: the packages of the flavour whose version starts with it.
  local p
  for p in $(apt-cache search --names-only "^linux-image-[0-9].*-${flavour%-amd64}-amd64-unsigned\$" |
             cut -d' ' -f1); do
    if apt-cache show --no-all-versions "$p" 2> /dev/null | grep -q "^Version: $k"; then
      echo "$p"
      return
    fi
  done
  fail "no $flavour kernel package of version $k in the apt lists (apt-cache search linux-image)"
}

fetch_deb() {
  local pkg=$1 deb
  if [[ "$pkg" == *.deb ]]; then
    [ -f "$pkg" ] || fail "$pkg: no such file"
    echo "$pkg"
    return
  fi
  mkdir -p "$lab/debs"
  deb=$(ls "$lab/debs/${pkg}_"*.deb 2> /dev/null | sort -V | tail -1 || true)
  if [ -z "$deb" ]; then
    if ! apt-cache show "$pkg" > /dev/null 2>&1; then
      apt-get update -qq > /dev/null 2>&1 || true
      apt-cache show "$pkg" > /dev/null 2>&1 || fail "$pkg is not in Debian's apt lists"
    fi
    say "fetching $pkg (apt-get download)"
    (cd "$lab/debs" && apt-get download -qq "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) ||
      true
    deb=$(ls "$lab/debs/${pkg}_"*.deb 2> /dev/null | sort -V | tail -1 || true)
    [ -n "$deb" ] || fail "apt-get download $pkg failed"
  fi
  echo "$deb"
}

pkg=$(package_of "$kernel")
deb=$(fetch_deb "$pkg")
release=$(dpkg-deb -c "$deb" | grep -o 'boot/vmlinuz-[^ ]*$' | head -1 | sed 's|boot/vmlinuz-||')
[ -n "$release" ] || fail "$deb holds no boot/vmlinuz-*: not a kernel image package"
kdir="$lab/kernels/$release"
mkdir -p "$kdir"
# Boards of several checkouts (a CI clone beside a work tree) share the cache: the extraction
# and the initramfs are built under a lock, and each initramfs is named by what it is made of,
# so a boot never gets another checkout's /init and no two builds write one file.
exec {lock_fd}> "$kdir/.lock"
flock "$lock_fd"
if [ ! -f "$kdir/.extracted" ]; then
  rm -rf "$kdir/root"
  dpkg-deb -x "$deb" "$kdir/root"
  depmod -b "$kdir/root" "$release"
  touch "$kdir/.extracted"
fi

# --- the initramfs: busybox, the modules the root needs, /init ----------------------------------
modules=$(for m in virtio_pci 9pnet_virtio 9p overlay; do
            modprobe -d "$kdir/root" -S "$release" --show-depends "$m" 2> /dev/null
          done | awk '$1 == "insmod" && !seen[$2]++ {print $2}')
key=$({ echo "initramfs/1"; echo "$modules"; cat "$here/init" "$(command -v busybox)"; } |
      sha256sum | cut -c1-16)
initrd="$kdir/initramfs-$key.cpio.gz"
if [ ! -f "$initrd" ]; then
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/modules" "$stage/proc" "$stage/sys" "$stage/dev"
  cp "$(command -v busybox)" "$stage/bin/busybox"
  for applet in $(busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$stage/bin/$applet"
  done
  : > "$stage/modules.order"
  for ko in $modules; do
    name=$(basename "$ko")
    case "$ko" in
      *.xz) xz -dc "$ko" > "$stage/modules/${name%.xz}"; name=${name%.xz} ;;
      *.zst) zstd -qdc "$ko" > "$stage/modules/${name%.zst}"; name=${name%.zst} ;;
      *) cp "$ko" "$stage/modules/$name" ;;
    esac
    echo "$name" >> "$stage/modules.order"
  done
  grep -q '^9p.ko$' "$stage/modules.order" || {
    # Built in, not modules: nothing to load, which is fine; a kernel with neither cannot boot here.
    grep -q 'CONFIG_9P_FS=y' "$kdir/root/boot/config-$release" ||
      fail "$release has no 9p file system (CONFIG_9P_FS): it cannot mount the host's root"
  }
  cp "$here/init" "$stage/init"
  chmod 755 "$stage/init"
  tmp=$(mktemp "$kdir/.initramfs.XXXXXX")
  (cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp"
  chmod 644 "$tmp"
  mv "$tmp" "$initrd"
  rm -rf "$stage"
fi
# initramfs.cpio.gz names the newest build, for what takes the files by path (ci/lava/lab/).
ln -sfn "$(basename "$initrd")" "$kdir/.initramfs.link"
mv -T "$kdir/.initramfs.link" "$kdir/initramfs.cpio.gz"
flock -u "$lock_fd"
vmlinuz="$kdir/root/boot/vmlinuz-$release"
if [ "$fetch_only" = 1 ]; then
  echo "$release"
  exit 0
fi

# --- one boot -----------------------------------------------------------------------------------
# A kernel under test is untrusted. What the host reads or writes during a boot (qemu's pid
# file, the monitor's FIFOs, the console and qemu's log) lives in a folder of its own that the
# guest never sees, and so does the guest's writable share: a copy of the job folder, whose
# regular files and folders come back into the job folder once the guest is off, and nothing
# else (ci/lab/share_sync.py: no links, FIFOs or devices, a bounded size). The scripts around
# board.sh then never meet a link the guest planted. The share is 9p's mapped-xattr: the guest's
# owners, modes and device nodes are attributes on the host, never a set-id file or a device.
# Files the guest wrote are read with guest_file (no link followed, regular files only, bounded);
# the host writes into the job folder with publish (never through a link).
runas=$("$here/lab-user.sh" ${runas:+"$runas"}) || exit 2
ctl=$(mktemp -d "${TMPDIR:-/tmp}/rtgate-board.XXXXXX")
qpid=""
cleanup() {
  if [ -n "$qpid" ] && kill -0 "$qpid" 2> /dev/null; then
    kill "$qpid" 2> /dev/null || true
    sleep 1
    kill -9 "$qpid" 2> /dev/null || true
  fi
  # timeout(1) runs qemu as its child: make sure neither is left. The pid file is the host's own,
  # and only a number is a pid (kill -9 -1 would reach every process).
  local pid=""
  [ -f "$ctl/qemu.pid" ] && pid=$(head -c 16 "$ctl/qemu.pid" | tr -dc 0-9)
  [ -z "$pid" ] || [ "$pid" -le 1 ] || kill -9 "$pid" 2> /dev/null || true
  rm -rf "$ctl"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# guest_file PATH [BYTES]: PATH's content when it is a regular file, not a link, in a folder that
# is not a link either (the guest can replace any of them), cut at BYTES (default 16 MiB).
guest_file() {
  local path=$1 max=${2:-16777216}
  [ -f "$path" ] && [ ! -L "$path" ] && [ ! -L "$(dirname "$path")" ] || return 1
  dd if="$path" iflag=nofollow,count_bytes count="$max" status=none
}

# publish SRC DST: the host's file SRC copied to DST in the job folder. Whatever the guest left
# at DST (a link, a FIFO, a folder) is removed first, and the copy is created anew (noclobber:
# O_EXCL), so it never lands where a link points. DST's folder must not be a link.
publish() {
  local src=$1 dst=$2
  [ ! -L "$(dirname "$dst")" ] && [ -d "$(dirname "$dst")" ] || return 1
  rm -rf -- "$dst"
  (set -C; cat -- "$src" > "$dst")
}

# dropped: false while the QEMU of this boot still runs as root. QEMU writes its pid file, then
# opens its files and the shares, then drops to $runas (-runas), before the guest's first
# instruction. That setuid is why -sandbox allows "elevateprivileges": from then on QEMU holds
# no capability and cannot become root again (no_new_privs, and its saved uid is $runas's).
dropped() {
  local pid="" uid="" i
  for ((i = 0; i < 300; i++)); do
    [ -z "$pid" ] && [ -f "$ctl/qemu.pid" ] && pid=$(head -c 16 "$ctl/qemu.pid" | tr -dc 0-9)
    if [ -n "$pid" ]; then
      uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$pid/status" 2> /dev/null) || uid=""
      [ -n "$uid" ] || return 0      # already ended: nothing runs as root
      [ "$uid" = 0 ] || { say "qemu runs as $runas (uid $uid)"; return 0; }
    fi
    kill -0 "$qpid" 2> /dev/null || return 0
    sleep 0.1
  done
  return 1
}

# boot JOBDIR ACCEL SECONDS: the guest runs JOBDIR/.lab/cmd; returns timeout(1)'s code.
boot() {
  local dir=$1 how=$2 secs=$3 cpu=max clock=""
  local accel_args=(-accel "$how")
  [ "$how" = kvm ] && cpu=host
  if [ "$how" = icount ]; then
    accel_args=(-accel tcg -icount "$icount_opts")
    clock="rtgate_lab.clock=icount$icount_shift"
    # The other vCPUs, brought up at boot, never ran: the first spun waiting for them with no
    # timer to end its round-robin slice. Up after boot, with timers running, they do.
    [ "$smp" -gt 1 ] && clock+=" maxcpus=1 rtgate_lab.online=all"
  fi
  rm -f "$ctl/qemu.pid" "$ctl/monitor.in" "$ctl/monitor.out" "$ctl/console.log"
  mkfifo -m 600 "$ctl/monitor.in" "$ctl/monitor.out"
  # The guest gets a copy of the job folder, and what it changed comes back once it is off.
  rm -rf "$ctl/share"
  python3 "$here/share_sync.py" copy-in "$dir" "$ctl/share" || fail "cannot copy $dir for the guest"
  chown -R "$runas:" "$ctl/share"
  # In a subshell whose messages go to the log: a qemu ended by the limit is not our stderr's news.
  # The guest's root is a view of the host's (root-view.sh), in QEMU's own mount namespace.
  (timeout --kill-after=5 "$secs" unshare --mount --propagation private -- \
    "$here/root-view.sh" "$ctl/root" "${view_paths[@]}" -- qemu-system-x86_64 \
    "${accel_args[@]}" -cpu "$cpu" -smp "$smp" -m "$mem" -no-reboot -display none \
    -monitor "pipe:$ctl/monitor" -runas "$runas" \
    -sandbox on,obsolete=deny,elevateprivileges=allow,spawn=deny \
    -nic none -serial "file:$ctl/console.log" -pidfile "$ctl/qemu.pid" \
    -kernel "$vmlinuz" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init sysrq_always_enabled rtgate_lab.out=$dir rtgate_lab.host=$guest_host $clock $append" \
    -virtfs "local,path=$ctl/root,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$ctl/share,mount_tag=out,security_model=mapped-xattr,multidevs=remap"; exit $?) \
    > "$ctl/qemu.log" 2>&1 &
  qpid=$!
  dropped || { kill "$qpid" 2> /dev/null; wait "$qpid" 2> /dev/null; fail "qemu still runs as root: stopped"; }
  # A job that hangs must leave evidence: 20 s before the limit, SysRq on the emulated keyboard
  # raises the console log level, then lists the blocked tasks and each CPU's backtrace. The
  # kernel answers from its keyboard interrupt, whatever user space is doing.
  local dumper=""
  if [ "$secs" -gt 60 ]; then
    (for ((i = 20; i < secs; i++)); do sleep 1; kill -0 "$qpid" 2> /dev/null || exit 0; done
      for key in 8 w l; do
        timeout 5 sh -c "printf 'sendkey alt-sysrq-$key\n' > '$ctl/monitor.in'" || exit 0
        sleep 3
      done) &
    dumper=$!
  fi
  local code=0
  wait "$qpid" || code=$?
  qpid=""
  [ -z "$dumper" ] || { kill "$dumper" 2> /dev/null; wait "$dumper" 2> /dev/null; } || true
  python3 "$here/share_sync.py" import "$ctl/share" "$dir" || say "cannot bring the guest's files back"
  publish "$ctl/console.log" "$dir/console.log" || say "cannot copy the console log into $dir"
  return "$code"
}

prepare_job() {  # DIR PATH-INSIDE, then the command in the remaining arguments
  local dir=$1 path=$2
  shift 2
  rm -rf "$dir/.lab" "$dir/console.log"
  mkdir "$dir/.lab"
  printf '%s\n' "$path" > "$dir/.lab/path"
  { printf 'exec'; printf ' %q' "$@"; printf '\n'; } > "$dir/.lab/cmd"
}

mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ "$out" =~ ^[A-Za-z0-9._/+-]+$ ]] || die "--out $out: the path may hold only letters, digits and ._/+-"
# $RTGATE_BUILD_DIR is often relative to the checkout (ci/test.sh exports "build"), and the
# caller's directory may be anywhere (ctest runs in the build tree): resolve it from either.
guest_path="$repo/build:$repo/ci"
for d in "${RTGATE_BUILD_DIR:-}" "$repo/${RTGATE_BUILD_DIR:-}"; do
  if [ -n "${RTGATE_BUILD_DIR:-}" ] && [ -d "$d" ]; then
    guest_path="$(cd "$d" && pwd):$guest_path"
    break
  fi
done
guest_path+=":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# What of the host's tree the guest sees besides the system (root-view.sh): the checkout, the
# build, the lab cache's pinned binaries, each --ro-path, and every existing path the command
# names (a module to load, a policy file, a pinned rtgate): a folder named is shown whole, a file
# with its folder, except where that folder is a home or the system's own, or closed to others
# (then the file alone: QEMU reads the view as $runas, through folders of the view's own).
sensitive() { case "$1" in / | /root | /home | /home/* | /var | /proc* | /sys* | /dev* | /run*) [[ "$1" != /home/*/* ]] ;; *) return 1 ;; esac; }
open_to_all() { [ -n "$(find "$1" -maxdepth 0 \( -type d -perm -o=rx -o ! -type d -perm -o=r \) 2> /dev/null)" ]; }
view_paths=("$repo" "$lab/bin" "${ro_paths[@]}")
IFS=: read -ra gp <<< "$guest_path"
view_paths+=("${gp[@]}")
while IFS= read -r w; do
  [ -e "$w" ] || continue
  if [ -d "$w" ]; then
    sensitive "$w" || view_paths+=("$w")
  elif sensitive "$(dirname "$w")" || ! open_to_all "$(dirname "$w")"; then
    view_paths+=("$w")
  else
    view_paths+=("$(dirname "$w")")
  fi
done < <(printf '%s\n' "$@" | grep -o '/[A-Za-z0-9._/+-]*' | sort -u)
for w in "${view_paths[@]}"; do
  [ ! -e "$w" ] || open_to_all "$w" || say "the guest cannot read $w: closed to others, and QEMU runs as $runas"
done

if [ "$accel" = auto ]; then
  accel=tcg
  why="no usable /dev/kvm"
  if [ -w /dev/kvm ]; then
    # Nested KVM can hang right after real-mode setup: a test boot must reach init. Its answer
    # holds for this initramfs of this kernel and this host boot.
    probe_file="$kdir/kvm-probe.$key.$(cat /proc/sys/kernel/random/boot_id 2> /dev/null || echo unknown)"
    if [ ! -f "$probe_file" ]; then
      say "testing KVM with a short boot (once per kernel and host boot)"
      probe=$(mktemp -d "$lab/probe.XXXXXX")
      prepare_job "$probe" "$guest_path" true
      boot "$probe" kvm 25 || true
      if [ -f "$probe/.lab/exit" ]; then echo works > "$probe_file"; else echo hung > "$probe_file"; fi
      rm -rf "$probe"
    fi
    if [ "$(cat "$probe_file")" = works ]; then
      accel=kvm why="/dev/kvm works"
    else
      why="/dev/kvm is there, but a test boot under it failed or never reached init"
      why+=" (nested KVM)"
    fi
  fi
  say "accelerator: $accel ($why)"
else
  say "accelerator: $accel (as asked)"
fi

prepare_job "$out" "$guest_path" "$@"
say "booting $release (from $(basename "$deb")), $smp CPUs, $mem MB, limit ${limit}s; job folder $out"
t0=$(date +%s.%N)
code=0
boot "$out" "$accel" "$limit" || code=$?
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')

guest_file "$out/.lab/stdout" || true
guest_file "$out/.lab/stderr" >&2 || true
if [ "$code" = 124 ] || [ "$code" = 137 ]; then
  say "hard limit of ${limit}s reached: qemu killed; console tail (SysRq w and l near the end):"
  tail -n 80 "$ctl/console.log" >&2 || true
  exit 124
fi
rc=$(guest_file "$out/.lab/exit" 16 | tr -dc 0-9 || true)
if [ -z "$rc" ] || [ "$rc" -gt 255 ]; then
  say "the board did not run the command (qemu exit $code); console tail:"
  tail -n 25 "$ctl/console.log" >&2 || true
  tail -n 5 "$ctl/qemu.log" >&2 || true
  exit 125
fi
rc=$((10#$rc))
say "$release under ${accel^^}: boot, command and power-off in ${secs}s; command exit $rc"
exit "$rc"
