# Sourced by the tests/lab/*_test.sh scripts: what each needs before and around its one boot.

# lab_prelude WHY: skips (77) without root or qemu; makes $T, the job folder (removed on exit).
lab_prelude() {
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root ($1)"; exit 77; }
  command -v qemu-system-x86_64 > /dev/null || { echo "SKIP: no qemu-system-x86_64"; exit 77; }
  T=$(mktemp -d /tmp/rtgate-lab-test.XXXXXX)
  trap 'rm -rf "$T"' EXIT
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# lab_boot SRC KERNEL [BOARD_OPTION...]: one boot running $T/guest.sh in $T; skips (77) when the
# kernel package cannot be fetched, fails on any other board error, and prints the board's own
# lines.
lab_boot() {
  local code=0 src=$1 kernel=$2
  shift 2
  "$src/ci/lab/board.sh" --kernel "$kernel" --out "$T" --timeout 600 "$@" -- sh guest.sh \
    > "$T/board.log" 2>&1 || code=$?
  if [ "$code" = 125 ] && grep -q "not in Debian's apt lists\|apt-get download .* failed" "$T/board.log"; then
    cat "$T/board.log"
    echo "SKIP: the kernel package could not be fetched"
    exit 77
  fi
  [ "$code" = 0 ] || { cat "$T/board.log"; fail "the board exited $code"; }
  grep "^lab:" "$T/board.log"
}
