#!/usr/bin/env python3
"""ci/lava end to end: the LAVA test definition and example job against Debian's lava-common
schemas, then the definition's steps run the way LAVA runs them, against the rtgate under test,
with a stub lava-test-case that logs its arguments.

  lava_test.py --rtgate BUILD/rtgate --source-dir SRC

Run 1 has no baseline (a board's first job); run 2 fetches run 1's result as BASELINE_URL and
gates it with a policy whose 1 us budget on cyclic/cpu0 regresses for certain, so a "fail" has to
travel from the gate to LAVA. The expected calls are computed here from the result JSON and the
JUnit file, independently of ci/lava/lava-cases.py. Exit 77 (ctest's SKIP_RETURN_CODE) when
lava-common or PyYAML is missing.
"""

import argparse
import copy
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SKIP = 77
SELECTION = "cyclic lock.throughput -p locks=pi_mutex -p threads=1"


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def rejects(validate, data):
    import voluptuous  # lava-common's schema library; main() checked that it imports

    try:
        validate(data)
    except voluptuous.Invalid:  # a crash of the validator is not a rejection
        return True
    return False


# --- the contract of ci/lava/lava-cases.py, restated (see its header) ---

def lava_name(*parts):
    return re.sub(r"[^A-Za-z0-9._-]", "-", ".".join(p for p in parts if p)).strip("-.")


def expected_value(metric):
    s = metric["summary"]
    if metric["kind"] == "latency":
        return s["max"] / 1000.0, "us"
    value = s["hmean"] if metric["kind"] == "throughput" else s["amean"]
    return (value / 1000.0, "us") if metric["unit"] == "ns" else (value, metric["unit"])


def junit_results(path):
    out = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        result = "pass"
        if tc.find("failure") is not None or tc.find("error") is not None:
            result = "fail"
        elif tc.find("skipped") is not None:
            result = "skip"
        out[(tc.get("classname"), tc.get("name"))] = result
    return out


def expected_calls(result, junit, code):
    """name -> (result, (value, units) or None)"""
    exp = {}
    for suite in result["suites"]:
        by_status = {"passed": None, "failed": "fail", "error": "fail", "skipped": "skip"}
        forced = by_status[suite["status"]]
        if forced:
            exp[lava_name(suite["name"], "status")] = (forced, None)
        for case in suite["cases"]:
            for m in case["metrics"]:
                key = (suite["name"], (case["name"] + "/" if case["name"] else "") + m["name"])
                verdict = junit.pop(key, "pass")
                exp[lava_name(suite["name"], case["name"], m["name"])] = (
                    forced or verdict, expected_value(m))
        junit.pop((suite["name"], "status"), None)
    for (suite, tcname), verdict in junit.items():  # in the JUnit file only
        case, _, metric = tcname.rpartition("/")
        exp[lava_name(suite, case, metric)] = (verdict, None)
    if code is not None:
        exp["rtgate-gate"] = ({0: "pass", 3: "skip"}.get(code, "fail"), (float(code), "exit-code"))
    return exp


def parse_calls(log):
    calls = {}
    with open(log, encoding="utf-8") as f:
        for line in f:
            argv = json.loads(line)
            name, opts = argv[0], dict(zip(argv[1::2], argv[2::2]))
            check(len(argv) % 2 == 1 and set(opts) <= {"--result", "--measurement", "--units"},
                  f"malformed lava-test-case call {argv}")
            check(name not in calls, f"{name} reported twice")
            check(re.fullmatch(r"[A-Za-z0-9][-_.A-Za-z0-9]*", name) is not None,
                  f"test case name {name!r} is not a valid LAVA name")
            calls[name] = opts
    return calls


def compare(calls, exp, label):
    check(set(calls) == set(exp),
          f"{label}: calls {sorted(calls)} but expected {sorted(exp)}")
    for name, (result, meas) in exp.items():
        got = calls[name]
        check(got.get("--result") == result,
              f"{label}: {name}: --result {got.get('--result')}, expected {result}")
        if meas is None:
            check("--measurement" not in got, f"{label}: {name}: unexpected measurement")
            continue
        check("--measurement" in got and got.get("--units") == meas[1],
              f"{label}: {name}: measurement/units {got}, expected {meas}")
        value = float(got["--measurement"])
        check(math.isclose(value, meas[0], rel_tol=1e-5, abs_tol=1e-9),
              f"{label}: {name}: measurement {value}, expected {meas[0]}")


