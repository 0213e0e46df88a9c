#!/usr/bin/env bash
# A kernel package that ci/lab/board.sh accepts without booting it (for the hostile-guest
# tests): an image that is not a kernel, a config with 9p built in, and every module the board
# loads built in.
#   tests/e2e/fake_kernel_deb.sh DIR RELEASE   (prints the .deb's path)
set -euo pipefail
dir=$1 rel=$2
mkdir -p "$dir/pkg/DEBIAN" "$dir/pkg/boot" "$dir/pkg/lib/modules/$rel"
echo "not a kernel" > "$dir/pkg/boot/vmlinuz-$rel"
echo "CONFIG_9P_FS=y" > "$dir/pkg/boot/config-$rel"
printf 'kernel/drivers/virtio/virtio_pci.ko\nkernel/net/9p/9pnet_virtio.ko\nkernel/fs/9p/9p.ko\nkernel/fs/overlayfs/overlay.ko\n' \
  > "$dir/pkg/lib/modules/$rel/modules.builtin"
printf 'Package: linux-image-hostile\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
  > "$dir/pkg/DEBIAN/control"
dpkg-deb --build -Znone "$dir/pkg" "$dir/linux-image-hostile_1_amd64.deb" > /dev/null
echo "$dir/linux-image-hostile_1_amd64.deb"
