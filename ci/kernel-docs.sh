#!/usr/bin/env bash
# The kernel's own documentation of its boot parameters and sysctls, for the test that checks
# every readiness fix against them (Readiness.EveryFixIsWhatTheKernelDocuments): extracted from
# Debian's newest linux-doc-* package (apt-get download, about 37 MB, nothing installed) into
#   ${RTGATE_KERNEL_DOC:-~/.cache/rtgate/kernel-doc}/
#     admin-guide/kernel-parameters.txt, admin-guide/sysctl/*.rst, scheduler/sched-rt-group.rst
# and its package name in VERSION. Does nothing when they are there. Exit 1 when they cannot be
# had (the test then skips).
set -euo pipefail
dir=${RTGATE_KERNEL_DOC:-${HOME:-/root}/.cache/rtgate/kernel-doc}
[ -s "$dir/admin-guide/kernel-parameters.txt" ] && exit 0

package=$(apt-cache pkgnames linux-doc- | grep -E '^linux-doc-[0-9]+\.[0-9]+$' | sort -V | tail -n 1)
[ -n "$package" ] || { echo "ci/kernel-docs.sh: no linux-doc-* package in the apt lists" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "$package" > /dev/null 2>&1) ||
  { echo "ci/kernel-docs.sh: apt-get download $package failed" >&2; exit 1; }
docs=./usr/share/doc/$package/Documentation
dpkg-deb --fsys-tarfile "$work"/*.deb |
  tar -x -C "$work" --wildcards "$docs/admin-guide/kernel-parameters.txt.gz" \
    "$docs/admin-guide/sysctl/*.rst.gz" "$docs/scheduler/sched-rt-group.rst.gz"
find "$work/$docs" -name '*.gz' -exec gunzip {} +
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.new"
mv "$work/$docs" "$dir.new"
echo "$package" > "$dir.new/VERSION"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "ci/kernel-docs.sh: $package's parameter and sysctl docs in $dir"
