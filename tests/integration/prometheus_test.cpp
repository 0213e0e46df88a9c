// Prometheus export against real servers: Debian's prometheus and pushgateway on free
// loopback ports, `rtgate run --push`, `rtgate serve`, and every PromQL expression of rules.yml
// and dashboard.json executed against what they stored. Skips, saying why, without the binaries.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"
#include "tests/integration/prom_servers.h"

namespace rtgate::test {
namespace {

const std::string kRules = std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/rules.yml";
const std::string kDashboard =
    std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/dashboard.json";

const nlohmann::json* find_metric(const nlohmann::json& c, const std::string& name) {
  for (const auto& m : c["metrics"]) {
    if (m["name"] == name) return &m;
  }
  return nullptr;
}

// One Prometheus + Pushgateway for the whole file, fed once with a cyclic and a lock.latency run
// pushed by `rtgate run --push`.
class PrometheusExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_why_ = missing_prometheus_binaries();
    if (skip_why_.empty()) skip_why_ = rt::probe_sched_fifo();
    if (!skip_why_.empty()) return;
    serve_port_ = free_loopback_port();
    stack_ = new PrometheusStack(serve_port_, kRules);
    dir_ = new TempDir();
    const auto cyclic = run_rtgate({"run", "cyclic", "--duration", "3", "--no-progress", "--push",
                                    stack_->pushgateway_url(), "-o", dir_->file("cyclic.json")});
    push_out_ = cyclic.out + cyclic.err;
    push_exit_ = cyclic.exit_code;
    const auto locks = run_rtgate({"run", "lock.latency", "--duration", "2", "--no-progress", "-p",
                                   "locks=pi_mutex,pthread_mutex", "--push",
                                   stack_->pushgateway_url(), "-o", dir_->file("locks.json")});
    push_out_ += locks.out + locks.err;
    if (push_exit_ == 0) push_exit_ = locks.exit_code;
    // The judge's verdicts, as the rtgate-judge rules read them: a gate's (the result against
    // itself) and a board's history's (one session: too short, but every family is there).
    const auto gate = run_rtgate({"export", dir_->file("cyclic.json"), "--baseline",
                                  dir_->file("cyclic.json"), "--push", stack_->pushgateway_url()});
    const auto history =
        run_rtgate({"history", dir_->file("cyclic.json"), "--push", stack_->pushgateway_url()});
    // And a real board's history with change points (16 sessions, an interferer from the 9th),
    // for the dashboard's annotations.
    const auto board =
        run_rtgate({"history", std::string(RTGATE_SOURCE_DIR) + "/tests/data/history-interferer",
                    "--push", stack_->pushgateway_url()});
    push_out_ += gate.out + gate.err + history.out + history.err + board.out + board.err;
    if (push_exit_ == 0) push_exit_ = gate.exit_code;
    if (push_exit_ == 0 && history.exit_code != 3) push_exit_ = 100 + history.exit_code;
    if (push_exit_ == 0 && board.exit_code == 2) push_exit_ = 102;
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete dir_;
    stack_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!skip_why_.empty()) GTEST_SKIP() << skip_why_;
    ASSERT_EQ(push_exit_, 0) << push_out_;
  }

  static std::string skip_why_;
  static int serve_port_;
  static PrometheusStack* stack_;
  static TempDir* dir_;
  static std::string push_out_;
  static int push_exit_;
};

std::string PrometheusExport::skip_why_;
int PrometheusExport::serve_port_ = 0;
PrometheusStack* PrometheusExport::stack_ = nullptr;
TempDir* PrometheusExport::dir_ = nullptr;
std::string PrometheusExport::push_out_;
int PrometheusExport::push_exit_ = -1;

