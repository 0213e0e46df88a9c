// rtgate compare / gate / run --baseline end to end: exit codes a CI job can trust, JUnit that
// validates against the Ant schema Jenkins and GitLab read, and one-line errors on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>

#include "results/result_json.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

// A result with one throughput metric (5 runs around `mean`, CV ~1%) and one latency metric
// (5 runs of 20k log-normal samples, merged as the runner merges runs).
RunReport synthetic(double mean, double latency_scale, std::uint64_t seed,
                    const std::string& cpu_model = "Test CPU") {
  RunReport r;
  r.tool_version = "test";
  r.started_at = "2026-11-29T10:00:00.000Z";
  r.finished_at = "2026-11-29T10:01:00.000Z";
  r.environment.hostname = "testhost";
  r.environment.kernel_release = "6.18.0";
  r.environment.preempt_model = "full";
  r.environment.cpu_model = cpu_model;
  r.environment.online_cpus = 2;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> tput(mean, mean * 0.01);
  std::lognormal_distribution<double> lat(std::log(20'000.0 * latency_scale), 0.3);
  SuiteResult s;
  s.name = "lock.throughput";
  s.runs = 5;
  Case c;
  c.name = "ticket/2t";
  Metric m = Metric::throughput("throughput", "Mops/s", tput(rng));
  for (int i = 1; i < 5; ++i) m.samples.push_back(tput(rng));
  c.metrics.push_back(m);
  Metric latency;
  for (int run = 0; run < 5; ++run) {
    LatencyHistogram h;
    double mx = 0;
    for (int i = 0; i < 20000; ++i) {
      const double v = lat(rng);
      h.record(static_cast<std::int64_t>(v));
      mx = std::max(mx, v);
    }
    Metric one = Metric::latency("acquire_latency", h, {mx});
    if (run == 0) {
      latency = std::move(one);
    } else {
      latency.merge(one);
    }
  }
  c.metrics.push_back(latency);
  s.cases.push_back(c);
  r.suites.push_back(s);
  return r;
}

struct Files {
  TempDir dir;
  std::string write(const std::string& name, const RunReport& r) {
    const std::string path = dir.file(name);
    EXPECT_EQ(write_result_file(path, r), "");
    return path;
  }
};

void expect_valid_junit(const std::string& path) {
  const std::string xsd = std::string(RTGATE_SOURCE_DIR) + "/../shared/schemas/JUnit.xsd";
  if (!std::filesystem::exists(xsd)) GTEST_SKIP() << "needs " << xsd << " (../shared)";
  if (std::system("command -v xmllint >/dev/null") != 0) GTEST_SKIP() << "needs xmllint";
  const std::string cmd = "xmllint --noout --schema " + xsd + " " + path + " 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << path << " does not validate against " << xsd;
}

TEST(GateCli, SameDistributionIsNotARegression) {
  Files f;
  const auto base = f.write("b.json", synthetic(10, 1, 1));
  const auto cur = f.write("c.json", synthetic(10, 1, 2));
  const auto r = run_rtgate({"gate", base, cur, "--junit", f.dir.file("j.xml")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verdict: "), std::string::npos);
  expect_valid_junit(f.dir.file("j.xml"));
}

TEST(GateCli, AThroughputDropIsARegressionWithEvidenceInJunit) {
  Files f;
  const auto base = f.write("b.json", synthetic(10, 1, 1));
  const auto cur = f.write("c.json", synthetic(8, 1, 2));  // -20%, far beyond noise
  const auto r = run_rtgate({"gate", base, cur, "--junit", f.dir.file("j.xml")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("regressed"), std::string::npos) << r.out;
  std::ifstream in(f.dir.file("j.xml"));
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<failure"), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"regressed\""), std::string::npos);
  EXPECT_NE(xml.find("run_value (decided)"), std::string::npos) << "the evidence is in the failure";
  EXPECT_NE(xml.find("detectable"), std::string::npos) << xml;
  EXPECT_NE(xml.find("decided by value per run"), std::string::npos) << xml;
  EXPECT_NE(xml.find("kernel_release"), std::string::npos) << "environment as properties";
  expect_valid_junit(f.dir.file("j.xml"));
}

TEST(GateCli, ALatencyShiftIsARegression) {
  Files f;
  const auto base = f.write("b.json", synthetic(10, 1, 1));
  const auto cur = f.write("c.json", synthetic(10, 2, 2));  // every latency doubled
  const auto r = run_rtgate({"gate", base, cur});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("acquire_latency: regressed"), std::string::npos) << r.out;
  // The gate's own formats judge alike: the exit code is the verdict's, whatever is printed.
  const auto js = run_rtgate({"gate", base, cur, "--format", "json"});
  EXPECT_EQ(js.exit_code, 1) << js.out;
  EXPECT_EQ(nlohmann::json::parse(js.out)["verdict"], "regressed") << js.out;
  const auto md = run_rtgate({"gate", base, cur, "--format", "markdown"});
  EXPECT_EQ(md.exit_code, 1) << md.out;
  EXPECT_EQ(md.out.rfind("| suite | case |", 0), 0u) << md.out;
}

TEST(GateCli, DifferentMachinesAreInconclusiveUnlessAllowed) {
  Files f;
  const auto base = f.write("b.json", synthetic(10, 1, 1, "CPU A"));
  const auto cur = f.write("c.json", synthetic(10, 1, 2, "CPU B"));
  auto r = run_rtgate({"gate", base, cur});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("cpu_model"), std::string::npos) << r.out;
  EXPECT_EQ(run_rtgate({"gate", base, cur, "--fail-on-inconclusive"}).exit_code, 1);
  EXPECT_EQ(run_rtgate({"gate", base, cur, "--allow-env-mismatch"}).exit_code, 0);
}

TEST(GateCli, CompareFormats) {
  Files f;
  const auto base = f.write("b.json", synthetic(10, 1, 1));
  const auto cur = f.write("c.json", synthetic(8, 1, 2));
  const auto md = run_rtgate({"compare", base, cur, "--format", "markdown"});
  EXPECT_EQ(md.exit_code, 0);
  EXPECT_EQ(md.out.rfind("| suite | case |", 0), 0u) << md.out;
  const auto js = run_rtgate({"compare", base, cur, "--format", "json"});
  EXPECT_EQ(js.exit_code, 0);
  const auto doc = nlohmann::json::parse(js.out);
  EXPECT_EQ(doc["schema"], "rtgate.gate/1");
  EXPECT_EQ(doc["suites"][0]["metrics"][0]["verdict"], "regressed");
}

TEST(GateCli, BadInputIsAOneLineErrorAndExit2) {
  Files f;
  const auto good = f.write("good.json", synthetic(10, 1, 1));
  std::ofstream(f.dir.file("garbage.json")) << "{ nope";
  std::ofstream(f.dir.file("v2.json")) << R"({"schema": "rtgate.result/9", "suites": []})";
  std::ofstream(f.dir.file("policy.yaml"))
      << "metrics:\n  lock.throughput/no_such_metric:\n    alpha: 0.01\n";
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {{"gate", f.dir.file("missing.json"), good}, "BASE: cannot read"},
           {{"gate", good, f.dir.file("garbage.json")}, "CUR: "},
           {{"gate", f.dir.file("v2.json"), good}, "unsupported schema 'rtgate.result/9'"},
           {{"gate", good, good, "--policy", f.dir.file("policy.yaml")}, "no_such_metric"},
           {{"gate", good, good, "--policy", f.dir.file("nope.yaml")}, "--policy"},
           {{"gate", good}, "CUR"}}) {
    const auto r = run_rtgate(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
}

// What the baseline had and current lacks is never green: exit 3 (1 with --fail-on-inconclusive).
TEST(GateCli, ASuiteAbsentInCurrentIsMissingAndNotGreen) {
  Files f;
  RunReport cur = synthetic(10, 1, 2);
  RunReport base = synthetic(10, 1, 1);
  SuiteResult extra;
  extra.name = "cyclic";
  base.suites.push_back(extra);
  const auto b = f.write("b.json", base), c = f.write("c.json", cur);
  const auto r = run_rtgate({"gate", b, c});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("missing"), std::string::npos) << r.out;
  EXPECT_EQ(run_rtgate({"gate", b, c, "--fail-on-inconclusive"}).exit_code, 1);
  // Only in current: reported, and the gate judges the rest.
  EXPECT_EQ(run_rtgate({"gate", c, b}).exit_code, 0) << run_rtgate({"gate", c, b}).out;
}

