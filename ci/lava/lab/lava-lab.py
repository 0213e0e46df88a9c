#!/usr/bin/env python3
"""Run ci/lava/rtgate.yaml through a real LAVA dispatcher (lava-run) on the local virtual board.

  ci/lava/lab/lava-lab.py [--kernel 6.1.0-53-rt] [--out DIR] [--selection cyclic]
                          [--duration 3] [--runs 1] [--param KEY=VALUE]... [--timeout 300]
                          [--accel tcg|icount]

What it does, in order:
  1. ci/lab/board.sh --kernel K --fetch-only: Debian's kernel package (apt-get download, cached)
     and the busybox initramfs, both under the lab cache (--lab, $RTGATE_LAB_DIR,
     ~/.cache/rtgate-lab).
  2. A snapshot of this checkout (tracked and untracked, not ignored files, as they are now) as
     a git repository OUT/repo: the job's test definition comes `from: git` out of it, so the
     definition that runs is the working tree's, not the last commit's.
  3. OUT/device.yaml from ci/lava/lab/device.yaml, plus a -pidfile (no qemu outlives this
     script), QEMU as the lab user (ci/lab/lab-user.sh) under qemu-view.sh (the root is a view
     of the host's: the system and this checkout, ci/lab/root-view.sh), and OUT/share shared
     writable at its own path (rtgate_lab.out=, 9p mapped-xattr): the definition's ARTIFACTS go
     there, so result.json and junit.xml come back to the host.
  4. OUT/job.yaml from ci/lava/lab/job-lab.yaml: the kernel and initramfs as file:// URLs, the
     repository, the params (SELECTION, DURATION, RUNS, UNTIL_DECIDED=false, RTGATE=the build
     tree's rtgate, ARTIFACTS, then every --param).
  5. lava-run --device OUT/device.yaml --job-id N --output-dir OUT/lava OUT/job.yaml, its log
     (one YAML mapping a line) in OUT/lava.log, ended after --timeout seconds.
  6. The dispatcher's own results from that log: OUT/results.json ({"job", "error", "kernel",
     "definitions", "cases": {name: {"result", "measurement", "units"}}, "seconds"}) and a table.

Exit code: 0 the job passed and the dispatcher recorded rtgate-gate pass; 1 a case failed or the
gate did not pass; 3 rtgate-gate skip (inconclusive); 124 --timeout reached; 125 the job itself
failed (no boot, no shell, an infrastructure error: the reason and the console's tail are
printed); 77 this machine cannot run it (no lava-run or qemu, not root, no kernel package).
Needs root: lava-run works in /var/lib/lava/dispatcher/tmp.
"""

import argparse
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DISPATCHER_TMP = "/var/lib/lava/dispatcher/tmp"
CANNOT = 77
DEFINITION = "0_rtgate"  # LAVA names the first definition of the test action "0_<name>"

try:
    Loader = yaml.CSafeLoader
except AttributeError:  # PyYAML without libyaml
    Loader = yaml.SafeLoader


def say(msg):
    print(f"lava-lab: {msg}", file=sys.stderr, flush=True)


def cannot(msg):
    say(f"cannot run here: {msg}")
    sys.exit(CANNOT)


def fetch_kernel(kernel, lab):
    cmd = [os.path.join(REPO, "ci/lab/board.sh"), "--kernel", kernel, "--fetch-only"]
    if lab:
        cmd += ["--lab", lab]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        if re.search(r"apt-get download .* failed|not in Debian's apt lists|not found \(ci/setup",
                     p.stderr):
            cannot(f"ci/lab/board.sh --fetch-only: {p.stderr.strip()}")
        say(f"ci/lab/board.sh --fetch-only exited {p.returncode}:\n{p.stderr}")
        sys.exit(125)
    release = p.stdout.strip().splitlines()[-1]
    lab = lab or os.environ.get("RTGATE_LAB_DIR") or os.path.join(
        os.environ.get("HOME", "/root"), ".cache/rtgate-lab")
    kdir = os.path.join(lab, "kernels", release)
    vmlinuz = os.path.join(kdir, "root/boot", f"vmlinuz-{release}")
    initrd = os.path.join(kdir, "initramfs.cpio.gz")
    for f in (vmlinuz, initrd):
        if not os.path.isfile(f):
            say(f"board.sh printed {release} but {f} is missing")
            sys.exit(125)
    return release, os.path.abspath(vmlinuz), os.path.abspath(initrd)