TEST_F(PrometheusExport, PushedSeriesCarryTheJsonValuesAndLabels) {
  const nlohmann::json doc = read_json(dir_->file("cyclic.json"));
  const nlohmann::json& env = doc["environment"];
  for (const auto& c : doc["suites"][0]["cases"]) {
    const std::string sel = "{job=\"rtgate\",suite=\"cyclic\",case=\"" +
                            c["name"].get<std::string>() + "\",metric=\"wakeup_latency\"}";
    const nlohmann::json& summary = (*find_metric(c, "wakeup_latency"))["summary"];
    const nlohmann::json max = stack_->wait_for("rtgate_latency_max_seconds" + sel);
    ASSERT_EQ(max.size(), 1u) << sel;
    // The float printed by the exposition format round-trips the double exactly.
    EXPECT_DOUBLE_EQ(sample_value(max[0]), summary["max"].get<double>() / 1e9);
    const auto& labels = max[0]["metric"];
    EXPECT_EQ(labels["host"], env["hostname"]);
    EXPECT_EQ(labels["instance"], env["hostname"]);  // the grouping key
    EXPECT_EQ(labels["kernel_release"], env["kernel_release"]);
    EXPECT_EQ(labels["cpu"], c["labels"]["cpu"]);
    const nlohmann::json count = stack_->wait_for("rtgate_latency_seconds_count" + sel);
    ASSERT_EQ(count.size(), 1u);
    EXPECT_EQ(sample_value(count[0]), summary["count"].get<double>());
    const nlohmann::json inf = stack_->wait_for("rtgate_latency_seconds_bucket" +
                                                sel.substr(0, sel.size() - 1) + ",le=\"+Inf\"}");
    ASSERT_EQ(inf.size(), 1u);
    EXPECT_EQ(sample_value(inf[0]), summary["count"].get<double>());
    const nlohmann::json p999 = stack_->wait_for(
        "rtgate_latency_quantile_seconds" + sel.substr(0, sel.size() - 1) + ",quantile=\"0.999\"}");
    ASSERT_EQ(p999.size(), 1u);
    EXPECT_DOUBLE_EQ(sample_value(p999[0]), summary["p999"].get<double>() / 1e9);
  }
  const nlohmann::json status =
      stack_->wait_for("rtgate_suite_status{job=\"rtgate\",suite=\"cyclic\",status=\"passed\"}");
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(sample_value(status[0]), 1.0);
  const nlohmann::json info = stack_->wait_for("rtgate_run_info{job=\"rtgate\"}");
  ASSERT_GE(info.size(), 1u);
  EXPECT_EQ(info[0]["metric"]["version"], doc["tool"]["version"]);
  EXPECT_EQ(info[0]["metric"]["preempt_model"], env["preempt_model"]);
}

TEST_F(PrometheusExport, ThroughputOfEveryLockIsPushed) {
  const nlohmann::json doc = read_json(dir_->file("locks.json"));
  for (const auto& c : doc["suites"][0]["cases"]) {
    const std::string lock = c["labels"]["lock"];
    const nlohmann::json v = stack_->wait_for(
        "rtgate_throughput{suite=\"lock.latency\",metric=\"nonrt_throughput\",lock=\"" + lock +
        "\"}");
    ASSERT_EQ(v.size(), 1u) << lock;
    EXPECT_EQ(v[0]["metric"]["unit"], "ops/s");
    EXPECT_NEAR(sample_value(v[0]),
                (*find_metric(c, "nonrt_throughput"))["samples"][0].get<double>(),
                1e-6 * sample_value(v[0]));
  }
}

// `rtgate serve`: live gauges while the run is in progress (read straight from /metrics), then the
// finished result through a Prometheus scrape with the JSON's values.
TEST_F(PrometheusExport, ServeShowsLiveGaugesThenTheResult) {
  const std::string listen = "127.0.0.1:" + std::to_string(serve_port_);
  pid_t pid = 0;
  ProcessResult serve;
  std::thread runner([&] {
    serve = run_rtgate({"serve", "cyclic", "--duration", "4", "--every", "1h", "--listen", listen,
                        "-o", dir_->file("serve.json")},
                       {.timeout_s = 120, .on_start = [&](pid_t p) { pid = p; }});
  });
  // Live: during the 4 s run, the samples so far grow and the run is in progress.
  double live_samples = 0;
  bool in_progress = false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end && !(in_progress && live_samples > 0)) {
    const std::string text = http_get("http://" + listen + "/metrics");
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"(rtgate_run_in_progress\{[^}]*\} 1)"))) {
      in_progress = true;
    }
    if (std::regex_search(
            text, m, std::regex(R"(rtgate_live_samples\{[^}]*thread="cpu0"[^}]*\} ([0-9.e+]+))"))) {
      live_samples = std::stod(m[1]);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(in_progress);
  EXPECT_GT(live_samples, 0);

  const nlohmann::json runs =
      stack_->wait_for("rtgate_serve_runs_total{job=\"rtgate-serve\"} >= 1", 30);
  ASSERT_EQ(runs.size(), 1u);
  const nlohmann::json doc = read_json(dir_->file("serve.json"));
  for (const auto& c : doc["suites"][0]["cases"]) {
    const std::string sel = "{job=\"rtgate-serve\",suite=\"cyclic\",case=\"" +
                            c["name"].get<std::string>() + "\",metric=\"wakeup_latency\"}";
    const nlohmann::json& summary = (*find_metric(c, "wakeup_latency"))["summary"];
    const nlohmann::json max = stack_->wait_for("rtgate_latency_max_seconds" + sel);
    ASSERT_EQ(max.size(), 1u) << sel;
    EXPECT_DOUBLE_EQ(sample_value(max[0]), summary["max"].get<double>() / 1e9);
    const nlohmann::json count = stack_->wait_for("rtgate_latency_seconds_count" + sel);
    ASSERT_EQ(count.size(), 1u);
    EXPECT_EQ(sample_value(count[0]), summary["count"].get<double>());
  }
  const nlohmann::json idle = stack_->wait_for("rtgate_run_in_progress{job=\"rtgate-serve\"} == 0");
  EXPECT_EQ(idle.size(), 1u);
  kill(pid, SIGINT);
  runner.join();
  EXPECT_EQ(serve.exit_code, 130) << serve.err;
}

