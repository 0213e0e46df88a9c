#!/usr/bin/env bash
# The user QEMU runs as (its -runas) on a lab host: a kernel under test is untrusted, and a guest
# that broke out of QEMU's device emulation must not find itself root on the host.
#
#   ci/lab/lab-user.sh [USER]
#
# Prints USER (default $RTGATE_LAB_USER, else rtgate-lab) once it exists. The default user is
# created when missing: a system account with its own group, no home and no shell. A USER that
# is root (uid 0) is refused. QEMU opens the kernel, the initramfs, its pid file, console and
# monitor as root, then drops to USER; the 9p shares are opened at that point too, so USER needs
# only to own the guest's writable share and to read what the read-only root shows.
#
# Exit code: 0, the user printed; 2 it is root or cannot be made.
set -euo pipefail
user=${1:-${RTGATE_LAB_USER:-rtgate-lab}}
[[ "$user" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || { echo "lab-user.sh: $user: not a user name" >&2; exit 2; }
if ! id -u "$user" > /dev/null 2>&1; then
  [ "$user" = rtgate-lab ] ||
    { echo "lab-user.sh: no user $user (create it, or leave the default rtgate-lab)" >&2; exit 2; }
  # Two boards may start at once: useradd locks the account files, and the loser finds the user.
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin --comment "rtgate lab, QEMU runs as this user" "$user" \
    > /dev/null 2>&1 || true
  id -u "$user" > /dev/null 2>&1 || { echo "lab-user.sh: cannot create user $user" >&2; exit 2; }
fi
[ "$(id -u "$user")" != 0 ] || { echo "lab-user.sh: $user has uid 0: QEMU must not run as root" >&2; exit 2; }
echo "$user"
