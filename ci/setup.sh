#!/usr/bin/env bash
# Installs every Debian package rtgate builds, tests or benchmarks with. Idempotent: when all are
# present it only runs dpkg-query and exits.
set -euo pipefail

PACKAGES=(
  cmake g++ make pkg-config        # build
  libcli11-dev nlohmann-json3-dev  # CLI, JSON
  libsimdjson-dev zlib1g-dev       # result files read at lab scale (exporters/json_reader), .json.gz
  libboost-math-dev libyaml-cpp-dev  # gate: distribution functions (Boost.Math), policy files
  libgtest-dev libgmock-dev        # unit and integration tests
  libbenchmark-dev                 # measurement-overhead benchmarks
  rt-tests                         # cyclictest, the reference we cross-check against
  stress-ng                        # optional load for benchmarks
  util-linux bsdutils procps jq    # setpriv, script (non-root and TTY tests), JSON in scripts
  prometheus-cpp-dev libcurl4-openssl-dev  # Prometheus export: data model, /metrics; the push (curl)
  prometheus prometheus-pushgateway curl   # real servers and promtool for the integration tests
  libtracefs-dev libtraceevent-dev trace-cmd  # --trace: private tracefs instances (trace-cmd: tests)
  clang-14 libfuzzer-14-dev        # fuzz targets (tests/fuzz, ci/fuzz.sh)
  dpkg-dev help2man man-db lintian # the .deb (CPack), its man page from --help, its checks
  lava-common python3-yaml         # LAVA test definition: schema validation, YAML in tests
  qemu-system-x86 busybox-static kmod cpio  # ci/lab: the virtual board (QEMU, its initramfs)
  rtla lava-dispatcher             # ci/lab: rtla as the kernel tracers' reference; lava-run
  chromium fonts-dejavu-core       # the HTML report rendered headless (tests), its screenshot
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ci/setup.sh: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
