#!/usr/bin/env bash
# The local LAVA board's qemu command (the device's `command`), for lava-lab.py: QEMU in a mount
# namespace of its own, with the guest's read-only root a view of the host's (ci/lab/root-view.sh)
# rather than the host's /, the way ci/lab/board.sh boots it.
#
#   qemu-view.sh ROOT [PATH...] -- QEMU-OPTIONS...
#
# ROOT is where the view is built (QEMU's options export it with mount_tag=hostroot); each PATH
# is shown besides the system (the checkout, the build). The dispatcher appends QEMU's options
# to the device's, so they come after the --.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
view=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do view+=("$1"); shift; done
[ "${1:-}" = -- ] && [ "${#view[@]}" -gt 0 ] ||
  { echo "qemu-view.sh: ROOT [PATH...] -- QEMU-OPTIONS..." >&2; exit 2; }
shift
exec unshare --mount --propagation private -- \
  "$here/../../lab/root-view.sh" "${view[@]}" -- qemu-system-x86_64 "$@"
