#!/usr/bin/env bash
# A hostile guest against ci/lab/board.sh, without booting (label e2e). A fake
# qemu-system-x86_64 first on PATH does what QEMU does for the host (writes its pid file, the
# console, reads the monitor FIFO), drops to its -runas user, and then does what a broken or
# malicious kernel under test can do through its writable share, the job folder, or what one
# that escaped into QEMU could do as that user:
#   - plants symlinks at every path the host used to write there (console.log, the pid file and
#     the monitor FIFOs of .lab/), pointing at files outside the job folder;
#   - writes the pid of a process the board did not start, and -1, where the pid file used to be;
#   - makes .lab/stdout a link to a secret, .lab/stderr a FIFO, .lab/exit a huge file;
#   - reads and appends to a host file, leaves a set-id program;
#   - stays up past the point where the board sends SysRq keys through the monitor;
#   - looks at the read-only root it was given: /etc/shadow must be empty, /root empty, the
#     host's /proc absent, /usr there.
# QEMU must run as rtgate-lab (the board checks it), nothing outside the job folder may change,
# the other process must live, the secret must be neither read nor printed, no link, FIFO or
# set-id file may come back into the job folder, and the board must say the command did not run
# (exit 125).
#   tests/e2e/hostile_guest_test.sh SOURCE_DIR
set -euo pipefail
SRC=$(realpath "$1")
T=$(mktemp -d)
victim_pid=""
trap '[ -z "$victim_pid" ] || kill "$victim_pid" 2> /dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in dpkg-deb depmod modprobe cpio busybox apt-get; do
  command -v "$tool" > /dev/null || { echo "SKIP: no $tool"; exit 77; }
done

rel=9.9.9-hostile-amd64
deb=$("$SRC/tests/e2e/fake_kernel_deb.sh" "$T" "$rel")

# What must not change, and who must not be signalled.
# The guest's program must be reachable by QEMU's user; the host's files stay the host's.
chmod 711 "$T"
mkdir -m 700 "$T/outside"
for f in console pid monitor secret; do echo "$f: untouched" > "$T/outside/$f"; done
sleep 1000 &
victim_pid=$!
before=$(cd "$T/outside" && sha256sum ./*)

mkdir -p "$T/bin"
cat > "$T/bin/qemu-system-x86_64" <<FAKE
#!/usr/bin/env bash
# The host's part: QEMU's own files, where the board told it to put them.
while [ \$# -gt 0 ]; do
  case "\$1" in
    -pidfile) echo \$\$ > "\$2" ;;
    -monitor) mon=\${2#pipe:} ;;
    -serial) console=\${2#file:} ;;
    -runas) user=\$2 ;;
    -virtfs) case "\$2" in
               *mount_tag=out*) job=\$(sed 's/.*path=\([^,]*\),.*/\1/' <<< "\$2") ;;
               *mount_tag=hostroot*) root=\$(sed 's/.*path=\([^,]*\),.*/\1/' <<< "\$2") ;;
             esac ;;
  esac
  shift
done
echo "[    0.000000] Linux version $rel (the fake)" > "\$console"
cat "\$mon.in" > /dev/null &
# What the guest's read-only root shows of the host (the view QEMU exports).
{
  [ -s "\$root/etc/shadow" ] && echo "shadow: readable" || echo "shadow: empty"
  [ -n "\$(ls -A "\$root/root" 2> /dev/null)" ] && echo "/root: shown" || echo "/root: absent"
  [ -e "\$root/proc/1" ] && echo "/proc: shown" || echo "/proc: absent"
  [ -x "\$root/usr/bin/env" ] && echo "/usr: shown" || echo "/usr: absent"
} > "\$job/view.txt"
# The guest's part, as QEMU's -runas user (as QEMU drops to it before the guest runs), in the
# job folder it was given.
[ -n "\${user:-}" ] && [ "\$(id -u "\$user")" != 0 ] || { echo "runas: \${user:-none}" > "\$job/runas.txt"; exit 1; }
cd "\$job"
exec setpriv --reuid="\$user" --regid="\$user" --init-groups "$T/bin/guest-part"
FAKE
cat > "$T/bin/guest-part" <<GUEST
#!/usr/bin/env bash
id -un > runas.txt
ln -sfn "$T/outside/console" console.log
ln -sfn "$T/outside/pid" .lab/qemu.pid
echo "$victim_pid" > .lab/pid-of-another
rm -f .lab/monitor.in .lab/monitor.out
ln -s "$T/outside/monitor" .lab/monitor.in
ln -s "$T/outside/monitor" .lab/monitor.out
ln -s "$T/outside/secret" .lab/stdout
mkfifo .lab/stderr
head -c 50000000 /dev/zero | tr '\0' 7 > .lab/exit
ln -sfn "$T/outside" .lab/outside
# What an escaped guest could do as that user: read or write the host's files, leave a set-id file.
cat "$T/outside/secret" > stolen.txt 2> /dev/null || true
echo "guest was here" >> "$T/outside/secret" 2> /dev/null || true
cp /bin/true setid && chmod 6755 setid
sleep 23   # past the 20 s after which the board sends SysRq keys
exit 0
GUEST
chmod 755 "$T/bin/guest-part"
chmod +x "$T/bin/qemu-system-x86_64"

code=0
mkdir "$T/tmp"
TMPDIR="$T/tmp" PATH="$T/bin:$PATH" timeout 120 bash ${RTGATE_TEST_TRACE:+-x} "$SRC/ci/lab/board.sh" --kernel "$deb" \
  --lab "$T/lab" --out "$T/job" --accel tcg --timeout 61 -- true > "$T/stdout" 2> "$T/stderr" ||
  code=$?
cat "$T/stderr"
[ "$code" = 125 ] || fail "board.sh exit $code, not 125 (the command did not run)"
after=$(cd "$T/outside" && sha256sum ./*)
[ "$before" = "$after" ] || fail "files outside the job folder changed: $after"
kill -0 "$victim_pid" 2> /dev/null || fail "a process the board did not start was killed"
! grep -q "secret: untouched" "$T/stdout" "$T/stderr" || fail "the board printed a file the guest linked"
if [ ! -f "$T/job/console.log" ] || [ -L "$T/job/console.log" ]; then
  fail "console.log is not the host's copy"
fi
grep -q "Linux version $rel" "$T/job/console.log" || fail "console.log lost the console"
want=$'shadow: empty\n/root: absent\n/proc: absent\n/usr: shown'
[ "$(cat "$T/job/view.txt")" = "$want" ] || fail "the guest's root shows: $(cat "$T/job/view.txt")"
[ "$(cat "$T/job/runas.txt")" = rtgate-lab ] || fail "the guest ran as $(cat "$T/job/runas.txt"), not rtgate-lab"
grep -q "qemu runs as rtgate-lab" "$T/stderr" || fail "the board did not check that qemu dropped root"
[ ! -s "$T/job/stolen.txt" ] || fail "the guest read a host file: $(cat "$T/job/stolen.txt")"
[ -z "$(find "$T/job" -perm /6000)" ] || fail "a set-id file came back: $(find "$T/job" -perm /6000)"
odd=$(find "$T/job" ! -type f ! -type d)
[ -z "$odd" ] || fail "the guest's links, FIFOs or devices reached the job folder: $odd"
[ -z "$(ls -A "$T/tmp")" ] || fail "the board's control folder was left behind: $(ls -A "$T/tmp")"
echo "PASS: the hostile guest changed nothing outside its job folder"
