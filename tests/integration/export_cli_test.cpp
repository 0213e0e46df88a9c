// `rtgate export`: every registered exporter rendered from a stored result, with the
// gate's verdicts when --baseline is given; exit 0 when written whatever the verdict, 2 on bad
// input, 4 when a required push fails. The push goes to a real Pushgateway scraped by a real
// Prometheus.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

#include "results/result_json.h"
#include "tests/integration/process.h"
#include "tests/integration/prom_servers.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A board's result on disk: cyclic on 4 CPUs and lock.latency over 3 locks, 5 runs; `factor`
// scales lock0's acquire latency (2: a regression the gate sees).
std::string result(const TempDir& dir, const std::string& name, std::uint64_t seed,
                   double factor = 1) {
  std::mt19937_64 rng(seed);
  gate::sim::Layout l;
  l.cpus = 4;
  l.locks = 3;
  gate::sim::Change change;
  if (factor != 1) {
    change = {.suite = "lock.latency",
              .case_name = "lock0",
              .metric = "acquire_latency",
              .latency_factor = factor};
  }
  RunReport r = gate::sim::side(rng, l, 5, {}, change);
  r.environment.hostname = "exportbox";
  r.finished_at = "2026-12-02T01:00:00Z";
  const std::string path = dir.file(name);
  EXPECT_EQ(write_result_file(path, r), "");
  return path;
}