def snapshot(dest):
    """This checkout's files as they are now, committed in a fresh git repository."""
    os.makedirs(dest)
    listed = subprocess.run(["git", "-C", REPO, "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True)
    if listed.returncode == 0:
        files = [f for f in listed.stdout.decode().split("\0") if f]
    else:  # not a git work tree (an unpacked release): what the definition needs
        files = [os.path.relpath(os.path.join(d, f), REPO)
                 for d, _, fs in os.walk(os.path.join(REPO, "ci")) for f in fs]
    for f in files:
        src = os.path.join(REPO, f)
        if not os.path.isfile(src) or os.path.islink(src):
            continue  # deleted in the work tree, or a link the clone would not need
        os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, f))
    git = ["git", "-C", dest, "-c", "user.name=lava-lab", "-c", "user.email=lava-lab@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(git + args, check=True, capture_output=True)
    return len(files)


# The deterministic board is the same qemu device with time counted in instructions (as
# board.sh --accel icount): these options replace the TCG board's. One vCPU, since more hang at
# boot under icount.
ICOUNT_OPTIONS = {"-accel tcg": ["-accel tcg", "-icount shift=1,sleep=off"], "-smp 2": ["-smp 1"]}


def lab_user(share):
    """QEMU's -runas user (ci/lab/lab-user.sh), made the owner of the guest's writable share."""
    p = subprocess.run([os.path.join(REPO, "ci/lab/lab-user.sh")], capture_output=True, text=True)
    if p.returncode != 0:
        say(p.stderr.strip())
        sys.exit(125)
    user = p.stdout.strip()
    pw = pwd.getpwnam(user)
    os.chown(share, pw.pw_uid, pw.pw_gid)
    return user


def render_device(out, share, accel, shown):
    """The device, with QEMU as an unprivileged user and the root a view (qemu-view.sh).

    The guest writes only to the share, under 9p's mapped-xattr: its owners, modes, links and
    device nodes are attributes on the host, never a set-id file, a device or a link the host
    would follow. QEMU's setuid to the user is why -sandbox allows "elevateprivileges"."""
    with open(os.path.join(HERE, "device.yaml"), encoding="utf-8") as f:
        device = yaml.safe_load(f)
    params = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
    if accel == "icount":
        params["options"] = [o for opt in params["options"]
                             for o in ICOUNT_OPTIONS.get(opt, [opt])]
    view = os.path.join(out, "view")
    params["command"] = os.path.join(HERE, "qemu-view.sh")
    params["options"] = [view, *shown, "--", *params["options"],
                         f"-runas {lab_user(share)}",
                         "-sandbox on,obsolete=deny,elevateprivileges=allow,spawn=deny",
                         f"-pidfile {out}/qemu.pid",
                         f"-virtfs local,path={view},mount_tag=hostroot,security_model=none,"
                         "readonly=on,multidevs=remap",
                         f"-virtfs local,path={share},mount_tag=out,security_model=mapped-xattr,"
                         "multidevs=remap"]
    path = os.path.join(out, "device.yaml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(device, f, sort_keys=False)
    return path


def render_job(out, share, vmlinuz, initrd, repo, params, accel):
    with open(os.path.join(HERE, "job-lab.yaml"), encoding="utf-8") as f:
        job = yaml.safe_load(f)
    deploy = next(a["deploy"] for a in job["actions"] if "deploy" in a)
    kernel, ramdisk = deploy["images"]["kernel"], deploy["images"]["ramdisk"]
    kernel["url"], ramdisk["url"] = "file://" + vmlinuz, "file://" + initrd
    arg = kernel["image_arg"]
    if "rtgate_lab.shell=1" not in arg:
        raise SystemExit("job-lab.yaml: the kernel's image_arg lacks rtgate_lab.shell=1")
    # rtgate_lab.clock=icount1 is how results learn that their time is instructions' (the board
    # class "deterministic").
    clock = " rtgate_lab.clock=icount1" if accel == "icount" else ""
    kernel["image_arg"] = arg.replace("rtgate_lab.shell=1",
                                      f"rtgate_lab.shell=1 rtgate_lab.out={share}{clock}")
    test = next(a["test"] for a in job["actions"] if "test" in a)
    definition = test["definitions"][0]
    definition["repository"] = "file://" + repo
    definition["parameters"].update(params)
    job["metadata"]["rtgate.selection"] = params["SELECTION"]
    path = os.path.join(out, "job.yaml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(job, f, sort_keys=False, width=1000)
    return path


def kill_qemu(pidfile):
    """The board's qemu, if still there: by the pid it wrote, checked against its command line."""
    try:
        with open(pidfile, encoding="utf-8") as f:
            pid = int(f.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if pidfile.encode() not in f.read():
                return False
    except (OSError, ValueError):
        return False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        for _ in range(20):
            if not os.path.exists(f"/proc/{pid}"):
                return True
            time.sleep(0.1)
    return True


def run_dispatcher(out, device, job, job_id, limit):
    log = os.path.join(out, "lava.log")
    os.makedirs(os.path.join(out, "lava"), exist_ok=True)
    cmd = ["lava-run", "--device", device, "--job-id", str(job_id),
           "--output-dir", os.path.join(out, "lava"), job]
    say(" ".join(cmd))
    timed_out = False
    with open(log, "wb") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    if kill_qemu(os.path.join(out, "qemu.pid")):
        say("qemu was still running after lava-run: killed")
    return p.returncode, timed_out, log


def read_log(log):
    """The dispatcher's log: results by definition and case, the job's error, the console."""
    res = {"job": None, "error": None, "kernel": None, "definitions": {}, "cases": {},
           "console": []}
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                entry = yaml.load(line, Loader=Loader)
            except yaml.YAMLError:
                continue
            if not isinstance(entry, dict):
                continue
            lvl, msg = entry.get("lvl"), entry.get("msg")
            if lvl == "target" and isinstance(msg, str):
                res["console"].append(msg)
                m = re.search(r"Linux version (\S+) .*", msg)
                if m and res["kernel"] is None:
                    res["kernel"] = m.group(0)[:200]
            elif lvl == "results" and isinstance(msg, dict):
                if msg.get("definition") == "lava":
                    if msg.get("case") == "job":
                        res["job"] = msg.get("result")
                        res["error"] = msg.get("error_msg")
                    elif re.match(r"\d+_", str(msg.get("case", ""))):
                        res["definitions"][msg["case"]] = msg.get("result")
                elif msg.get("definition") == DEFINITION:
                    case = {"result": msg.get("result")}
                    if "measurement" in msg:
                        case["measurement"] = float(msg["measurement"])
                        case["units"] = msg.get("units")
                    res["cases"][msg.get("case")] = case
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="6.1.0-53-rt")
    ap.add_argument("--lab", help="the lab cache (board.sh --lab)")
    ap.add_argument("--out", help="output folder (default: a new one under /tmp)")
    ap.add_argument("--rtgate", default=os.path.join(REPO, "build/rtgate"))
    ap.add_argument("--selection", default="cyclic")
    ap.add_argument("--duration", default="3")
    ap.add_argument("--runs", default="1")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="another parameter of ci/lava/rtgate.yaml (repeatable)")
    ap.add_argument("--job-id", type=int, default=os.getpid())
    ap.add_argument("--timeout", type=int, default=300, help="seconds for lava-run (300)")
    ap.add_argument("--accel", choices=("tcg", "icount"), default="tcg",
                    help="icount: the deterministic board (time counted in instructions)")
    args = ap.parse_args()

    for tool in ("lava-run", "qemu-system-x86_64", "git"):
        if not shutil.which(tool):
            cannot(f"{tool} not found (ci/setup.sh installs lava-dispatcher and qemu-system-x86)")
    if not os.access(DISPATCHER_TMP, os.W_OK):
        cannot(f"{DISPATCHER_TMP} is not writable: lava-run needs root")
    rtgate = os.path.abspath(args.rtgate)
    if not os.access(rtgate, os.X_OK):
        say(f"{rtgate}: no rtgate there (build it, or give --rtgate)")
        return 2

    out = os.path.abspath(args.out) if args.out else tempfile.mkdtemp(prefix="rtgate-lava-lab.")
    if not re.fullmatch(r"[A-Za-z0-9._/+-]+", out):
        say(f"--out {out}: only letters, digits and ._/+- (it goes on the kernel command line)")
        return 2
    os.makedirs(out, exist_ok=True)
    for stale in ("repo", "share", "lava", "qemu.pid", "lava.log", "results.json"):
        p = os.path.join(out, stale)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.unlink(p)
    share = os.path.join(out, "share")
    os.makedirs(share)

    t0 = time.monotonic()
    release, vmlinuz, initrd = fetch_kernel(args.kernel, args.lab)
    count = snapshot(os.path.join(out, "repo"))
    params = {"SELECTION": args.selection, "DURATION": str(args.duration),
              "RUNS": str(args.runs), "UNTIL_DECIDED": "false", "RTGATE": rtgate,
              "ARTIFACTS": os.path.join(share, "artifacts")}
    for kv in args.param:
        key, sep, value = kv.partition("=")
        if not sep:
            say(f"--param {kv}: KEY=VALUE")
            return 2
        params[key] = value
    device = render_device(out, share, args.accel, sorted({REPO, os.path.dirname(rtgate)}))
    job = render_job(out, share, vmlinuz, initrd, os.path.join(out, "repo"), params, args.accel)
    say(f"{release}; the checkout's {count} files as the test repository; output in {out}")

    code, timed_out, log = run_dispatcher(out, device, job, args.job_id, args.timeout)
    res = read_log(log)
    res["seconds"] = round(time.monotonic() - t0, 1)
    res["lava_run_exit"] = code
    console = res.pop("console")
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=2)

    print(f"kernel: {res['kernel']}")
    for name, case in res["cases"].items():
        meas = f" {case['measurement']:g} {case['units']}" if "measurement" in case else ""
        print(f"  {name}: {case['result']}{meas}")
    print(f"definitions: {res['definitions']}; job: {res['job']}"
          + (f" ({res['error']})" if res["error"] else "") + f"; {res['seconds']} s")
    if timed_out:
        say(f"lava-run did not finish in {args.timeout} s: ended; console tail:")
        print("\n".join(console[-15:]), file=sys.stderr)
        return 124
    if res["job"] != "pass":
        say(f"the job did not pass (lava-run exit {code}); log {log}; console tail:")
        print("\n".join(console[-25:]), file=sys.stderr)
        return 125
    gate = res["cases"].get("rtgate-gate", {}).get("result")
    if gate == "skip":
        return 3
    if gate != "pass" or any(c["result"] == "fail" for c in res["cases"].values()):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
