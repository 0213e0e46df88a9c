#!/usr/bin/env python3
"""How deterministic each statistic is across boots: a markdown table from N results of one kernel.

    ci/lab/determinism.py RESULT.json... [--min-boots 3] [--summary]

Each result is one boot (ci/lab/determinism.sh makes them). For every gated statistic of every
suite, case and metric (a latency's p50, p99, p99.9 and max per run; a throughput's, duration's
or gated count's value per run; counts only reported are left out), it prints: the boots' session means (geometric for log-scale
statistics), their spread between boots (log SD, or SD for counts), the runs' own spread within
a boot, and a class:
  exact      every run of every boot gave the same value;
  per-run    each boot gave the same run values, but its runs differ (a fixed pattern);
  boot       the boots differ no more than their runs' spread explains;
  drifts     the boots differ beyond what their runs explain (a session offset).
Results are untrusted input: a file that does not parse, or is not a result, is named and skipped.
"""
import json
import math
import statistics
import sys

LATENCY_STATS = ("p50", "p99", "p999", "max")
MAX_FILE_BYTES = 64 << 20


def load(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ValueError("over 64 MiB")
        doc = json.loads(data)
        if not isinstance(doc, dict) or not isinstance(doc.get("suites"), list):
            raise ValueError("not an rtgate result")
        return doc
    except (OSError, ValueError) as e:
        print(f"determinism.py: {path}: skipped ({e})", file=sys.stderr)
        return None


def run_values(metric):
    """{statistic: [per-run values]} of one metric, as the gate reads them."""
    kind = metric.get("kind")
    if kind == "latency":
        runs = metric.get("runs") or {}
        return {s: [float(v) for v in runs.get(s, []) if isinstance(v, (int, float))]
                for s in LATENCY_STATS}
    samples = metric.get("samples")
    if kind == "count" and metric.get("gating") == "reported":
        return {}
    if isinstance(samples, list) and kind in ("throughput", "duration", "count"):
        return {"value": [float(v) for v in samples if isinstance(v, (int, float))]}
    return {}


def collect(docs):
    """{(suite, case, metric, statistic, kind): [runs of boot 1, runs of boot 2, ...]}"""
    table = {}
    for doc in docs:
        for suite in doc["suites"]:
            for case in suite.get("cases") or []:
                for metric in case.get("metrics") or []:
                    for stat, runs in run_values(metric).items():
                        key = (suite.get("name"), case.get("name"), metric.get("name"), stat,
                               metric.get("kind"))
                        table.setdefault(key, []).append(runs)
    return table


def spread(boots, log_scale):
    """(boot means, between-boot SD, mean within-boot SD, class) or None."""
    f = (lambda v: math.log(v)) if log_scale else (lambda v: v)
    if any(not runs or (log_scale and min(runs) <= 0) for runs in boots):
        return None
    scaled = [[f(v) for v in runs] for runs in boots]
    means = [statistics.fmean(r) for r in scaled]
    between = statistics.stdev(means) if len(means) > 1 else 0.0
    within = statistics.fmean(statistics.stdev(r) if len(r) > 1 else 0.0 for r in scaled)
    if all(r == boots[0] for r in boots):
        cls = "exact" if len(set(boots[0])) == 1 else "per-run"
    else:
        runs = statistics.fmean(len(r) for r in boots)
        # The boots' means vary by within / sqrt(runs) from the runs alone; beyond 1.5 times
        # that, they carry a boot offset.
        cls = "drifts" if between > 1.5 * within / math.sqrt(runs) + 1e-12 else "boot"
    back = (lambda m: math.exp(m)) if log_scale else (lambda m: m)
    return [back(m) for m in means], between, within, cls


def rows(docs, min_boots):
    """(suite, case, metric, statistic, means, between, within, class) of every statistic."""
    out = []
    for (suite, case, metric, stat, kind), boots in sorted(collect(docs).items()):
        if len(boots) < min_boots:
            continue
        s = spread(boots, kind != "count")
        if s is not None:
            out.append((suite, case, metric, stat) + s)
    return out


def print_summary(table):
    """Per suite: how many statistics fall in each class, and the widest between boots."""
    print("| suite | statistics | exact | per-run | boot | drifts | widest between boots (log SD) |")
    print("|---|---|---|---|---|---|---|")
    suites = {}
    for r in table:
        suites.setdefault(r[0], []).append(r)
    for suite, rs in sorted(suites.items()):
        count = {c: sum(1 for r in rs if r[7] == c) for c in ("exact", "per-run", "boot", "drifts")}
        logs = [r for r in rs if not (r[3] == "value" and r[2].endswith(("periods", "wakeups")))]
        wide = max(logs, key=lambda r: r[5]) if logs else None
        widest = f"{wide[5]:.3f} ({wide[1]} {wide[2]} {wide[3]})" if wide else "-"
        print(f"| {suite} | {len(rs)} | {count['exact']} | {count['per-run']} | {count['boot']} | "
              f"{count['drifts']} | {widest} |")


def main(argv):
    min_boots = 3
    summary = "--summary" in argv
    argv = [a for a in argv if a != "--summary"]
    if "--min-boots" in argv:
        i = argv.index("--min-boots")
        min_boots = int(argv[i + 1])
        del argv[i:i + 2]
    docs = [d for d in (load(p) for p in argv) if d is not None]
    if len(docs) < 2:
        print("determinism.py: needs 2 or more results", file=sys.stderr)
        return 2
    table = rows(docs, min_boots)
    print(f"{len(docs)} boots. Spread: log SD for latency, throughput and duration; SD for counts.")
    print()
    if summary:
        print_summary(table)
        return 0
    print("| suite | case | metric | statistic | boots' means (min - max) | between boots | "
          "within a boot | class |")
    print("|---|---|---|---|---|---|---|---|")
    for suite, case, metric, stat, means, between, within, cls in table:
        fmt = "{:.4g}".format
        print(f"| {suite} | {case} | {metric} | {stat} | {fmt(min(means))} - {fmt(max(means))} | "
              f"{between:.4f} | {within:.4f} | {cls} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
