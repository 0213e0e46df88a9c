#!/usr/bin/env python3
"""ci/lava through a real LAVA dispatcher: Debian's lava-run boots Debian's PREEMPT_RT kernel on
the local virtual board (ci/lava/lab/device.yaml, job-lab.yaml) and runs ci/lava/rtgate.yaml in
it; every case is recorded by the dispatcher's own lava-test-case. ci/lava/lab/lava-lab.py does
the run; this test checks what the dispatcher logged:

  - the job and the test definition passed, and the console shows the RT kernel booting;
  - the rtgate result came from the guest (kernel_release and host name of the board);
  - the cases the dispatcher recorded are exactly those ci/lava/lava-cases.py's contract gives
    for that result.json and junit.xml (computed independently, by tests/lava/lava_test.py's
    expected_calls), with the same results, measurements and units; cyclic.cpu0.wakeup_latency
    has a latency in us and rtgate-gate is pass or skip;
  - no qemu is left.

  lava_dispatcher_test.py --rtgate BUILD/rtgate --source-dir SRC [--kernel 6.1.0-53-rt]
                          [--accel tcg|icount]

With --accel icount the device is the deterministic board (time counted in instructions, one
vCPU; about 25 s), and the result must say so: board class "deterministic".

Selection cyclic, DURATION 3, RUNS 1: about 55 s on an idle 2-core machine under TCG (boot 15 s,
the test shell 35 s: every sh, python3 and lava-test-case start is emulated), up to 2 min when
other boards share the cores; the hard limit is 300 s. Exit 77 (ctest's SKIP_RETURN_CODE) with
the reason when lava-run, qemu or PyYAML is missing, when not root, or when the kernel package
cannot be fetched.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lava_test  # noqa: E402  (the contract of lava-cases.py, restated independently)
from lava_test import Failure, check  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtgate", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--kernel", default="6.1.0-53-rt")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--accel", choices=("tcg", "icount"), default="tcg")
    args = ap.parse_args()
    try:
        import yaml  # noqa: F401  (lava-lab.py needs it)
    except ImportError as e:
        print(f"SKIP: {e} (python3-yaml)")
        return SKIP

    src = os.path.abspath(args.source_dir)
    with tempfile.TemporaryDirectory(prefix="rtgate-lava-dispatcher-") as out:
        cmd = [sys.executable, os.path.join(src, "ci/lava/lab/lava-lab.py"),
               "--kernel", args.kernel, "--out", out, "--rtgate", os.path.abspath(args.rtgate),
               "--selection", "cyclic", "--duration", "3", "--runs", "1",
               "--timeout", str(args.timeout), "--accel", args.accel]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout + 600)
        sys.stdout.write(p.stdout)
        sys.stdout.write(p.stderr)
        if p.returncode == SKIP:
            print("SKIP: " + p.stderr.strip().splitlines()[-1])
            return SKIP
        check(p.returncode in (0, 1, 3), f"lava-lab.py exited {p.returncode}")
        with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
            res = json.load(f)

        check(res["job"] == "pass", f"job {res['job']}: {res['error']}")
        check(res["definitions"] == {"0_rtgate": "pass"},
              f"test definitions {res['definitions']}")
        kernel = res["kernel"] or ""
        check("PREEMPT_RT" in kernel, f"the console shows no RT kernel booting: {kernel!r}")
        release = kernel.split()[2]

        artifacts = os.path.join(out, "share/artifacts")
        result = lava_test.load_json(os.path.join(artifacts, "result.json"))
        env = result["environment"]
        check(env.get("kernel_release") == release and env.get("hostname") == "rtgate-lava",
              f"the result is not the board's: {env.get('kernel_release')} on "
              f"{env.get('hostname')}, booted {release}")
        want = "deterministic" if args.accel == "icount" else None
        check(want is None or env.get("board_class") == want,
              f"board class {env.get('board_class')!r} on the {args.accel} device")

        cases = res["cases"]
        check("rtgate-gate" in cases, f"no rtgate-gate case recorded: {sorted(cases)}")
        gate = cases["rtgate-gate"]
        check(gate["result"] in ("pass", "skip"), f"rtgate-gate {gate}")
        code = int(gate["measurement"])
        junit = os.path.join(artifacts, "junit.xml")
        exp = lava_test.expected_calls(
            result, lava_test.junit_results(junit) if os.path.exists(junit) else {}, code)
        # The dispatcher's record in lava-test-case's terms, for lava_test.compare.
        calls = {}
        for name, c in cases.items():
            check(re.fullmatch(r"[A-Za-z0-9][-_.A-Za-z0-9]*", name) is not None,
                  f"case name {name!r}")
            calls[name] = {"--result": c["result"]}
            if "measurement" in c:
                calls[name].update({"--measurement": str(c["measurement"]),
                                    "--units": c["units"]})
        lava_test.compare(calls, exp, "dispatcher")
        lat = cases.get("cyclic.cpu0.wakeup_latency", {})
        check(lat.get("result") == "pass" and lat.get("units") == "us"
              and math.isfinite(lat.get("measurement", math.nan)) and lat["measurement"] > 0,
              f"cyclic.cpu0.wakeup_latency {lat}")

        pidfile = os.path.join(out, "qemu.pid")
        if os.path.exists(pidfile):
            with open(pidfile, encoding="utf-8") as f:
                pid = f.read().strip()
            check(not os.path.exists(f"/proc/{pid}") or
                  pidfile.encode() not in open(f"/proc/{pid}/cmdline", "rb").read(),
                  f"qemu {pid} outlived the job")
        print(f"dispatcher: job pass on {release}, {len(cases)} cases recorded as expected "
              f"(rtgate-gate {gate['result']}, cyclic.cpu0.wakeup_latency "
              f"{lat['measurement']:g} us), {res['seconds']} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
