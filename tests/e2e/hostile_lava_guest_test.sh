#!/usr/bin/env bash
# A hostile guest against ci/lava/lab/lava-lab.py, without booting (label e2e). A fake lava-run
# first on PATH runs the rendered device's command and options as the dispatcher would; a fake
# qemu-system-x86_64 writes its pid file, looks at the root and the share it was given, drops
# to its -runas user and then does what a kernel under test that escaped into QEMU could do as
# that user: read and append to a host file, rewrite the host's pid file with another process's
# pid. QEMU must run as rtgate-lab, see a view of the root (no /etc/shadow, /root or host /proc;
# the checkout there), get its share as 9p mapped-xattr; nothing outside the job's share may
# change and the other process must live. The job then fails (exit 125).
#   tests/e2e/hostile_lava_guest_test.sh SOURCE_DIR
set -euo pipefail
SRC=$(realpath "$1")
T=$(mktemp -d)
victim_pid=""
trap '[ -z "$victim_pid" ] || kill "$victim_pid" 2> /dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in dpkg-deb depmod modprobe cpio busybox apt-get git setpriv; do
  command -v "$tool" > /dev/null || { echo "SKIP: no $tool"; exit 77; }
done
python3 -c 'import yaml' 2> /dev/null || { echo "SKIP: no python3-yaml"; exit 77; }
[ -w /var/lib/lava/dispatcher/tmp ] || { echo "SKIP: no lava-dispatcher (or not root)"; exit 77; }

deb=$("$SRC/tests/e2e/fake_kernel_deb.sh" "$T" 9.9.9-hostile-amd64)
# The guest's program must be reachable by QEMU's user; the host's files stay the host's.
chmod 711 "$T"
mkdir -m 700 "$T/outside"
echo "secret: untouched" > "$T/outside/secret"
sleep 1000 &
victim_pid=$!
before=$(sha256sum "$T/outside/secret")

mkdir -p "$T/bin"
printf '#!/bin/sh\nexit 0\n' > "$T/bin/rtgate"
cat > "$T/bin/lava-run" <<'LAVA'
#!/usr/bin/env python3
"""lava-run's part here: the device's command with its options, split as pexpect splits them."""
import argparse, json, os, subprocess, yaml
ap = argparse.ArgumentParser()
ap.add_argument("--device"); ap.add_argument("--job-id"); ap.add_argument("--output-dir")
ap.add_argument("job")
a = ap.parse_args()
with open(a.device) as f:
    params = yaml.safe_load(f)["actions"]["boot"]["methods"]["qemu"]["parameters"]
cmd = [params["command"]] + " ".join(params["options"]).split() + ["-kernel", "/nonexistent"]
subprocess.run(cmd)
print(json.dumps({"lvl": "results", "msg": {"definition": "lava", "case": "job",
                                           "result": "fail"}}))
LAVA
cat > "$T/bin/qemu-system-x86_64" <<FAKE
#!/usr/bin/env bash
while [ \$# -gt 0 ]; do
  case "\$1" in
    -pidfile) echo \$\$ > "\$2" ;;
    -runas) user=\$2 ;;
    -virtfs) case "\$2" in
               *mount_tag=out*) share=\$(sed 's/.*path=\([^,]*\),.*/\1/' <<< "\$2")
                                model=\$(sed 's/.*security_model=\([^,]*\).*/\1/' <<< "\$2") ;;
               *mount_tag=hostroot*) root=\$(sed 's/.*path=\([^,]*\),.*/\1/' <<< "\$2") ;;
             esac ;;
  esac
  shift
done
{
  [ -s "\$root/etc/shadow" ] && echo "shadow: readable" || echo "shadow: empty"
  [ -n "\$(ls -A "\$root/root" 2> /dev/null)" ] && echo "/root: shown" || echo "/root: absent"
  [ -e "\$root/proc/1" ] && echo "/proc: shown" || echo "/proc: absent"
  [ -f "\$root$SRC/ci/lab/board.sh" ] && echo "checkout: shown" || echo "checkout: absent"
  echo "share: \$model"
} > "\$share/view.txt"
[ -n "\${user:-}" ] && [ "\$(id -u "\$user")" != 0 ] || { echo "runas: \${user:-none}" > "\$share/runas.txt"; exit 1; }
cd "\$share"
exec setpriv --reuid="\$user" --regid="\$user" --init-groups "$T/bin/guest-part"
FAKE
cat > "$T/bin/guest-part" <<GUEST
#!/usr/bin/env bash
id -un > runas.txt
cat "$T/outside/secret" > stolen.txt 2> /dev/null || true
echo "guest was here" >> "$T/outside/secret" 2> /dev/null || true
echo "$victim_pid" > ../qemu.pid 2> /dev/null || true
echo "written by the guest" > artifact.txt
GUEST
chmod 755 "$T/bin/lava-run" "$T/bin/qemu-system-x86_64" "$T/bin/guest-part" "$T/bin/rtgate"

code=0
PATH="$T/bin:$PATH" timeout 120 python3 "$SRC/ci/lava/lab/lava-lab.py" --kernel "$deb" \
  --lab "$T/lab" --out "$T/out" --rtgate "$T/bin/rtgate" --timeout 60 > "$T/stdout" 2> "$T/stderr" ||
  code=$?
cat "$T/stderr"
[ "$code" = 125 ] || fail "lava-lab.py exit $code, not 125 (the job failed)"
[ "$(sha256sum "$T/outside/secret")" = "$before" ] || fail "a host file outside the share changed"
kill -0 "$victim_pid" 2> /dev/null || fail "a process lava-lab.py did not start was killed"
[ "$(cat "$T/out/share/runas.txt")" = rtgate-lab ] || fail "qemu ran as $(cat "$T/out/share/runas.txt")"
want=$'shadow: empty\n/root: absent\n/proc: absent\ncheckout: shown\nshare: mapped-xattr'
[ "$(cat "$T/out/share/view.txt")" = "$want" ] || fail "the guest was given: $(cat "$T/out/share/view.txt")"
[ ! -s "$T/out/share/stolen.txt" ] || fail "the guest read a host file"
grep -q "written by the guest" "$T/out/share/artifact.txt" || fail "the guest could not write its share"
echo "PASS: the hostile guest of the LAVA board changed nothing outside its share"
