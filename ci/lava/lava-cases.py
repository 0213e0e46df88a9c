#!/usr/bin/env python3
"""Report an rtgate result to LAVA: one `lava-test-case` call per metric, then one for the gate.

  lava-cases.py --result RESULT.json [--junit JUNIT.xml] [--exit-code N] [--dry-run]

The result JSON gives the cases and the numbers; the JUnit file (`rtgate run --junit`, as
ci/gate-kernel.sh writes it) gives the gate's verdicts: the JSON has none. What maps to what:

  test case name  <suite>.<case>.<metric>, each character outside [A-Za-z0-9._-] made '-'
                  (lava-test-case keeps a result in a directory of that name, and LAVA splits
                  its signal on spaces): cyclic.cpu0.wakeup_latency,
                  lock.throughput.pi_mutex-1t.throughput
  --result fail   the suite failed or errored, or the metric's JUnit testcase has <failure> or
                  <error> (regressed; or inconclusive, under --fail-on-inconclusive)
  --result skip   the suite was skipped, or the testcase has <skipped> (inconclusive, missing)
  --result pass   otherwise: unchanged, improved or not gated; with no baseline (a first run)
                  the suite's status alone decides
  --measurement   latency: the exact max, in us (the worst case is what an RT gate is about);
  --units         throughput: the harmonic mean over the runs, in the metric's unit (Mops/s);
                  duration and count: the mean per run, in the metric's unit
  <suite>.status  only for a suite that did not pass: fail (failed, error) or skip (skipped,
                  inconclusive),
                  no measurement; the reason is printed to the log
  rtgate-gate     with --exit-code, last: 0 pass, 3 skip (inconclusive), anything else fail;
                  the measurement is the exit code, so the lab sees which failure it was
A JUnit testcase the JSON lacks (a metric the baseline had and this run does not) is reported
with its JUnit result and no measurement. Unreadable inputs are reported on stderr and yield no
metric cases, so the gate's own case is still reported.
"""

import argparse
import json
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal

LAVA_TEST_CASE = "lava-test-case"


def case_name(*parts):
    name = ".".join(p for p in parts if p)
    return re.sub(r"[^A-Za-z0-9._-]", "-", name).strip("-.") or "unnamed"


def junit_key(case, metric):
    # The testcase name rtgate's JUnit exporter gives a metric (exporters/junit_exporter.cpp).
    return (case + "/" if case else "") + metric


def read_verdicts(path):
    """(suite, testcase name) -> (result, message) from a JUnit file."""
    verdicts = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        result, message = "pass", ""
        for tag, mapped in (("failure", "fail"), ("error", "fail"), ("skipped", "skip")):
            child = tc.find(tag)
            if child is not None:
                result, message = mapped, child.get("message", "")
                break
        verdicts[(tc.get("classname", ""), tc.get("name", ""))] = (result, message)
    return verdicts


def measurement(metric):
    """(value, units) for a metric, or None when it has no finite value."""
    summary, unit = metric.get("summary") or {}, metric.get("unit") or ""
    if "p999" in summary:  # a latency histogram's summary: the exact max
        value = summary.get("max")
    else:
        value = summary.get("hmean" if metric.get("kind") == "throughput" else "amean")
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if unit == "ns":
        value, unit = value / 1000.0, "us"
    # Six significant digits and never an exponent: whatever reads the log sees a plain number.
    text = format(Decimal(f"{float(value):.6g}"), "f")
    return text, re.sub(r"\s+", "_", unit) or "none"


def cases_from(result, verdicts):
    """[(name, result, measurement or None, message)] for every metric of every suite."""
    out, seen = [], set()
    for suite in result.get("suites", []):
        sname, status = suite.get("name", ""), suite.get("status", "")
        # Failed, error, or anything else that is not passed, skipped or inconclusive: fail.
        # Inconclusive (the host kept the check from judging) is neither pass nor fail: skip.
        suite_result = (None if status == "passed"
                        else "skip" if status in ("skipped", "inconclusive") else "fail")
        if suite_result:
            out.append((case_name(sname, "status"), suite_result, None,
                        f"{status}: {suite.get('reason', '')}"))
        for case in suite.get("cases", []):
            for metric in case.get("metrics", []):
                key = (sname, junit_key(case.get("name", ""), metric.get("name", "")))
                seen.add(key)
                verdict, message = verdicts.get(key, ("pass", ""))
                # A suite that did not pass is never green, whatever its metrics say.
                out.append((case_name(sname, case.get("name", ""), metric.get("name", "")),
                            suite_result or verdict, measurement(metric), message))
        seen.add((sname, "status"))  # covered by <suite>.status above
    for (sname, tcname), (verdict, message) in verdicts.items():
        if (sname, tcname) not in seen:
            case, _, metric = tcname.rpartition("/")
            out.append((case_name(sname, case, metric), verdict, None, message))
    return out


def gate_case(code):
    return ("rtgate-gate", {0: "pass", 3: "skip"}.get(code, "fail"), (str(code), "exit-code"),
            f"gate exit code {code}")


def unique(cases):
    # Two calls of one name would be two results under one name; sanitized names can collide.
    taken, out = set(), []
    for name, *rest in cases:
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name}-{n}", n + 1
        taken.add(candidate)
        out.append((candidate, *rest))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--result", required=True, help="rtgate result JSON")
    ap.add_argument("--junit", help="rtgate JUnit XML (the gate's verdicts)")
    ap.add_argument("--exit-code", type=int, help="the gate's exit code: adds rtgate-gate")
    ap.add_argument("--dry-run", action="store_true", help="print the calls, do not make them")
    args = ap.parse_args()

    verdicts, result = {}, {}
    if args.junit:
        try:
            verdicts = read_verdicts(args.junit)
        except (OSError, ET.ParseError) as e:
            print(f"lava-cases.py: {args.junit}: {e}; verdicts from suite status only",
                  file=sys.stderr)
    try:
        with open(args.result, encoding="utf-8") as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        print(f"lava-cases.py: {args.result}: {e}; no metric cases", file=sys.stderr)
        verdicts = {}  # without the result no suite status is known: no verdict may pass alone
    cases = cases_from(result, verdicts)
    if args.exit_code is not None:
        cases.append(gate_case(args.exit_code))

    failed_calls = 0
    for name, res, meas, message in unique(cases):
        argv = [LAVA_TEST_CASE, name, "--result", res]
        if meas is not None:
            argv += ["--measurement", meas[0], "--units", meas[1]]
        if res != "pass" and message:
            print(f"{name}: {res}: {message}")
        if args.dry_run:
            print(" ".join(argv))
            continue
        try:
            failed_calls += subprocess.run(argv, check=False).returncode != 0
        except OSError as e:
            print(f"lava-cases.py: {LAVA_TEST_CASE}: {e} (not in a LAVA test shell? try --dry-run)",
                  file=sys.stderr)
            return 2
    return 1 if failed_calls else 0


if __name__ == "__main__":
    sys.exit(main())
