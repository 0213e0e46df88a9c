#!/usr/bin/env bash
# Installs every Debian package rtgate builds, tests or benchmarks with; `--binary`: only what the
# rtgate binary needs to build. Idempotent: when all are present it only runs dpkg-query (and
# finds the kernel documents of ci/kernel-docs.sh in their cache).
set -euo pipefail

# What the rtgate binary needs to build (ci/smoke.sh installs only these: `--binary`).
BINARY_PACKAGES=(
  cmake g++ make pkg-config        # build
  libcli11-dev nlohmann-json3-dev  # CLI, JSON
  libsimdjson-dev zlib1g-dev       # result files read at lab scale (results/result_reader), .json.gz
  libboost-math-dev libyaml-cpp-dev  # gate: distribution functions (Boost.Math), policy files
  prometheus-cpp-dev libcurl4-openssl-dev  # Prometheus export: data model, /metrics; the push (curl)
  libtracefs-dev libtraceevent-dev  # --trace: private tracefs instances
)
# What the tests, benchmarks, packaging and the virtual board need besides.
TEST_PACKAGES=(
  libgtest-dev libgmock-dev        # unit and integration tests
  libbenchmark-dev                 # measurement-overhead benchmarks
  rt-tests                         # cyclictest, the reference we cross-check against
  stress-ng                        # optional load for benchmarks
  util-linux bsdutils procps jq    # setpriv, script (non-root and TTY tests), JSON in scripts
  prometheus prometheus-pushgateway curl   # real servers and promtool for the integration tests
  openssl                          # a CA and certificate for the TLS test
  trace-cmd                        # --trace tests read the trace back with it
  clang-14 libfuzzer-14-dev        # fuzz targets (tests/fuzz, ci/fuzz.sh)
  dpkg-dev help2man man-db lintian # the .deb (CPack), its man page from --help, its checks
  lava-common python3-yaml         # LAVA test definition: schema validation, YAML in tests
  qemu-system-x86 busybox-static kmod cpio  # ci/lab: the virtual board (QEMU, its initramfs)
  rtla lava-dispatcher             # ci/lab: rtla as the kernel tracers' reference; lava-run
  chromium fonts-dejavu-core       # the HTML report rendered headless (tests), its screenshot
)
PACKAGES=("${BINARY_PACKAGES[@]}")
[ "${1:-}" = "--binary" ] || PACKAGES+=("${TEST_PACKAGES[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/setup.sh: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The kernel's parameter and sysctl documents the readiness fixes are checked against (a test
# skips without them; nothing is installed).
if [ "${1:-}" != "--binary" ]; then
  "$(dirname "$0")/kernel-docs.sh" || echo "ci/setup.sh: no kernel documents; their test skips"
fi