TEST(ExportCli, EveryLocalExporterFromAStoredResult) {
  TempDir dir;
  const std::string cur = result(dir, "cur.json", 1);
  const auto r = run_rtgate({"export", cur, "--junit", dir.file("j.xml"), "--textfile", dir.path(),
                             "--report", dir.file("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string junit = slurp(dir.file("j.xml"));
  EXPECT_NE(junit.find("<testsuite name=\"cyclic\""), std::string::npos) << junit.substr(0, 500);
  EXPECT_NE(junit.find("lock.latency"), std::string::npos);
  EXPECT_EQ(junit.find("<failure"), std::string::npos);  // no gate, no verdict
  const std::string prom = slurp(dir.file("rtgate.prom"));
  EXPECT_NE(prom.find("rtgate_latency_max_seconds{host=\"exportbox\""), std::string::npos);
  EXPECT_EQ(prom.find("rtgate_verdict{"), std::string::npos);
  EXPECT_NE(slurp(dir.file("r.html")).find("<!DOCTYPE html>"), std::string::npos);
}

// A result from elsewhere with markup in started_at and U+FFFF in its host name: the JUnit stays
// well-formed XML (and valid against the schema where xmllint and ../shared have it).
TEST(ExportCli, HostileStringsInAResultKeepTheJunitValid) {
  TempDir dir;
  std::mt19937_64 rng(3);
  RunReport r = gate::sim::side(rng, gate::sim::Layout{}, 3, {}, {});
  r.started_at = "<x a='1'>&</x> 2026-12-07T10:00:00Z";
  r.environment.hostname = "box\xef\xbf\xbf<&>";
  ASSERT_EQ(write_result_file(dir.file("r.json"), r), "");
  const auto run = run_rtgate({"export", dir.file("r.json"), "--junit", dir.file("j.xml")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string junit = slurp(dir.file("j.xml"));
  EXPECT_EQ(junit.find("<x"), std::string::npos);
  EXPECT_EQ(junit.find("\xef\xbf\xbf"), std::string::npos) << "U+FFFF is not an XML Char";
  EXPECT_NE(junit.find("timestamp=\"1970-01-01T00:00:00\""), std::string::npos);
  if (std::system("command -v xmllint >/dev/null") == 0) {
    const std::string xsd = std::string(RTGATE_SOURCE_DIR) + "/../shared/schemas/JUnit.xsd";
    const std::string schema = std::filesystem::exists(xsd) ? " --schema " + xsd : "";
    const std::string cmd = "xmllint --noout" + schema + " " + dir.file("j.xml") + " 2>/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << junit.substr(0, 600);
  }
}

// A result kept as .json.gz (a farm's archive) is exported and gated as the plain file is.
TEST(ExportCli, ACompressedResultIsReadAsThePlainOne) {
  TempDir dir;
  const RunReport report = read_report_file(result(dir, "cur.json", 1));
  ASSERT_EQ(write_result_file(dir.file("cur.json.gz"), report), "");
  ASSERT_EQ(write_result_file(dir.file("base.json.gz"), report), "");
  EXPECT_LT(std::filesystem::file_size(dir.file("cur.json.gz")) * 3,
            std::filesystem::file_size(dir.file("cur.json")));
  auto r = run_rtgate({"export", dir.file("cur.json"), "--textfile", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string plain = slurp(dir.file("rtgate.prom"));
  r = run_rtgate({"export", dir.file("cur.json.gz"), "--textfile", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir.file("rtgate.prom")), plain);
  const auto gz = run_rtgate({"gate", dir.file("base.json.gz"), dir.file("cur.json.gz")});
  const auto txt = run_rtgate({"gate", dir.file("cur.json"), dir.file("cur.json")});
  EXPECT_EQ(gz.exit_code, txt.exit_code) << gz.err;
  EXPECT_EQ(gz.out, txt.out);
}

TEST(ExportCli, WithABaselineTheExportersCarryTheVerdictsAndTheExitIsStillZero) {
  TempDir dir;
  const std::string base = result(dir, "base.json", 1);
  const std::string cur = result(dir, "cur.json", 2, 2.0);
  const auto r = run_rtgate(
      {"export", cur, "--baseline", base, "--junit", dir.file("j.xml"), "--textfile", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string junit = slurp(dir.file("j.xml"));
  EXPECT_NE(junit.find("<failure"), std::string::npos);
  EXPECT_NE(junit.find("acquire_latency"), std::string::npos);
  const std::string prom = slurp(dir.file("rtgate.prom"));
  EXPECT_NE(prom.find("case=\"lock0\",metric=\"acquire_latency\",suite=\"lock.latency\","
                      "verdict=\"regressed\"} 1"),
            std::string::npos);
  // The same verdict `rtgate gate` gives: exit 1 there.
  EXPECT_EQ(run_rtgate({"gate", base, cur}).exit_code, 1);
}

TEST(ExportCli, SeriesOptionsReachTheTextfile) {
  TempDir dir;
  const std::string cur = result(dir, "cur.json", 1);
  ASSERT_EQ(run_rtgate({"export", cur, "--textfile", dir.path(), "--prom-buckets", "none",
                        "--prom-cases", "suite"})
                .exit_code,
            0);
  const std::string prom = slurp(dir.file("rtgate.prom"));
  EXPECT_EQ(prom.find("rtgate_latency_seconds_bucket"), std::string::npos);
  EXPECT_EQ(prom.find("case=\"cpu0\""), std::string::npos);
  EXPECT_NE(prom.find("rtgate_suite_latency_worst_seconds{"), std::string::npos);
}

TEST(ExportCli, AnOldResultIsPublishedToo) {
  TempDir dir;
  const std::string v1 =
      std::string(RTGATE_SOURCE_DIR) + "/tests/fuzz/corpus/result_loader/cyclic_1s.json";
  const auto r = run_rtgate({"export", v1, "--textfile", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(slurp(dir.file("rtgate.prom")).find("cpu=\"1\""), std::string::npos);
}

TEST(ExportCli, BadInputIsExit2WithOneLine) {
  TempDir dir;
  const std::string cur = result(dir, "cur.json", 1);
  std::ofstream(dir.file("garbage.json")) << "{\"schema\": 1";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"export", cur}, "nothing to export"},
      {{"export", cur, "--junit", dir.path()}, "--junit: "},
      {{"export", cur, "--textfile", "/nonexistent/dir"}, "--textfile: "},
      {{"export", cur, "--textfile", dir.path(), "--prom-buckets", "20us,10us"},
       "--prom-buckets: "},
      {{"export", cur, "--textfile", dir.path(), "--prom-cases", "some"}, "--prom-cases: "},
      {{"export", cur, "--push", "gw:9091"}, "--push: "},
      {{"export", cur, "--junit", dir.file("j.xml"), "--push-required"}, "--push-required"},
      {{"export", cur, "--junit", dir.file("j.xml"), "--policy", "p.yaml"}, "need --baseline"},
      {{"export", dir.file("garbage.json"), "--junit", dir.file("j.xml")}, "RESULT: "},
      {{"export", cur, "--baseline", dir.file("missing.json"), "--junit", dir.file("j.xml")},
       "--baseline: "}};
  for (const auto& [args, expect] : cases) {
    const auto r = run_rtgate(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("j.xml")));
}

TEST(ExportCli, AFailedPushWarnsUnlessRequired) {
  TempDir dir;
  const std::string cur = result(dir, "cur.json", 1);
  const std::string url = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  auto r = run_rtgate({"export", cur, "--push", url, "--junit", dir.file("j.xml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("rtgate: warning: push to " + url + " failed"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.file("j.xml")));  // local outputs first
  r = run_rtgate({"export", cur, "--push", url, "--push-required"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

TEST(ExportCli, APushReachesPrometheusThroughThePushgateway) {
  if (const std::string why = missing_prometheus_binaries(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string cur = result(dir, "cur.json", 1);
  const LoopbackListener serve;  // a port nobody serves on: the stack's second scrape target
  PrometheusStack stack(serve.port(),
                        std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/rules.yml");
  const auto r = run_rtgate({"export", cur, "--push", stack.pushgateway_url(), "--push-required"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto max = stack.wait_for(
      "rtgate_latency_max_seconds{host=\"exportbox\",suite=\"cyclic\",case=\"cpu3\"}");
  ASSERT_EQ(max.size(), 1u);
  const RunReport report = read_report_file(cur);
  EXPECT_DOUBLE_EQ(
      sample_value(max[0]),
      static_cast<double>(report.suites[0].cases[3].find("wakeup_latency")->histogram->max()) /
          1e9);
}

// The grouping key is the URL's path: a host name with '/', a space or '%' goes base64url-encoded
// and still names one group, with the name decoded. A push the Pushgateway refuses (here: a family
// another group already holds as a counter) fails with the gateway's own reason.
TEST(ExportCli, AnyHostNameIsOneGroupAndARefusalSaysWhy) {
  if (const std::string why = missing_prometheus_binaries(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  RunReport report = read_report_file(result(dir, "cur.json", 1));
  report.environment.hostname = "lab/board 7%";
  const std::string odd = dir.file("odd.json");
  ASSERT_EQ(write_result_file(odd, report), "");
  const LoopbackListener serve;
  PrometheusStack stack(serve.port(),
                        std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/rules.yml");
  const auto r = run_rtgate({"export", odd, "--push", stack.pushgateway_url(), "--push-required"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int status = 0;
  const auto groups = nlohmann::json::parse(
      http_get(stack.pushgateway_url() + "/api/v1/metrics", &status), nullptr, false);
  ASSERT_EQ(status, 200);
  std::set<std::string> suites;
  for (const auto& g : groups["data"]) {
    const auto& labels = g["labels"];
    EXPECT_EQ(labels["instance"], "lab/board 7%") << labels.dump();
    EXPECT_EQ(labels["job"], "rtgate");
    suites.insert(labels["suite"].get<std::string>());
  }
  EXPECT_EQ(suites, (std::set<std::string>{"cyclic", "lock.latency"}));
  const auto max = stack.wait_for(
      "rtgate_latency_max_seconds{instance=\"lab/board 7%\",suite=\"cyclic\",case=\"cpu0\"}");
  EXPECT_EQ(max.size(), 1u);

  // Another job's group holds rtgate_run_info as a counter: the gateway refuses rtgate's gauge.
  std::ofstream(dir.file("counter.prom")) << "# TYPE rtgate_run_info counter\n"
                                             "rtgate_run_info{host=\"x\"} 1\n";
  const LoopbackListener serve2;
  PrometheusStack fresh(serve2.port(),
                        std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/rules.yml");
  http_put(fresh.pushgateway_url() + "/metrics/job/other", dir.file("counter.prom"), &status);
  ASSERT_EQ(status, 200);
  const auto refused =
      run_rtgate({"export", odd, "--push", fresh.pushgateway_url(), "--push-required"});
  EXPECT_EQ(refused.exit_code, 4);
  EXPECT_NE(refused.err.find("HTTP 400: pushed metrics are invalid or inconsistent"),
            std::string::npos)
      << refused.err;
  // The gateway names the family either way round ("<ours> is not a COUNTER" or "<theirs> is not
  // a GAUGE"), as its gathering order falls.
  EXPECT_NE(refused.err.find("collected metric \"rtgate_run_info\""), std::string::npos)
      << refused.err;
  EXPECT_EQ(refused.err.find("attempts"), std::string::npos) << "a refusal is not retried";
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
}

}  // namespace
}  // namespace rtgate::test
