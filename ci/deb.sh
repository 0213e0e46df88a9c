#!/usr/bin/env bash
# Builds rtgate's .deb with CPack, checks it with lintian, installs it with apt-get as a lab
# board would (the build tree moved out of the way, so nothing can come from it), runs the
# installed rtgate (env, man page, a short cyclic run), then purges it and checks that nothing
# is left behind.
#   ci/deb.sh [BUILD_DIR]
# BUILD_DIR: package that configured build (ci/test.sh passes its own, already built); without
# it, a fresh Release build in build-deb with Debian's default flags (dpkg-buildflags) and
# warnings not as errors, tests and benchmarks off: what a packager does.
# Installs and purges the package on this machine: meant for CI machines and lab boards.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
[ "$(id -u)" = 0 ] || { echo "ci/deb.sh: needs root (apt-get install, SCHED_FIFO)" >&2; exit 2; }
if dpkg-query -W -f='${Status}' rtgate 2>/dev/null | grep -q "install ok installed"; then
  echo "ci/deb.sh: rtgate is already installed as a package; purge it first" >&2
  exit 2
fi

DIR=${1:-}
if [ -z "$DIR" ]; then
  DIR=build-deb
  # Debian's default flags (hardening, -O2, -g) for C++, as a package build would use them.
  export CXXFLAGS="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
  export LDFLAGS="$(dpkg-buildflags --get LDFLAGS)"
  cmake -S . -B "$DIR" -DCMAKE_BUILD_TYPE=Release -DRTGATE_BUILD_TESTS=OFF \
    -DRTGATE_BUILD_BENCH=OFF >/dev/null
  cmake --build "$DIR" -j "$(nproc)"
fi
rm -f "$DIR"/rtgate_*.deb
(cd "$DIR" && cpack -G DEB >/dev/null)
deb=$(realpath "$DIR"/rtgate_*.deb)
echo "ci/deb.sh: built $(basename "$deb")"
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends

# Lintian: every finding is listed; errors fail.
lintian --tag-display-limit 0 "$deb" > "$DIR/lintian.txt" 2>&1 || true
echo "ci/deb.sh: lintian: $(grep -c '^E:' "$DIR/lintian.txt" || true) errors," \
     "$(grep -c '^W:' "$DIR/lintian.txt" || true) warnings"
cat "$DIR/lintian.txt"
! grep -q '^E:' "$DIR/lintian.txt" || { echo "ci/deb.sh: lintian errors" >&2; exit 1; }

# Install from the package alone: the source and build trees are out of reach (moved aside and
# the commands run from /), so a path into either would fail here.
cp "$deb" /tmp/
pkg=/tmp/$(basename "$deb")
aside="$(realpath "$DIR").aside"
mv "$DIR" "$aside"
trap 'mv "$aside" "$DIR" 2>/dev/null || true' EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$pkg" >/dev/null
(
  cd /
  command -v rtgate | grep -qx /usr/bin/rtgate
  rtgate --version
  rtgate env > /tmp/rtgate-env.txt
  head -3 /tmp/rtgate-env.txt
  man -P cat rtgate 2>/dev/null | grep -q "rtgate run" || { echo "man rtgate: no page" >&2; exit 1; }
  echo "man rtgate: $(man -P cat rtgate 2>/dev/null | wc -l) lines"
  out=$(mktemp -d)
  rtgate run cyclic --duration 1 --no-progress -o "$out/r.json" | tail -3
  jq -e '.suites[0].status == "passed"' "$out/r.json" >/dev/null
  bash /usr/share/rtgate/ci/gate-kernel.sh --help | head -1
  # The templates' pre-gate, from the installed tree (what it boots and gates, nothing booted).
  /usr/share/rtgate/ci/lab/gate-kernels.sh --dry-run --accel icount --baseline-kernel 6.1.0-53-rt \
    --kernel candidate.deb --out "$out/lab" -- cyclic | grep -q '^dry run: 1 suite'
  grep -q '^ExecStart=/usr/bin/rtgate ' /lib/systemd/system/rtgate-serve.service
  rm -rf "$out"
)
apt-get purge -y -qq rtgate >/dev/null
rm -f "$pkg"
left=$(ls -d /usr/bin/rtgate /usr/share/rtgate /usr/share/doc/rtgate /lib/systemd/system/rtgate-serve.service \
       /usr/share/man/man1/rtgate.1.gz 2>/dev/null || true)
[ -z "$left" ] || { echo "ci/deb.sh: left after purge: $left" >&2; exit 1; }
echo "ci/deb.sh: installed, ran and purged cleanly"