// Grafana variables become match-anything regexes; interval macros a fixed window.
std::string substitute(std::string expr) {
  expr = std::regex_replace(expr, std::regex(R"(\$__(rate_interval|interval|range))"), "5m");
  expr = std::regex_replace(expr, std::regex(R"(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)"), ".+");
  return expr;
}

void collect_dashboard_exprs(const nlohmann::json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (k == "expr" && v.is_string() && !v.get<std::string>().empty()) {
        out.push_back(v.get<std::string>());
      } else {
        collect_dashboard_exprs(v, out);
      }
    }
  } else if (j.is_array()) {
    for (const auto& v : j) collect_dashboard_exprs(v, out);
  }
}

// The metric names an expression reads: rtgate_* and recording-rule (rtgate:*) names.
std::set<std::string> referenced_series(const std::string& expr) {
  std::set<std::string> names;
  const std::regex name(R"((rtgate[:_][A-Za-z0-9_:]*))");
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), name); it != std::sregex_iterator();
       ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

TEST_F(PrometheusExport, EveryDashboardExpressionReturnsData) {
  const nlohmann::json dash = read_json(kDashboard);
  ASSERT_FALSE(dash.is_discarded()) << kDashboard;
  std::vector<std::string> exprs;
  collect_dashboard_exprs(dash, exprs);
  ASSERT_GE(exprs.size(), 4u);
  for (const std::string& raw : exprs) {
    const std::string expr = substitute(raw);
    const nlohmann::json r = stack_->query(expr);
    ASSERT_EQ(r.value("status", ""), "success") << expr << "\n" << r.dump();
    EXPECT_FALSE(stack_->wait_for(expr, 20).empty()) << "no data: " << expr;
  }
}

TEST_F(PrometheusExport, EveryRuleExpressionRunsOnSeriesThatExist) {
  const YAML::Node rules = YAML::LoadFile(kRules);
  int records = 0, alerts = 0;
  for (const auto& group : rules["groups"]) {
    for (const auto& rule : group["rules"]) {
      const std::string expr = rule["expr"].as<std::string>();
      const nlohmann::json r = stack_->query(expr);
      ASSERT_EQ(r.value("status", ""), "success") << expr << "\n" << r.dump();
      if (rule["record"]) {
        // A recording rule's own output must exist once Prometheus has evaluated it.
        ++records;
        EXPECT_FALSE(stack_->wait_for(rule["record"].as<std::string>(), 20).empty())
            << "recording rule has no data: " << rule["record"].as<std::string>();
      } else {
        // An alert's condition is (rightly) false here; every series it reads must exist.
        ++alerts;
      }
      for (const std::string& name : referenced_series(expr)) {
        EXPECT_FALSE(stack_->wait_for("{__name__=\"" + name + "\"}", 20).empty())
            << rule["alert"].as<std::string>("") << rule["record"].as<std::string>("") << " reads "
            << name << ", which has no data";
      }
    }
  }
  EXPECT_GE(records, 1);
  EXPECT_GE(alerts, 7);
}

