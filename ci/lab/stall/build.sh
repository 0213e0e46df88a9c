#!/usr/bin/env bash
# Builds rtgate_stall.ko for one of Debian's kernels, out of the tree:
#
#   ci/lab/stall/build.sh RELEASE OUTDIR     e.g. 6.1.0-53-rt-amd64 /tmp/stall
#
# Installs linux-headers-RELEASE with apt-get when it is missing (idempotent), copies the source
# to OUTDIR and builds there, so the checkout stays clean. Prints the module's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
release=${1:?release, e.g. 6.1.0-53-rt-amd64}
out=${2:?output directory}
[[ "$release" =~ ^[0-9][A-Za-z0-9.+-]*$ ]] || { echo "build.sh: bad release $release" >&2; exit 2; }
headers=/usr/src/linux-headers-$release
if [ ! -d "$headers" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "linux-headers-$release" > /dev/null
fi
mkdir -p "$out"
cp "$here/rtgate_stall.c" "$here/Kbuild" "$out/"
make -s -C "$headers" M="$(cd "$out" && pwd)" modules > "$out/build.log" 2>&1 ||
  { cat "$out/build.log" >&2; exit 1; }
echo "$(cd "$out" && pwd)/rtgate_stall.ko"
