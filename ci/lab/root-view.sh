#!/usr/bin/env bash
# The guest's read-only root, as a view of the host's: run by ci/lab/board.sh inside a mount
# namespace of QEMU's own (unshare --mount), so that these mounts exist for QEMU alone and end
# with it.
#
#   root-view.sh ROOT [PATH...] -- COMMAND...
#
# ROOT gets what a guest needs to run the host's programs: /usr and its merged-/usr links, /etc
# with its secrets (shadow, gshadow, SSH host keys, sudoers) replaced by empty files, /opt, and
# each PATH given (the checkout, the build, the lab cache's pinned binaries, a module to load),
# below folders of the view's own (mode 755, whatever the host's are: QEMU reads the view as an
# unprivileged user). Not /root, /home, /var, /run, /tmp, nor the host's /proc, /sys or /dev:
# the guest mounts its own. Then COMMAND runs (exec) in this namespace.
set -euo pipefail
root=${1:?root}
shift
paths=(/usr /bin /sbin /lib /lib32 /lib64 /libx32 /etc /opt)
while [ $# -gt 0 ] && [ "$1" != -- ]; do paths+=("$1"); shift; done
[ "${1:-}" = -- ] || { echo "root-view.sh: no command after --" >&2; exit 2; }
shift

umask 022
mkdir -p "$root"
for p in "${paths[@]}"; do
  case "$p" in /*) ;; *) continue ;; esac
  if [ -L "$p" ]; then  # merged /usr: /bin -> usr/bin, kept a link
    mkdir -p "$root$(dirname "$p")"
    [ -e "$root$p" ] || [ -L "$root$p" ] || ln -s "$(readlink "$p")" "$root$p"
  elif [ -d "$p" ]; then
    mkdir -p "$root$p"
    mount --bind "$p" "$root$p"
  elif [ -f "$p" ]; then
    mkdir -p "$root$(dirname "$p")"
    touch "$root$p"
    mount --bind "$p" "$root$p"
  fi
done
# Empty mount points: the guest mounts its own /proc, /sys, /dev and /run there, and its writes
# to /root (HOME), /var, /home or /tmp land in its RAM.
for d in proc sys dev run root home var mnt tmp; do mkdir -p "$root/$d"; done
# /etc's secrets: an empty file over each (the guest's own accounts are root, in its RAM).
: > "$root/.empty"
for f in /etc/shadow /etc/shadow- /etc/gshadow /etc/gshadow- /etc/sudoers /etc/ssh/ssh_host_*_key \
         /etc/ssl/private /etc/machine-id; do
  [ -e "$root$f" ] || continue
  if [ -d "$root$f" ]; then mount -t tmpfs -o size=4k,mode=700 none "$root$f"
  else mount --bind "$root/.empty" "$root$f"; fi
done
# The host folder that holds this view (and QEMU's pid file, monitor FIFOs, console and the
# guest's share): empty in the view, should a PATH hold it.
ctl=$(dirname "$root")
[ ! -d "$root$ctl" ] || mount -t tmpfs -o size=4k,mode=700 none "$root$ctl"
exec "$@"