TEST(PrometheusTextfile, PromtoolAcceptsTheTextfile) {
  if (const std::string why = missing_prometheus_binaries(); !why.empty()) GTEST_SKIP() << why;
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "1", "--no-progress", "--textfile",
                             dir.path(), "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string prom = dir.file("rtgate.prom");
  ASSERT_TRUE(std::filesystem::exists(prom));
  EXPECT_FALSE(std::filesystem::exists(prom + ".tmp"));
  const std::string cmd =
      "promtool check metrics < " + prom + " > " + dir.file("lint.txt") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream lint(dir.file("lint.txt"));
  const std::string text((std::istreambuf_iterator<char>(lint)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << text;
  EXPECT_EQ(text, "") << "promtool lint findings";
}

// The server's threads must not compete with the measurement as RT threads or on its CPU: with
// --cpus 1 they are SCHED_OTHER and pinned to CPU 0 (what `taskset`/`chrt -p` would show).
TEST(PrometheusServe, HttpThreadsAreOrdinaryAndOffTheMeasuredCpus) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  if (rt::allowed_cpus().size() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const std::string listen = "127.0.0.1:" + std::to_string(free_loopback_port());
  pid_t pid = 0;
  ProcessResult serve;
  std::thread runner([&] {
    serve = run_rtgate({"serve", "cyclic", "--cpus", "1", "-p", "cpus=1", "--duration", "3",
                        "--every", "1h", "--listen", listen},
                       {.timeout_s = 60, .on_start = [&](pid_t p) { pid = p; }});
  });
  int seen = 0;
  for (int i = 0; i < 50 && seen == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (pid == 0) continue;
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    std::error_code ec;
    for (const auto& t : std::filesystem::directory_iterator(dir, ec)) {
      std::ifstream comm(t.path() / "comm");
      std::string name;
      std::getline(comm, name);
      if (name.rfind("civetweb", 0) != 0) continue;
      ++seen;
      std::ifstream status(t.path() / "status");
      std::string line, cpus;
      while (std::getline(status, line)) {
        if (line.rfind("Cpus_allowed_list:", 0) == 0)
          cpus = line.substr(line.find_last_of(" \t") + 1);
      }
      EXPECT_EQ(cpus, "0") << name;
      const int policy = sched_getscheduler(std::stoi(t.path().filename().string()));
      EXPECT_EQ(policy, SCHED_OTHER) << name;
    }
  }
  EXPECT_GE(seen, 2) << "no civetweb threads found";
  if (pid != 0) kill(pid, SIGINT);
  runner.join();
  EXPECT_EQ(serve.exit_code, 130) << serve.err;
}

TEST(PrometheusBadInput, UnreachablePushgatewayWarnsAndKeepsTheJson) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string url = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  const auto r = run_rtgate({"run", "cyclic", "--duration", "0.5", "--no-progress", "--push", url,
                             "-o", dir.file("r.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("rtgate: warning: push to " + url + " failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("after 3 attempts"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("r.json")));
  const auto req = run_rtgate({"run", "cyclic", "--duration", "0.5", "--no-progress", "--push", url,
                               "--push-required", "-o", dir.file("r2.json")});
  EXPECT_EQ(req.exit_code, 4) << req.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("r2.json")));
}

TEST(PrometheusBadInput, BadUrlsAndBusyPortsExit2WithOneLine) {
  for (const std::string url : {"ftp://127.0.0.1:9091", "127.0.0.1:9091", "http://host:99999",
                                "http://host:9091/some/path", "http://:9091"}) {
    const auto r = run_rtgate({"run", "cyclic", "--duration", "1", "--push", url});
    EXPECT_EQ(r.exit_code, 2) << url;
    EXPECT_NE(r.err.find("--push: "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const auto no_dir = run_rtgate({"run", "cyclic", "--textfile", "/nonexistent/dir"});
  EXPECT_EQ(no_dir.exit_code, 2);
  EXPECT_NE(no_dir.err.find("--textfile: "), std::string::npos) << no_dir.err;

  // A port that is taken: serve names the address and exits 2 before running anything.
  std::string busy;
  ProcessResult r;
  {
    const LoopbackListener taken;
    busy = "127.0.0.1:" + std::to_string(taken.port());
    r = run_rtgate({"serve", "cyclic", "--listen", busy, "--every", "1m"});
  }
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot listen on " + busy), std::string::npos) << r.err;
  for (const std::string bad : {"nonsense", "127.0.0.1:http"}) {
    EXPECT_EQ(run_rtgate({"serve", "cyclic", "--listen", bad}).exit_code, 2) << bad;
  }
  EXPECT_EQ(run_rtgate({"serve", "cyclic", "--every", "soon"}).exit_code, 2);
}

}  // namespace
}  // namespace rtgate::test
