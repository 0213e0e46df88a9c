#!/usr/bin/env python3
"""`rtgate history --prometheus` against a real Prometheus, and against the same results as files.

The 30 real sessions of tests/data/sessions become a board's history over three kernels, ten
sessions each, ten minutes apart, each its own boot, ending an hour ago; the third kernel's
pi_mutex nonrt_throughput is cut to 70% (a known step). The files go to `rtgate history`; the
same results, through `rtgate export --textfile` with each session's time as the samples'
timestamp, are backfilled into a fresh TSDB (`promtool tsdb create-blocks-from openmetrics`) and
served by Debian's prometheus on a free loopback port. Both readings must give the same exit
code, the same sessions and kernels, the same series and the same change points; and
`rtgate gate` of the newest session against the one before the step must decide alike with its
history as files (--history) and in Prometheus (--prometheus), every verdict, change, bound and
session noise equal. Then 11 of the
sessions are pushed one after the other to a real Pushgateway that Prometheus scrapes every
second: each is read back as one session, and the history gates as their files do. And behind
TLS and basic auth (--web.config.file), an untrusted certificate and missing or wrong
credentials are one line and exit 2; the farm's CA (--prometheus-ca-file) and the right
credentials (--prometheus-basic-file) read the history. Behind a proxy that wants a bearer token
under a path prefix, the token from --prometheus-bearer-file reads it.

  tests/prometheus/history_source_test.py RTGATE SOURCE_DIR
Exit 0 pass, 1 fail, 77 skip (no prometheus or promtool).
"""
import copy
import http.server
import gzip
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone

FAMILIES = ("rtgate_run_timestamp_seconds", "rtgate_boot_key", "rtgate_suite_contaminated",
            "rtgate_history_point", "rtgate_history_point_variance", "rtgate_history_point_spread",
            "rtgate_history_point_spread_df")
