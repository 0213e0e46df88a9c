// `rtgate import` of the real tools' output, made here by running them (rt-tests 2.x, rtla):
// counts, min and max must be the tool's own, the quantiles within the layout's resolution of
// the tool's histogram, and an imported cyclictest gated against `rtgate run cyclic` of the same
// parameters must differ in nothing but who measured (and cyclic's own block_ms).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "base/io/proc_files.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

using nlohmann::json;

bool on_path(const std::string& tool) {
  return std::system(("command -v " + tool + " > /dev/null 2>&1").c_str()) == 0;
}

// Runs a tool of rt-tests or rtla; its output to `log`. The exit status.
int run_tool(const std::string& command, const std::string& log) {
  const int rc = std::system((command + " > " + log + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#define NEED_TOOL(tool)                                                                         \
  if (!on_path(tool)) GTEST_SKIP() << tool << " not installed (ci/setup.sh installs rt-tests)"; \
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;

// The first two CPUs this process may use, as the kernel's list ("0-1"): both the tools and
// rtgate get the same one.
std::string two_cpus() {
  std::vector<int> cpus = rt::allowed_cpus();
  if (cpus.size() > 2) cpus.resize(2);
  return text::format_cpu_list(cpus);
}

const json& suite_of(const json& doc, const std::string& name) {
  for (const json& s : doc["suites"]) {
    if (s["name"] == name) return s;
  }
  throw std::runtime_error("no suite " + name);
}

const json& metric_of(const json& c, const std::string& name) {
  for (const json& m : c["metrics"]) {
    if (m["name"] == name) return m;
  }
  throw std::runtime_error("no metric " + name);
}

const json& case_of(const json& suite, const std::string& name) {
  for (const json& c : suite["cases"]) {
    if (c["name"] == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

// The tool's own nearest-rank quantile of its histogram, in its unit; its overflowed samples
// rank above every bucket.
std::uint64_t tool_quantile(const json& hist, std::uint64_t count, double q) {
  std::map<std::uint64_t, std::uint64_t> buckets;
  for (const auto& [k, v] : hist.items()) buckets[std::stoull(k)] = v.get<std::uint64_t>();
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count)));
  std::uint64_t seen = 0;
  for (const auto& [v, n] : buckets) {
    seen += n;
    if (seen >= rank) return v;
  }
  return UINT64_MAX;  // among the overflowed samples
}

TEST(Import, CyclictestHistogramAgreesWithTheToolsOwnFigures) {
  NEED_TOOL("cyclictest");
  TempDir dir;
  const std::string out = dir.file("ct.json");
  ASSERT_EQ(run_tool("cyclictest -D 2 -m -p 95 -i 1000 -d 0 -t 2 -a " + two_cpus() +
                         " -q -h 20000 --json=" + out,
                     dir.file("ct.log")),
            0)
      << read_all(dir.file("ct.log"));
  const auto r = run_rtgate({"import", out, "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json tool = read_json(out), doc = read_json(dir.file("r.json"));
  const json& s = suite_of(doc, "cyclic");
  EXPECT_EQ(s["imported"]["tool"], "cyclictest");
  EXPECT_EQ(s["imported"]["commands"][0], tool["cmdline:"]);
  EXPECT_EQ(doc["environment"]["hostname"], tool["sysinfo"]["nodename"]);
  EXPECT_EQ(doc["environment"]["kernel_release"], tool["sysinfo"]["release"]);
  for (const auto& [i, t] : tool["thread"].items()) {
    const json& m =
        metric_of(case_of(s, "cpu" + std::to_string(t["cpu"].get<int>())), "wakeup_latency");
    const json& sum = m["summary"];
    const auto cycles = t["cycles"].get<std::uint64_t>();
    EXPECT_EQ(sum["count"], cycles) << "thread " << i;
    EXPECT_EQ(sum["min"], t["min"].get<std::uint64_t>() * 1000);
    EXPECT_EQ(sum["max"], t["max"].get<std::uint64_t>() * 1000);
    // The tool prints its average to 0.01 us.
    EXPECT_NEAR(sum["mean"].get<double>(), t["avg"].get<double>() * 1000, 10);
    // A quantile of i us reads its log-linear bucket's upper edge: within 1/64 above i us.
    for (const auto& [q, key] : {std::pair{0.5, "p50"}, {0.99, "p99"}}) {
      const std::uint64_t us = tool_quantile(t["histogram"], cycles, q);
      if (us == UINT64_MAX) continue;  // beyond -h: not known (the unit test covers that)
      const auto ns = sum[key].get<std::uint64_t>();
      EXPECT_GE(ns, us * 1000) << key;
      EXPECT_LE(ns, us * 1000 + us * 1000 / 64) << key;
    }
  }
}

TEST(Import, CyclictestWithoutHistogramIsSummaryOnly) {
  NEED_TOOL("cyclictest");
  TempDir dir;
  const std::string out = dir.file("ct.json");
  ASSERT_EQ(run_tool("cyclictest -D 2 -m -p 95 -t 1 -a 0 -q --json=" + out, dir.file("ct.log")), 0);
  const auto r = run_rtgate({"import", out, "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no histogram (cyclictest without -h)"), std::string::npos) << r.out;
  const json tool = read_json(out), doc = read_json(dir.file("r.json"));
  const json& m = metric_of(case_of(suite_of(doc, "cyclic"), "cpu0"), "wakeup_latency");
  EXPECT_TRUE(m["summary_only"].get<bool>());
  EXPECT_FALSE(m.contains("histogram"));
  EXPECT_FALSE(m["summary"].contains("p99"));  // unknown, not written as 0
  EXPECT_EQ(m["summary"]["count"], tool["thread"]["0"]["cycles"]);
  EXPECT_EQ(m["summary"]["max"], tool["thread"]["0"]["max"].get<std::uint64_t>() * 1000);
  // The gate of it against itself judges the max and says the quantiles are not comparable.
  const auto g = run_rtgate({"gate", dir.file("r.json"), dir.file("r.json")});
  EXPECT_EQ(g.exit_code, 3) << g.out << g.err;
  EXPECT_NE(g.out.find("p99 not comparable: current has count, min, mean and max only"),
            std::string::npos)
      << g.out;
}

TEST(Import, OslatCountsEveryLoopAndKeepsItsMax) {
  NEED_TOOL("oslat");
  TempDir dir;
  const std::string out = dir.file("oslat.json");
  // The last CPU: oslat's main thread stays on CPU 0.
  const std::string cpu = std::to_string(rt::allowed_cpus().back());
  ASSERT_EQ(run_tool("oslat -D 2 -c " + cpu + " -q --json=" + out, dir.file("oslat.log")), 0)
      << read_all(dir.file("oslat.log"));
  const auto r = run_rtgate({"import", out, "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json tool = read_json(out), doc = read_json(dir.file("r.json"));
  const json& t = tool["thread"]["0"];
  std::uint64_t loops = 0;
  for (const auto& [k, v] : t["histogram"].items()) loops += v.get<std::uint64_t>();
  const json& m = metric_of(case_of(suite_of(doc, "oslat"), "cpu" + cpu), "loop_latency");
  EXPECT_EQ(m["summary"]["count"], loops);
  EXPECT_EQ(m["summary"]["max"], t["max"].get<std::uint64_t>() * 1000);
  EXPECT_EQ(m["summary"]["min"], t["min"].get<std::uint64_t>() * 1000);
}

// The tools that keep no histogram: the sample count and max are the tool's.
TEST(Import, SummaryOnlyToolsKeepTheirCountsAndMax) {
  NEED_TOOL("pmqtest");
  TempDir dir;
  struct Tool {
    std::string command, suite, file;
  };
  const std::vector<Tool> tools = {
      {"signaltest -D 1 -p 90 -m -q", "signaltest", "sig.json"},
      {"pmqtest -D 1 -p 90 -q -S -i 1000", "pmqtest", "pmq.json"},
      {"ptsematest -D 1 -p 90 -q -S -i 1000", "ptsematest", "ptsem.json"},
      {"pi_stress --duration=2 --groups=1 -q", "pi_stress", "pis.json"}};
  std::vector<std::string> args = {"import"};
  for (const Tool& t : tools) {
    ASSERT_EQ(run_tool(t.command + " --json=" + dir.file(t.file), dir.file(t.file + ".log")), 0)
        << t.command << ": " << read_all(dir.file(t.file + ".log"));
    args.push_back(dir.file(t.file));
  }
  args.insert(args.end(), {"-o", dir.file("r.json")});
  const auto r = run_rtgate(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = read_json(dir.file("r.json"));
  const json sig = read_json(dir.file("sig.json"));
  for (const auto& [i, t] : sig["thread"].items()) {
    const json& m = metric_of(case_of(suite_of(doc, "signaltest"), "thread" + i), "wakeup_latency");
    EXPECT_EQ(m["summary"]["count"], t["cycles"]);
    EXPECT_EQ(m["summary"]["max"], t["max"].get<std::uint64_t>() * 1000);
  }
  for (const char* tool : {"pmq", "ptsem"}) {
    const json t = read_json(dir.file(std::string(tool) + ".json"));
    const json& s = suite_of(doc, std::string(tool) == "pmq" ? "pmqtest" : "ptsematest");
    for (const auto& [i, p] : t["thread"].items()) {
      const json& m = metric_of(case_of(s, "pair" + i), "wakeup_latency");
      EXPECT_EQ(m["summary"]["count"], p["sender"]["samples"]);
      EXPECT_EQ(m["summary"]["max"], p["receiver"]["max"].get<std::uint64_t>() * 1000);
    }
  }
  const json pis = read_json(dir.file("pis.json"));
  const json& inv = metric_of(case_of(suite_of(doc, "pi_stress"), "all"), "inversions_total");
  EXPECT_EQ(inv["samples"][0].get<double>(), pis["inversion"].get<double>());
  EXPECT_EQ(suite_of(doc, "pi_stress")["status"], pis["return_code"] == 0 ? "passed" : "failed");
}

// tracefs at /sys/kernel/tracing, mounted when it is not; "" or why timerlat cannot run.
std::string timerlat_unavailable() {
  const std::string tracers = "/sys/kernel/tracing/available_tracers";
  if (access(tracers.c_str(), R_OK) != 0 &&
      mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) {
    return "tracefs is not mounted and cannot be (not root?)";
  }
  const std::string list = proc::read_trimmed(tracers);
  if (list.find("timerlat") == std::string::npos) {
    return "the running kernel has no timerlat tracer (available: " + list + ")";
  }
  return "";
}

TEST(Import, RtlaTimerlatHistAgreesWithItsSummary) {
  if (!on_path("rtla")) GTEST_SKIP() << "rtla not installed";
  if (const std::string why = timerlat_unavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string cmd = "rtla timerlat hist -d 3 -c 0 -p 1000";
  ASSERT_EQ(run_tool(cmd, dir.file("rtla.txt")), 0) << read_all(dir.file("rtla.txt"));
  const auto r =
      run_rtgate({"import", dir.file("rtla.txt"), "--cmdline", cmd, "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err << read_all(dir.file("rtla.txt"));
  const json doc = read_json(dir.file("r.json"));
  const json& s = suite_of(doc, "timerlat");
  EXPECT_EQ(s["params"]["period_us"], 1000);
  // rtla's own count and max lines, column by column.
  std::ifstream in(dir.file("rtla.txt"));
  std::map<std::string, std::vector<std::uint64_t>> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string key;
    w >> key;
    for (std::uint64_t v; w >> v;) rows[key].push_back(v);
  }
  ASSERT_EQ(rows["count:"].size(), 2u);  // IRQ-000, Thr-000
  const json& c = case_of(s, "cpu0");
  EXPECT_EQ(metric_of(c, "irq_latency")["summary"]["count"], rows["count:"][0]);
  EXPECT_EQ(metric_of(c, "thread_latency")["summary"]["count"], rows["count:"][1]);
  EXPECT_EQ(metric_of(c, "thread_latency")["summary"]["max"], rows["max:"][1] * 1000);
}

TEST(Import, ImportedCyclictestGatesAgainstCyclicOfTheSameParameters) {
  NEED_TOOL("cyclictest");
  TempDir dir;
  const std::string cpus = two_cpus();
  ASSERT_EQ(run_tool("cyclictest -D 3 -m -p 95 -i 1000 -d 0 -t 2 -a " + cpus +
                         " -q -h 20000 --json=" + dir.file("ct.json"),
                     dir.file("ct.log")),
            0);
  const auto run = run_rtgate({"run", "cyclic", "-p", "priority=95", "-p", "interval_us=1000", "-p",
                               "cpus=" + cpus, "--duration", "3", "--no-progress", "-o",
                               dir.file("cyclic.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Imported where cyclictest ran: the rest of the environment from this machine.
  const auto im =
      run_rtgate({"import", "--host-env", dir.file("ct.json"), "-o", dir.file("ct-r.json")});
  ASSERT_EQ(im.exit_code, 0) << im.err;
  const auto g = run_rtgate({"gate", dir.file("ct-r.json"), dir.file("cyclic.json")});
  // Two instruments are never one system's change: inconclusive, saying what differs, which is
  // who measured and cyclic's block_ms (cyclictest has no blocks), nothing of the parameters
  // both have (interval, priority, policy, CPUs, distance) and nothing of the machine.
  EXPECT_EQ(g.exit_code, 3) << g.out << g.err;
  EXPECT_NE(g.out.find("incomparable: cyclic: measured by: 'cyclictest "), std::string::npos)
      << g.out;
  EXPECT_NE(g.out.find("-> 'rtgate', block_ms: (absent) -> 1000\n"), std::string::npos) << g.out;
  EXPECT_EQ(g.out.find("environment differs"), std::string::npos) << g.out;
  EXPECT_EQ(g.out.find("run options:"), std::string::npos) << g.out;
  // Judged anyway, every statistic of wakeup_latency is compared: the histogram's quantiles
  // and the max; what cyclictest does not count (missed periods) is new in current.
  const auto c =
      run_rtgate({"compare", dir.file("ct-r.json"), dir.file("cyclic.json"), "--format", "json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json verdicts = json::parse(c.out);
  int judged = 0;
  for (const json& s : verdicts["suites"]) {
    for (const json& m : s["metrics"]) {
      if (m["metric"] == "missed_periods") {
        EXPECT_EQ(m["verdict"], "missing") << m.dump();
      }
      if (m["metric"] != "wakeup_latency") continue;
      ++judged;
      for (const json& e : m["evidence"]) EXPECT_NE(e["test"], "not_comparable") << e.dump();
    }
  }
  EXPECT_EQ(judged, static_cast<int>(text::parse_cpu_list(cpus)->size()));
}

TEST(Import, ReportExportAndHistoryReadAnImport) {
  NEED_TOOL("cyclictest");
  TempDir dir;
  for (const char* n : {"a", "b"}) {
    ASSERT_EQ(run_tool("cyclictest -D 1 -m -p 95 -t 1 -a 0 -q --json=" + dir.file(n) + ".json",
                       dir.file("ct.log")),
              0);
    ASSERT_EQ(
        run_rtgate({"import", dir.file(n) + ".json", "-o", dir.file(n) + "-r.json"}).exit_code, 0);
  }
  const auto rep = run_rtgate({"report", dir.file("a-r.json"), "-o", dir.file("r.html")});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(read_all(dir.file("r.html")).find("count, min, mean and max only"), std::string::npos);
  ASSERT_EQ(mkdir(dir.file("tf").c_str(), 0755), 0);
  const auto ex = run_rtgate({"export", dir.file("a-r.json"), "--textfile", dir.file("tf")});
  EXPECT_EQ(ex.exit_code, 0) << ex.err;
  // Two sessions of one host and selection are one history (one kernel: exit 3), whose only
  // series is the max: a summary-only metric has no quantiles to follow.
  const auto h = run_rtgate({"history", dir.file("a-r.json"), dir.file("b-r.json")});
  EXPECT_EQ(h.exit_code, 3) << h.out << h.err;
  EXPECT_NE(h.out.find("history: 2 sessions"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("1 of 1 statistics"), std::string::npos) << h.out;
}

TEST(Import, BadInputIsOneLineAndExit2) {
  TempDir dir;
  write_all(dir.file("text"), "hello\n");
  write_all(dir.file("empty"), "");
  write_all(dir.file("result.json"), R"({"schema": "rtgate.result/3", "suites": []})");
  for (const std::string& f : {dir.file("text"), dir.file("empty"), dir.file("result.json"),
                               dir.file("absent"), dir.path()}) {
    const auto r = run_rtgate({"import", f, "-o", dir.file("r.json")});
    EXPECT_EQ(r.exit_code, 2) << f;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("rtgate: error: " + f, 0), 0u) << r.err;
    EXPECT_EQ(node_type(dir.file("r.json")), '-') << "written despite the error";
  }
}

}  // namespace
}  // namespace rtgate::test