TEST(GateCli, RunWritesValidJunitWithoutABaseline) {
  Files f;
  const auto r = run_rtgate({"run", "lock.throughput", "--duration", "0.5", "-p", "locks=ticket",
                             "-p", "threads=1", "--junit", f.dir.file("run.xml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_valid_junit(f.dir.file("run.xml"));
}

// Two boots are two sessions: a 15% throughput drop between them is within what the default
// prior allows a boot (a 10% SD a session), unless this host's own history of sessions shows
// that its boots agree to about 1%: then it is a regression. The table says which noise it used.
TEST(GateCli, AHistoryOfSessionsDecidesWhatTheDefaultPriorCannot) {
  Files f;
  auto session = [&](const std::string& name, double mean, std::uint64_t seed, int hour) {
    RunReport r = synthetic(mean, 1, seed);
    r.environment.boot_id = "boot-" + name;
    r.environment.pid = 100 + hour;
    r.started_at =
        "2026-11-29T" + std::string(hour < 10 ? "0" : "") + std::to_string(hour) + ":00:00.000Z";
    return r;
  };
  std::filesystem::create_directories(f.dir.file("history/6.18.0"));
  std::mt19937_64 rng(7);
  std::normal_distribution<double> offset(0, 0.01);
  for (int i = 0; i < 8; ++i) {
    f.write("history/6.18.0/s" + std::to_string(i) + ".json",
            session("h" + std::to_string(i), 10 * std::exp(offset(rng)), 40 + i, i));
  }
  std::ofstream(f.dir.file("history/README")) << "not a result";
  std::ofstream(f.dir.file("history/broken.json")) << "{ nope";
  const auto base = f.write("b.json", session("b", 10, 1, 10));
  const auto cur = f.write("c.json", session("c", 8.5, 2, 11));

  const auto alone = run_rtgate({"gate", base, cur});
  EXPECT_EQ(alone.exit_code, 3) << alone.out;
  EXPECT_NE(alone.out.find("sessions: 1 baseline session against 1 current; session noise by the "
                           "default prior (separate boots, bare_metal): no history"),
            std::string::npos)
      << alone.out;

  const auto learned = run_rtgate({"gate", base, cur, "--history", f.dir.file("history")});
  EXPECT_EQ(learned.exit_code, 1) << learned.out;
  EXPECT_NE(learned.out.find("session noise from 9 boots of this host's history"),
            std::string::npos)
      << learned.out;
  EXPECT_NE(learned.out.find("8 of 8 results measured what the baseline did, on its host; 1 files "
                             "not results"),
            std::string::npos)
      << learned.out;

  // Several baseline files are several sessions of the baseline.
  const auto two = run_rtgate({"gate", base, f.dir.file("history/6.18.0/s7.json"), cur, "--history",
                               f.dir.file("history")});
  EXPECT_NE(two.out.find("sessions: 2 baseline sessions against 1 current"), std::string::npos)
      << two.out;
  const auto missing = run_rtgate({"gate", base, cur, "--history", f.dir.file("nope")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--history: "), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace rtgate::test