KERNELS = ("6.1.0-50-rt-amd64", "6.1.0-51-rt-amd64", "6.1.0-52-rt-amd64")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def rfc3339(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def unix(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


def board_history(src, out):
    """The sessions as a board's history: kernels, boots, times, the step."""
    names = sorted(f for f in os.listdir(os.path.join(src, "tests/data/sessions"))
                   if f.endswith(".json.gz"))[:30]
    start = time.time() - 3600 - 30 * 600
    paths = []
    for i, name in enumerate(names):
        with gzip.open(os.path.join(src, "tests/data/sessions", name), "rt") as f:
            r = json.load(f)
        took = unix(r["finished_at"]) - unix(r["started_at"])
        r["started_at"] = rfc3339(start + i * 600)
        r["finished_at"] = rfc3339(start + i * 600 + took)
        r["environment"]["kernel_release"] = KERNELS[i // 10]
        r["environment"]["boot_id"] = str(uuid.UUID(int=0x1000 + i))
        if i >= 20:
            for s in r["suites"]:
                for c in s["cases"]:
                    for m in c["metrics"]:
                        if c["name"] == "pi_mutex" and m["name"] == "nonrt_throughput":
                            m["samples"] = [v * 0.7 for v in m["samples"]]
        path = os.path.join(out, f"session-{i:02d}.json")
        with open(path, "w") as f:
            json.dump(r, f)
        paths.append((path, unix(r["finished_at"])))
    return paths


def openmetrics(rtgate, sessions, work):
    """The families a history reads, each session's samples stamped with its time."""
    by_family = {f: [] for f in FAMILIES}
    for path, t in sessions:
        d = os.path.join(work, "tf-" + os.path.basename(path))
        os.makedirs(d)
        subprocess.run([rtgate, "export", path, "--textfile", d], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(d, "rtgate.prom")) as f:
            for line in f:
                name = line.split("{", 1)[0].split(" ", 1)[0]
                if not line.startswith("#") and name in by_family:
                    by_family[name].append(f"{line.rstrip()} {t:.3f}\n")
    text = "".join(f"# TYPE {n} gauge\n" + "".join(lines) for n, lines in by_family.items())
    return text + "# EOF\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_prometheus(work, om):
    tsdb = os.path.join(work, "tsdb")
    with open(os.path.join(work, "om.txt"), "w") as f:
        f.write(om)
    subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics",
                    os.path.join(work, "om.txt"), tsdb], check=True, stdout=subprocess.DEVNULL)
    cfg = os.path.join(work, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1h\n")
    port = free_port()
    p = subprocess.Popen(["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={tsdb}",
                          f"--web.listen-address=127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prom.log"), "w"))
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if urllib.request.urlopen(url + "/-/ready", timeout=1).status == 200:
                return p, url
        except OSError:
            time.sleep(0.1)
    p.kill()
    fail("prometheus did not become ready: " + open(os.path.join(work, "prom.log")).read()[-2000:])


def history(rtgate, args):
    p = subprocess.run([rtgate, "history", "--format", "json"] + args, capture_output=True,
                       text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        fail(f"rtgate history {' '.join(args)} exited {p.returncode}: {p.stderr}")


def rounded(x):
    """Numbers to 9 significant digits: Prometheus' text carries a float's shortest form, and
    the judge's sums may round in the last bit."""
    if isinstance(x, float):
        return float(f"{x:.9g}")
    if isinstance(x, list):
        return [rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    return x


def summary(doc):
    series = {(s["suite"], s["case"], s["metric"], s["statistic"]):
              (tuple(s["sessions"]), json.dumps(rounded(s["change_points"]), sort_keys=True),
               json.dumps(rounded(s["newest"]), sort_keys=True),
               json.dumps(rounded(s["values"])))
              for s in doc["series"]}
    sessions = [(s["kernel"], s["contaminated"]) for s in doc["sessions"]]
    return doc["exit_code"], doc["outcome"], doc["kernels"], sessions, series


# bcrypt of "rtgate-lab-test" (4 rounds): the test's password for a Prometheus behind basic auth.
TEST_USER_HASH = "$2b$04$Rhzy.7xGWGhEZFOc35CYbuHWbwrki0o5uUcGbsjp7AFqj7VNQf.Ku"


def check_bearer_proxy(rtgate, work, upstream):
    """A farm's Prometheus behind a proxy that wants a bearer token, under a path prefix: the
    token from --prometheus-bearer-file reads the history; a wrong one is HTTP 401, one line."""
    token = "rtgate-test-" + uuid.uuid4().hex

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.headers.get("Authorization") != f"Bearer {token}":
                self.send_response(401)
                self.end_headers()
                return
            if not self.path.startswith("/prom/"):
                self.send_response(404)
                self.end_headers()
                return
            try:
                with urllib.request.urlopen(upstream + self.path[len("/prom"):], timeout=60) as r:
                    status, body = r.status, r.read()
            except urllib.error.HTTPError as e:
                status, body = e.code, e.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/prom"
        good, bad = os.path.join(work, "good.token"), os.path.join(work, "bad.token")
        with open(good, "w") as f:
            f.write(token + "\n")
        with open(bad, "w") as f:
            f.write("guess\n")
        base = ["history", "--prometheus", url, "--match", '{host="vm"}', "--since", "2d"]
        r = subprocess.run([rtgate] + base + ["--prometheus-bearer-file", bad], capture_output=True,
                           text=True)
        if r.returncode != 2 or "HTTP 401" not in r.stderr or r.stderr.count("\n") != 1:
            fail(f"a wrong bearer token: exit {r.returncode}, {r.stderr!r}")
        code, doc, err = history(rtgate, base[1:] + ["--prometheus-bearer-file", good])
        if len(doc["sessions"]) != 30:
            fail(f"with the bearer token: {len(doc['sessions'])} sessions, {err}")
        print("bearer token behind a proxy's path prefix: refused when wrong (exit 2), read when right")
    finally:
        server.shutdown()


def make_tls(work):
    """A CA and a certificate for 127.0.0.1 signed by it (P-256, two days)."""
    def run(*args):
        subprocess.run(["openssl"] + list(args), check=True, capture_output=True)
    ca, key = os.path.join(work, "ca.pem"), os.path.join(work, "ca.key")
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key, "-out", ca, "-days", "2", "-subj", "/CN=rtgate test CA")
    srv_key, csr, srv = (os.path.join(work, n) for n in ("srv.key", "srv.csr", "srv.pem"))
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", srv_key, "-out", csr, "-subj", "/CN=127.0.0.1")
    ext = os.path.join(work, "san.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", key, "-CAcreateserial", "-out", srv,
        "-days", "2", "-extfile", ext)
    return ca, srv, srv_key


def check_tls_and_basic_auth(rtgate, work):
    """Prometheus behind TLS and basic auth (--web.config.file): a certificate the system does not
    trust, or no or wrong credentials, are refused in one line (exit 2); with the farm's CA
    (--prometheus-ca-file) and the right credentials from a file, the history is read."""
    ca, cert, key = make_tls(work)
    web = os.path.join(work, "web.yml")
    with open(web, "w") as f:
        f.write(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n"
                f"basic_auth_users:\n  rtgate: {TEST_USER_HASH}\n")
    cfg = os.path.join(work, "prometheus.yml")
    port = free_port()
    p = subprocess.Popen(["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={work}/tsdb",
                          f"--web.listen-address=127.0.0.1:{port}", f"--web.config.file={web}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"https://127.0.0.1:{port}"
        tls = ssl.create_default_context(cafile=ca)
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "/-/ready", timeout=1, context=tls)
            except urllib.error.HTTPError:
                break  # 401: up, and asking for credentials
            except OSError:
                time.sleep(0.1)
        good, bad = os.path.join(work, "good.auth"), os.path.join(work, "bad.auth")
        with open(good, "w") as f:
            f.write("rtgate:rtgate-lab-test\n")
        with open(bad, "w") as f:
            f.write("rtgate:guess\n")
        base = ["history", "--prometheus", url, "--match", '{host="vm"}', "--since", "2d"]
        r = subprocess.run([rtgate] + base + ["--prometheus-basic-file", good], capture_output=True,
                           text=True)
        if r.returncode != 2 or "certificate" not in r.stderr or r.stderr.count("\n") != 1:
            fail(f"an untrusted certificate: exit {r.returncode}, {r.stderr!r}")
        base += ["--prometheus-ca-file", ca]
        for extra in ([], ["--prometheus-basic-file", bad]):
            r = subprocess.run([rtgate] + base + extra, capture_output=True, text=True)
            if r.returncode != 2 or "HTTP 401" not in r.stderr or r.stderr.count("\n") != 1:
                fail(f"{extra or 'no credentials'}: exit {r.returncode}, {r.stderr!r}")
        code, doc, err = history(rtgate, base[1:] + ["--prometheus-basic-file", good])
        if len(doc["sessions"]) != 30:
            fail(f"with the CA and the right credentials: {len(doc['sessions'])} sessions, {err}")
        print("TLS and basic auth: refused with an untrusted certificate and without or with wrong "
              "credentials (exit 2), read with the CA and the right ones")
    finally:
        p.terminate()
        p.wait(timeout=30)


def check_verdict_series(rtgate, files, work, sessions):
    """`history --textfile`: the verdicts as series, valid for promtool, saying what the JSON says."""
    d = os.path.join(work, "verdicts")
    os.makedirs(d)
    subprocess.run([rtgate, "history", files, "--textfile", d], stdout=subprocess.DEVNULL)
    path = os.path.join(d, "rtgate_history.prom")
    with open(path) as f:
        text = f.read()
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"promtool check metrics refuses {path}: {p.stdout}{p.stderr}")
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            values[series] = float(value)
    where = 'host="vm",kernel_release="6.1.0-52-rt-amd64",suite="lock.latency",case="pi_mutex",' \
            'metric="nonrt_throughput",statistic="value"'
    want = {
        'rtgate_history_outcome{host="vm",kernel_release="6.1.0-52-rt-amd64",outcome="worse"}': 1,
        f'rtgate_history_newest{{{where},verdict="worse"}}': 1,
    }
    for series, v in want.items():
        if values.get(series) != v:
            fail(f"{series} is {values.get(series)}, not {v}")
    change = values.get(f'rtgate_history_newest_change{{{where},bound="estimate"}}')
    low = values.get(f'rtgate_history_newest_change{{{where},bound="low"}}')
    high = values.get(f'rtgate_history_newest_change{{{where},bound="high"}}')
    import math
    # The step is log(0.7) on top of the real sessions' own differences (a few %).
    if change is None or not low <= change <= high or abs(change - math.log(0.7)) > 0.05:
        fail(f"the change {change} [{low}, {high}] is not the step of log(0.7) = {math.log(0.7):.3f}")
    points = [s for s in values if s.startswith("rtgate_history_change_point_timestamp_seconds{")
              and where in s]
    step_at = unix(rfc3339(sessions[20][1]))  # the sessions' times are their starts + duration
    if len(points) != 1 or 'kernel_before="6.1.0-51-rt-amd64"' not in points[0] or \
            'kernel_after="6.1.0-52-rt-amd64"' not in points[0] or 'direction="worse"' not in points[0]:
        fail(f"the step's change point series: {points}")
    if abs(values[points[0]] - step_at) > 120:
        fail(f"the change point is at {values[points[0]]}, not at session 21 ({step_at})")


def gate(rtgate, args):
    p = subprocess.run([rtgate, "gate", "--format", "json"] + args, capture_output=True,
                       text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        fail(f"rtgate gate {' '.join(args)} exited {p.returncode}: {p.stderr}")


def verdicts(doc):
    """Every judged metric's verdict, figures and evidence."""
    out = {}
    for suite in doc["suites"]:
        for m in suite["metrics"]:
            out[(suite["name"], m["case"], m["metric"], m["statistic"])] = rounded(m)
    return doc["verdict"], out


def check_gate(rtgate, files, base, cur, prometheus):
    """gate with the history as files and in Prometheus: the same verdicts, by the same noise;
    over the step, regressed."""
    code_f, doc_f, err_f = gate(rtgate, [base, cur, "--history", files])
    code_p, doc_p, err_p = gate(rtgate, [base, cur] + prometheus)
    noise_f, noise_p = doc_f["session_noise"], doc_p["session_noise"]
    if "boots of this host's history" not in noise_f or \
            noise_p.split(" (--")[0] != noise_f.split(" (--")[0]:
        fail(f"the noise differs: files {noise_f!r}, Prometheus {noise_p!r}")
    a, b = verdicts(doc_f), verdicts(doc_p)
    if code_f != 1:
        fail(f"the gate over the step exits {code_f}, not 1 (regressed): {err_f}")
    if code_p != code_f or a != b:
        diff = [k for k in set(a[1]) | set(b[1]) if a[1].get(k) != b[1].get(k)]
        fail(f"gate --prometheus exits {code_p} (files {code_f}); {len(diff)} verdicts differ ({sorted(diff)}), "
             f"e.g. {diff[:1]}: files {a[1].get(diff[0]) if diff else ''}, "
             f"Prometheus {b[1].get(diff[0]) if diff else ''}")
    print(f"gate: exit {code_p} as with files, {len(a[1])} statistics alike; {noise_p}")


def start_scraped(work):
    """A Pushgateway and a Prometheus that scrapes it every second (honor_labels)."""
    gw_port, prom_port = free_port(), free_port()
    gw = subprocess.Popen(["prometheus-pushgateway", f"--web.listen-address=127.0.0.1:{gw_port}",
                           f"--persistence.file={work}/pushgateway.data"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cfg = os.path.join(work, "scrape.yml")
    with open(cfg, "w") as f:
        f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n"
                "  - job_name: pushgateway\n    honor_labels: true\n"
                f"    static_configs: [{{targets: ['127.0.0.1:{gw_port}']}}]\n")
    prom = subprocess.Popen(["prometheus", f"--config.file={cfg}",
                             f"--storage.tsdb.path={work}/scraped-tsdb",
                             f"--web.listen-address=127.0.0.1:{prom_port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for url in (f"http://127.0.0.1:{gw_port}", f"http://127.0.0.1:{prom_port}"):
        for _ in range(300):
            try:
                if urllib.request.urlopen(url + "/-/ready", timeout=1).status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            fail(f"{url} did not become ready")
    # Ready is not scraping: service discovery hands Prometheus its targets within seconds.
    up = f"http://127.0.0.1:{prom_port}/api/v1/query?query=" + urllib.parse.quote('up{job="pushgateway"} == 1')
    for _ in range(300):
        with urllib.request.urlopen(up, timeout=5) as r:
            if json.load(r)["data"]["result"]:
                break
        time.sleep(0.1)
    else:
        fail("Prometheus never scraped the Pushgateway")
    return [gw, prom], f"http://127.0.0.1:{gw_port}", f"http://127.0.0.1:{prom_port}"


def scraped(prom, path):
    """Waits until Prometheus has scraped the session of `path` from the Pushgateway."""
    with open(path) as f:
        want = unix(json.load(f)["finished_at"])
    q = prom + "/api/v1/query?query=" + urllib.parse.quote('rtgate_run_timestamp_seconds{job="rtgate"}')
    for _ in range(300):
        with urllib.request.urlopen(q, timeout=5) as r:
            if any(abs(float(x["value"][1]) - want) < 0.01 for x in json.load(r)["data"]["result"]):
                return
        time.sleep(0.1)
    fail(f"Prometheus never scraped the session of {path}")


def check_pushed_sessions(rtgate, sessions, work):
    """Push, scrape, read back: sessions pushed one after the other through a Pushgateway, each
    scraped many times, are each one session, and gate as their files do."""
    procs, gw, prom = start_scraped(work)
    try:
        picked = [sessions[i] for i in (0, 1, 2, 3, 10, 11, 12, 20, 21, 22, 23)]
        pushed = os.path.join(work, "pushed")
        os.makedirs(pushed)
        for path, _ in picked:
            shutil.copy(path, pushed)
            p = subprocess.run([rtgate, "export", path, "--push", gw, "--push-required"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                fail(f"push of {path}: exit {p.returncode}: {p.stderr}")
            scraped(prom, path)
            # Replaced no sooner than a step after Prometheus has it: a query step sees it.
            time.sleep(1.1)
        code_f, doc_f, _ = history(rtgate, [pushed])
        code_p, doc_p, err = history(rtgate, ["--prometheus", prom, "--match", 'job="rtgate"',
                                              "--since", "15m", "--step", "1s"])
        if len(doc_p["sessions"]) != len(picked):
            fail(f"{len(picked)} sessions pushed, {len(doc_p['sessions'])} read back: {err}")
        a, b = summary(doc_f), summary(doc_p)
        if a != b:
            fail(f"pushed sessions judge otherwise than their files: files {a[:4]}, "
                 f"Prometheus {b[:4]}")
        print(f"pushed and scraped: {len(picked)} sessions, exit {code_p} as the files' {code_f}")
        check_gate(rtgate, pushed, os.path.join(pushed, os.path.basename(picked[6][0])),
                   os.path.join(pushed, os.path.basename(picked[10][0])),
                   ["--prometheus", prom, "--match", 'job="rtgate"', "--since", "15m", "--step", "1s"])
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=30)


def main():
    rtgate, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for tool in ("prometheus", "promtool", "openssl"):
        if not shutil.which(tool):
            print(f"SKIP: no {tool}")
            return 77
    work = tempfile.mkdtemp(prefix="rtgate-prom-history.")
    prom = None
    try:
        files = os.path.join(work, "files")
        os.makedirs(files)
        sessions = board_history(src, files)
        prom, url = start_prometheus(work, openmetrics(rtgate, sessions, work))
        t0 = time.monotonic()
        code_f, doc_f, _ = history(rtgate, [files])
        t1 = time.monotonic()
        code_p, doc_p, err = history(rtgate, ["--prometheus", url, "--match", '{host="vm"}',
                                              "--since", "2d"])
        t2 = time.monotonic()
        print(f"files: exit {code_f} in {t1 - t0:.2f} s; prometheus: exit {code_p} in "
              f"{t2 - t1:.2f} s; {len(doc_p['sessions'])} sessions, {len(doc_p['series'])} series")
        if len(doc_f["sessions"]) != 30:
            fail(f"the files gave {len(doc_f['sessions'])} sessions, not 30")
        if code_f != 1:
            fail(f"the files' history exits {code_f}, not 1: the step is not found")
        a, b = summary(doc_f), summary(doc_p)
        for what, x, y in zip(("exit code", "outcome", "kernels", "sessions", "series"), a, b):
            if x != y:
                detail = ""
                if isinstance(x, dict):
                    diff = [k for k in set(x) | set(y) if x.get(k) != y.get(k)]
                    detail = f": {len(diff)} differ, e.g. {diff[:1]} {x.get(diff[0])} vs {y.get(diff[0])}"
                fail(f"{what} differ between files and Prometheus{detail}" if detail else
                     f"{what} differ: files {x!r}, Prometheus {y!r}")
        check_verdict_series(rtgate, files, work, sessions)
        check_gate(rtgate, files, sessions[19][0], sessions[29][0],
                   ["--prometheus", url, "--match", '{host="vm"}', "--since", "2d"])
        check_bearer_proxy(rtgate, work, url)
        prom.terminate()
        prom.wait(timeout=30)
        prom = None
        check_tls_and_basic_auth(rtgate, work)
        if shutil.which("prometheus-pushgateway"):
            check_pushed_sessions(rtgate, sessions, work)
        moved = [k for k, v in a[4].items() if v[1] != "[]"]
        print(f"PASS: the same verdict (exit {code_p}) and change points ({', '.join('/'.join(k) for k in moved)})")
        return 0
    finally:
        if prom is not None:
            prom.terminate()
            prom.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