class Lab:
    """Runs the definition's steps as LAVA's run.sh would, with a stub lava-test-case."""

    def __init__(self, testdef, source_dir, tmp):
        self.testdef, self.source_dir, self.tmp = testdef, source_dir, tmp
        self.bin = os.path.join(tmp, "bin")
        os.makedirs(self.bin)
        stub = os.path.join(self.bin, "lava-test-case")
        with open(stub, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable}\n"
                    "import json, os, sys\n"
                    "with open(os.environ['LAVA_STUB_LOG'], 'a') as f:\n"
                    "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n")
        os.chmod(stub, 0o755)

    def env(self, log):
        return dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                    LAVA_STUB_LOG=log)

    def run(self, label, job_params):
        log, code_file = (os.path.join(self.tmp, f"{label}.{x}") for x in ("calls", "code"))
        open(log, "w").close()

        def assign(params):
            # LAVA writes NAME='value' without escaping; these values hold no quote.
            return [f"{k}='{v}'" for k, v in params.items()]

        script = (["###default parameters from test definition###"]
                  + assign(self.testdef["params"])
                  + ["######", "###test parameters from job submission###"]
                  + assign(job_params) + ["######", "set -e", "set -x",
                                          f"cd {shlex.quote(self.source_dir)}"]
                  + self.testdef["run"]["steps"]
                  # Ours, not the definition's: what the gate exited with, to check against.
                  + [f'echo "$code" > {shlex.quote(code_file)}'])
        path = os.path.join(self.tmp, f"{label}.run.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(script) + "\n")
        # /bin/sh, as LAVA's default lava_test_sh_cmd: a bashism in a step fails here too.
        p = subprocess.run(["/bin/sh", path], env=self.env(log), capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0 and os.path.exists(code_file),
              f"{label}: the steps ended with {p.returncode} (set -e: a step failed or the "
              f"gate's exit escaped):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        with open(code_file, encoding="utf-8") as f:
            return int(f.read()), parse_calls(log)

    def convert(self, label, args):
        log = os.path.join(self.tmp, f"{label}.calls")
        open(log, "w").close()
        p = subprocess.run([sys.executable, os.path.join(self.source_dir, "ci/lava/lava-cases.py")]
                           + args, env=self.env(log), capture_output=True, text=True, timeout=30)
        check(p.returncode == 0, f"{label}: lava-cases.py exited {p.returncode}: {p.stderr}")
        return parse_calls(log)


def load_json(path):
    check(os.path.isfile(path), f"no {path}: the gate wrote no result")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_schemas(source_dir, yaml, validate_testdef, validate_job):
    with open(os.path.join(source_dir, "ci/lava/rtgate.yaml"), encoding="utf-8") as f:
        testdef = yaml.safe_load(f)
    with open(os.path.join(source_dir, "ci/lava/job-example.yaml"), encoding="utf-8") as f:
        job = yaml.safe_load(f)
    for what, validate, data in (("ci/lava/rtgate.yaml", validate_testdef, testdef),
                                 ("ci/lava/job-example.yaml", validate_job, job)):
        try:
            validate(data)
        except Exception as e:  # voluptuous.Invalid: say which file and where
            raise Failure(f"{what} does not validate: {e}") from e
    # The validators must be able to say no, or the two lines above prove nothing.
    broken = copy.deepcopy(testdef)
    del broken["metadata"]["format"]
    check(rejects(validate_testdef, broken), "testdef schema accepted a definition without format")
    broken = copy.deepcopy(testdef)
    broken["run"]["steps"] = "not a list"
    check(rejects(validate_testdef, broken), "testdef schema accepted steps that are not a list")
    broken = copy.deepcopy(job)
    del broken["visibility"]
    check(rejects(validate_job, broken), "job schema accepted a job without visibility")
    broken = copy.deepcopy(job)
    test = next(a["test"] for a in broken["actions"] if "test" in a)
    del test["definitions"][0]["from"]
    check(rejects(validate_job, broken), "job schema accepted a definition without 'from'")

    # What the schemas cannot see: the job must point at this definition and set only its
    # params, and every variable a step reads must be one (sh expands a typo to "").
    definition = next(a["test"] for a in job["actions"] if "test" in a)["definitions"][0]
    check(definition["path"] == "ci/lava/rtgate.yaml", f"job runs {definition['path']}")
    unknown = set(definition.get("parameters", {})) - set(testdef["params"])
    check(not unknown, f"job sets parameters the definition lacks: {sorted(unknown)}")
    used = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", "\n".join(testdef["run"]["steps"])))
    undeclared = used - set(testdef["params"])
    check(not undeclared, f"steps read variables that are no params: {sorted(undeclared)}")
    print(f"schemas: definition and job valid, 4 broken copies rejected, {len(used)} params used")
    return testdef


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtgate", required=True)
    ap.add_argument("--source-dir", required=True)
    args = ap.parse_args()
    try:
        import yaml
        from lava_common.schemas import validate as validate_job
        from lava_common.schemas.test.testdef import validate as validate_testdef
    except ImportError as e:
        print(f"SKIP: {e} ({sys.executable}; Debian's lava-common and python3-yaml give both)")
        return SKIP
    src = os.path.abspath(args.source_dir)
    testdef = check_schemas(src, yaml, validate_testdef, validate_job)

    with tempfile.TemporaryDirectory(prefix="rtgate-lava-") as tmp:
        lab = Lab(testdef, src, tmp)
        common = {"SELECTION": SELECTION, "DURATION": "1", "RUNS": "2", "UNTIL_DECIDED": "false",
                  "RTGATE": os.path.abspath(args.rtgate),
                  "GATE_KERNEL": os.path.join(src, "ci/gate-kernel.sh")}

        # Run 1: no baseline yet. Every metric reported with its suite's status.
        a1, baselines = os.path.join(tmp, "a1"), os.path.join(tmp, "baselines")
        code, calls = lab.run("run1", {**common, "ARTIFACTS": a1, "BASELINE_DIR": baselines})
        r1 = load_json(os.path.join(a1, "result.json"))
        failed = any(s["status"] in ("failed", "error") for s in r1["suites"])
        check(code == (1 if failed else 0), f"run1: gate exited {code} for this result")
        compare(calls, expected_calls(r1, {}, code), "run1")
        if code == 0:
            stored = [f for _, _, fs in os.walk(baselines) for f in fs if f.endswith(".json")]
            check(len(stored) == 1, f"run1 passed but stored {stored} as the baseline")
        print(f"run1: exit {code}, {len(calls)} lava-test-case calls as expected")

        # Run 2: run 1 as the baseline, fetched by URL; a budget nothing can meet on cpu0.
        policy = os.path.join(tmp, "policy.yaml")
        with open(policy, "w", encoding="utf-8") as f:
            f.write("budgets_ns:\n  cyclic/cpu0/wakeup_latency: 1000\n")
        a2 = os.path.join(tmp, "a2")
        # --until-decided too: it stops at the first regression, so it adds no run here.
        code, calls = lab.run("run2", {**common, "ARTIFACTS": a2, "POLICY": policy,
                                       "UNTIL_DECIDED": "true", "MAX_RUNS": "3", "BUDGET": "20s",
                                       "BASELINE_URL": "file://" + os.path.join(a1, "result.json")})
        r2 = load_json(os.path.join(a2, "result.json"))
        exp = expected_calls(r2, junit_results(os.path.join(a2, "junit.xml")), code)
        exp["rtgate-baseline"] = ("pass", None)
        compare(calls, exp, "run2")
        cyclic = next(s for s in r2["suites"] if s["name"] == "cyclic")
        if cyclic["status"] == "passed":
            check(calls["cyclic.cpu0.wakeup_latency"]["--result"] == "fail" and code == 1,
                  f"run2: the budget's regression did not reach LAVA (exit {code}, "
                  f"{calls['cyclic.cpu0.wakeup_latency']})")
        results = sorted(c["--result"] for c in calls.values())
        print(f"run2: exit {code}, {len(calls)} calls as expected ({', '.join(results)})")

        # The converter on doctored copies: suite states and exit codes run 2 did not produce.
        doctored = copy.deepcopy(r2)
        for s in doctored["suites"]:
            if s["name"] == "cyclic":
                s["status"], s["reason"] = "failed", "doctored"
            else:
                s["status"], s["reason"], s["cases"] = "skipped", "doctored", []
        path = os.path.join(tmp, "doctored.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doctored, f)
        for code in (3, 4):
            calls = lab.convert(f"doctored{code}", ["--result", path, "--exit-code", str(code)])
            compare(calls, expected_calls(doctored, {}, code), f"doctored, exit {code}")
            check(calls["cyclic.status"]["--result"] == "fail"
                  and calls["lock.throughput.status"]["--result"] == "skip",
                  f"doctored: suite status cases {calls}")

        # A metric the gate judged that this result lacks: reported from JUnit, no measurement.
        lacking = copy.deepcopy(r2)
        tput = next(s for s in lacking["suites"] if s["name"] == "lock.throughput")
        tput["cases"][0]["metrics"] = [m for m in tput["cases"][0]["metrics"]
                                       if m["name"] != "fairness_cv"]
        with open(path, "w", encoding="utf-8") as f:
            json.dump(lacking, f)
        junit = os.path.join(a2, "junit.xml")
        calls = lab.convert("lacking", ["--result", path, "--junit", junit])
        compare(calls, expected_calls(lacking, junit_results(junit), None), "lacking")
        check("lock.throughput.pi_mutex-1t.fairness_cv" in calls, "lacking: JUnit-only metric")

        # No result at all (rtgate could not start): the gate's case alone.
        calls = lab.convert("nothing", ["--result", os.path.join(tmp, "absent.json"),
                                        "--junit", junit, "--exit-code", "2"])
        compare(calls, {"rtgate-gate": ("fail", (2.0, "exit-code"))}, "no result")
        print("converter: failed and skipped suites, exit codes 2, 3, 4, a JUnit-only metric: "
              "as expected")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
