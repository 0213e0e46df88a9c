#!/usr/bin/env python3
"""The CI templates (ci/gitlab/rtgate.gitlab-ci.yml, ci/github/rtgate.yml), label e2e.

Each must parse as YAML, and every command it runs must exist and accept the flags it is given:
the test runs each job's commands as the CI would (the template's variables in the environment,
bash), with gate-kernel.sh from this tree in --dry-run form, which hands every flag to
`rtgate run --dry-run` (selection, parameters, files, URLs and gate flags checked as a real run
would, nothing measured). Twice: with an empty baseline directory (the board's first run) and
with a baseline stored where gate-kernel.sh says it would look, so that the gate's own flags
(--baseline, --until-decided, --budget) are checked too. The reports the templates keep must be
the files gate-kernel.sh writes.

  templates_test.py --rtgate PATH --source-dir DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

INSTALLED = "/usr/share/rtgate/ci/gate-kernel.sh"
LAB = "/usr/share/rtgate/ci/lab/gate-kernels.sh"  # the pre-gate on the deterministic board


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def gitlab_jobs(doc):
    """(environment, commands) of each job: the global variables, the job's script lines."""
    env = {k: str(v) for k, v in doc.get("variables", {}).items()}
    for name, job in doc.items():
        if isinstance(job, dict) and "script" in job:
            paths = job["artifacts"]["paths"]
            junit = job["artifacts"]["reports"]["junit"]
            yield name, env, job["script"], (paths, [junit])


def github_jobs(doc):
    """GitHub's `${{ a || 'b' }}` expressions are taken at their default, 'b'."""
    def default(v):
        m = re.fullmatch(r"\$\{\{.*\|\|\s*'([^']*)'\s*\}\}", str(v).strip())
        return m.group(1) if m else str(v)
    for name, job in doc["jobs"].items():
        env = {k: default(v) for k, v in job.get("env", {}).items()}
        runs = [s["run"] for s in job["steps"] if "run" in s]
        kept = [s["with"]["path"] for s in job["steps"] if "uses" in s and "upload-artifact" in s["uses"]]
        yield name, env, runs, (kept, [])


def dry_form(cmd, src, rtgate, base):
    if INSTALLED not in cmd:
        fail("a template command does not call " + INSTALLED + ": " + cmd)
    cmd = re.sub(r"^\s*sudo -n\s+", "", cmd)
    cmd = cmd.replace(INSTALLED, f"{src}/ci/gate-kernel.sh --dry-run --rtgate {rtgate}")
    return cmd.replace("/var/lib/rtgate/baselines", base)


def check_pregate(path, name, cmds, env, kept, junit, src, rtgate, work):
    """A pre-gate job: each command in --dry-run form (the plan, and the selection checked by
    `rtgate run --dry-run`; nothing fetched or booted); it keeps what the script writes."""
    for cmd in cmds:
        dry = re.sub(r"^\s*sudo -n\s+", "", cmd).replace(LAB, f"{src}/ci/lab/gate-kernels.sh --dry-run")
        code, out = run(dry, dict(env, RTGATE_BUILD_DIR=os.path.dirname(rtgate)), work)
        if code != 0 or "dry run: gate-kernels.sh" not in out or "dry run: 1 suite" not in out:
            fail(f"{path}: {name}: the pre-gate's dry run exited {code}:\n{out}")
        m = re.search(r"^junit: (\S+)$", out, re.M)
        folder = m.group(1).split("/")[0] if m else None
        for k in kept:
            if k.rstrip("/") != folder:
                fail(f"{path}: {name} keeps {k}, gate-kernels.sh writes {folder}/")
        for j in junit:
            if not m or j != m.group(1):
                fail(f"{path}: {name}: JUnit report {j} is not {m.group(1) if m else None}")
    print(f"{path}: job {name}: {len(cmds)} pre-gate command(s) accepted")


def run(cmd, env, cwd):
    full = dict(os.environ, **env)
    p = subprocess.run(["bash", "-ec", cmd], env=full, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtgate", required=True)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    src, rtgate = os.path.realpath(a.source_dir), os.path.realpath(a.rtgate)
    tmp = tempfile.mkdtemp()
    try:
        # A real result to stand in for a stored baseline (its content only has to load).
        sample = os.path.join(tmp, "sample.json")
        subprocess.run([rtgate, "run", "tag:smoke", "--duration", "0.2", "--no-progress",
                        "-o", sample], check=True, capture_output=True)
        templates = [("gitlab", "ci/gitlab/rtgate.gitlab-ci.yml", gitlab_jobs),
                     ("github", "ci/github/rtgate.yml", github_jobs)]
        for label, path, jobs in templates:
            with open(os.path.join(src, path)) as f:
                doc = yaml.safe_load(f)
            for name, env, cmds, (kept, junit) in jobs(doc):
                if not cmds:
                    fail(f"{path}: job {name} runs nothing")
                base = os.path.join(tmp, label, "baselines")
                work = os.path.join(tmp, label, name, "work")
                os.makedirs(work)
                if any(LAB in c for c in cmds):
                    check_pregate(path, name, cmds, env, kept, junit, src, rtgate, work)
                    continue
                for cmd in cmds:
                    for push in ("", "http://127.0.0.1:9"):
                        e = dict(env, RTGATE_PUSHGATEWAY=push, RTGATE_BASELINE_DIR=base) \
                            if "RTGATE_BASELINE_DIR" in env else dict(env, RTGATE_PUSHGATEWAY=push)
                        shutil.rmtree(base, ignore_errors=True)
                        code, out = run(dry_form(cmd, src, rtgate, base), e, work)
                        if code != 0 or "dry run:" not in out:
                            fail(f"{path}: {name}: the dry run exited {code}:\n{out}")
                        m = re.search(r"on exit 0: store (\S+) in (\S+)/$", out, re.M)
                        if not m:
                            fail(f"{path}: {name}: no baseline directory in:\n{out}")
                        if push and "push: " + push not in out:
                            fail(f"{path}: {name}: --push did not reach rtgate:\n{out}")
                        # The board's next run: a baseline where the script looks for one.
                        os.makedirs(m.group(2))
                        shutil.copy(sample, os.path.join(m.group(2), "20260101T000000Z.json"))
                        code, out = run(dry_form(cmd, src, rtgate, base), e, work)
                        if code != 0 or "  baseline: " not in out or "until decided:" not in out:
                            fail(f"{path}: {name}: with a baseline, the dry run exited {code}:\n{out}")
                        produced = m.group(1)  # artifacts/result.json
                        folder = os.path.dirname(produced)
                        for k in kept:
                            if k.rstrip("/") != folder:
                                fail(f"{path}: {name} keeps {k}, gate-kernel.sh writes {folder}/")
                        for j in junit:
                            if j != folder + "/junit.xml":
                                fail(f"{path}: {name}: JUnit report {j} is not {folder}/junit.xml")
                print(f"{path}: job {name}: {len(cmds)} command(s) accepted, with and without a "
                      "baseline and a Pushgateway")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
