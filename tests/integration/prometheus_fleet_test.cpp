// A fleet in one Prometheus: two hosts push a result for kernel K1, then one for K2,
// to one Pushgateway scraped by one Prometheus that evaluates the real rules.yml. Host A's K2 is
// slower (p99.9 up, throughput down), host B's is unchanged: RtgateLatencyP999Regressed and
// RtgateThroughputDrop must become active for host A's series and for nothing of host B, and the
// dashboard's host variable must select each host's series. Skips, saying why, without the
// binaries or SCHED_FIFO.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exporters/prometheus/pushgateway.h"
#include "framework/rt/rt_checks.h"
#include "gate/history/history.h"
#include "gate/history/history_judge.h"
#include "results/result_json.h"
#include "tests/integration/fleet_reports.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"
#include "tests/integration/prom_servers.h"

namespace rtgate::test {
namespace {

using nlohmann::json;

const std::string kDashboard =
    std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/dashboard.json";
const std::string kHostA = "fleet-a";  // regresses on K2
const std::string kHostB = "fleet-b";  // unchanged on K2
const std::string kLatencyAlert = "RtgateLatencyP999Regressed";
const std::string kThroughputAlert = "RtgateThroughputDrop";
// Prometheus scrapes and evaluates every second, so a push reaches the alert group within about
// 3 s (scrape, recording group, alert group). The bound allows for a loaded machine (the other
// core may be busy) and the first evaluations after Prometheus starts; reaching it is a failure.
constexpr double kWaitS = 30;

class PrometheusFleet : public ::testing::Test {
 protected:
  // Starts the servers, measures once, pushes K1 for both hosts, waits until Prometheus recorded
  // it, then pushes K2 and waits until both hosts' K2 is compared with their K1.
  static void SetUpTestSuite() {
    skip_why_ = missing_prometheus_binaries();
    if (skip_why_.empty()) skip_why_ = rt::probe_sched_fifo();
    if (!skip_why_.empty()) return;
    try {
      set_up();
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    delete stack_;
    stack_ = nullptr;
  }
  void SetUp() override {
    if (!skip_why_.empty()) GTEST_SKIP() << skip_why_;
    ASSERT_EQ(setup_error_, "");
  }

  static void set_up() {
    stack_ = new PrometheusStack(free_loopback_port(), kRules);  // nothing serves its serve port
    // One real measurement is the data of all four results: lock.latency has latency metrics
    // (acquire, release, wakeup) and a throughput (nonrt_throughput) per lock, the inputs of
    // both alerts; two locks give two cases.
    const TempDir dir;
    const ProcessResult run =
        run_rtgate({"run", "lock.latency", "--duration", "1", "--no-progress", "-p",
                    "locks=pi_mutex,pthread_mutex", "-o", dir.file("measured.json")});
    if (run.exit_code != 0) throw std::runtime_error("rtgate run: " + run.err);
    const RunReport measured = read_report_file(dir.file("measured.json"));
    k1_ = measured.environment.kernel_release;
    k2_ = k1_ + "-k2";  // the kernel each host boots next
    a1_ = on_host(measured, kHostA, k1_, measured.finished_at);
    push(a1_);
    push(on_host(measured, kHostB, k1_, measured.finished_at));
    // K1 must be in the recordings (its :last30d) before K2 replaces it on the Pushgateway.
    // Every latency series of both hosts, not only the run timestamps: a count that only
    // passes on the way up would let a duplicate (a second scrape of the same group) through.
    const std::string k1 =
        "{kernel_release=\"" + k1_ + "\",host=~\"" + kHostA + "|" + kHostB + "\"}";
    const std::string k1_recorded = "count(rtgate:run_timestamp_seconds:last30d" + k1 +
                                    ") == 2 and on () " +
                                    "count(rtgate:latency_p999_seconds:last30d" + k1 +
                                    ") == " + std::to_string(2 * latency_metrics(measured));
    if (stack_->wait_for(k1_recorded, kWaitS).empty()) {
      throw std::runtime_error("K1 of both hosts was not recorded within the wait: " +
                               state("rtgate:latency_p999_seconds:last30d"));
    }
    a2_ = regressed(on_host(measured, kHostA, k2_, rfc3339_now()));
    push(a2_);
    const RunReport b2 = on_host(measured, kHostB, k2_, rfc3339_now());
    push(b2);  // host B: the same figures on K2
    // Each host's history, as `rtgate history --push` sends it (the dashboard's history row).
    push_history({a1_, a2_});
    push_history({on_host(measured, kHostB, k1_, measured.finished_at), b2});
    // Both hosts compared: every latency and throughput series of both has a ratio.
    for (const std::string& name : {kLatencyAlert, kThroughputAlert}) {
      const std::string ratio = split_threshold(alert_rule(name)["expr"].as<std::string>()).first;
      const json v = stack_->wait_for(
          "count(" + ratio + ") == " + std::to_string(2 * series_of(name)), kWaitS);
      if (v.empty()) {
        throw std::runtime_error(name + ": not every series was compared in time: expected " +
                                 std::to_string(2 * series_of(name)) + ", " + state(ratio));
      }
      compared_at_ = std::max(compared_at_, v[0]["value"][0].get<double>());
    }
  }

  static void push(const RunReport& r) {
    std::string why;
    const auto target = prom::parse_push_url(stack_->pushgateway_url(), &why);
    if (!target) throw std::runtime_error(why);
    // The same call `rtgate run --push` makes: the group is job=rtgate, instance=<hostname>.
    if (const std::string err = prom::push_report(*target, r); !err.empty()) {
      throw std::runtime_error("push for " + r.environment.hostname + ": " + err);
    }
  }

  static void push_history(const std::vector<RunReport>& results) {
    gate::HistoryBuilder b(gate::Policy{});
    for (const RunReport& r : results) b.add(r, r.environment.hostname + "/" + r.finished_at);
    const gate::History h = b.finish();
    const gate::HistoryReport report = gate::judge_history(h, gate::Policy{});
    std::string why;
    const auto target = prom::parse_push_url(stack_->pushgateway_url(), &why);
    if (!target) throw std::runtime_error(why);
    if (const std::string err = prom::push_history(*target, {.history = h, .report = report});
        !err.empty()) {
      throw std::runtime_error("history push: " + err);
    }
  }

  // What Prometheus holds when a wait failed: the ratio's series by host and the kernels each
  // host's run timestamps and latency recordings have, live and within 30 days.
  static std::string state(const std::string& ratio) {
    std::string out;
    for (const std::string& q :
         {"count by (host) (" + ratio + ")", std::string("rtgate:run_timestamp_seconds:max"),
          std::string("rtgate:run_timestamp_seconds:last30d"),
          std::string("count by (host, kernel_release) (rtgate:latency_p999_seconds:last30d)"),
          std::string("count by (host, kernel_release) (rtgate:latency_p999_seconds:max)")}) {
      out += q + " = " + stack_->vector(q).dump() + "; ";
    }
    return out;
  }

  // Latency metrics with a histogram: the latency series a result has per host.
  static int latency_metrics(const RunReport& r) {
    int n = 0;
    for (const SuiteResult& s : r.suites) {
      for (const Case& c : s.cases) {
        for (const Metric& m : c.metrics) n += m.kind == MetricKind::kLatency && m.histogram;
      }
    }
    return n;
  }

  // Series per host the alert compares.
  static int series_of(const std::string& alert) {
    return static_cast<int>(ratios(a1_, a2_, kind_of(alert)).size());
  }
  static MetricKind kind_of(const std::string& alert) {
    return alert == kLatencyAlert ? MetricKind::kLatency : MetricKind::kThroughput;
  }

  static std::string skip_why_, setup_error_;
  static PrometheusStack* stack_;
  static RunReport a1_, a2_;  // host A on K1 and K2
  static std::string k1_, k2_;
  static double compared_at_;  // Prometheus time at which both hosts' K2 were compared
};

std::string PrometheusFleet::skip_why_;
std::string PrometheusFleet::setup_error_;
PrometheusStack* PrometheusFleet::stack_ = nullptr;
RunReport PrometheusFleet::a1_, PrometheusFleet::a2_;
std::string PrometheusFleet::k1_, PrometheusFleet::k2_;
double PrometheusFleet::compared_at_ = 0;

TEST_F(PrometheusFleet, EachHostIsItsOwnGroupAndSeries) {
  const json groups =
      stack_->vector("count by (job, instance, host) (rtgate_run_timestamp_seconds)");
  ASSERT_EQ(groups.size(), 2u) << groups.dump();
  std::set<std::string> hosts;
  for (const json& g : groups) {
    EXPECT_EQ(g["metric"]["job"], "rtgate");
    EXPECT_EQ(g["metric"]["instance"], g["metric"]["host"]);  // the Pushgateway grouping key
    hosts.insert(g["metric"]["host"].get<std::string>());
  }
  EXPECT_EQ(hosts, (std::set<std::string>{kHostA, kHostB}));
}

// Both hosts are compared with their own K1 (the ratio without the threshold): host B's is
// exactly 1, host A's is K2 over K1 as the exporter computes them.
TEST_F(PrometheusFleet, EachHostIsComparedWithItsOwnPreviousKernel) {
  for (const std::string& name : {kLatencyAlert, kThroughputAlert}) {
    const std::string ratio = split_threshold(alert_rule(name)["expr"].as<std::string>()).first;
    const auto expected = ratios(a1_, a2_, kind_of(name));
    int a = 0, b = 0;
    for (const json& s : stack_->vector(ratio)) {
      const json& l = s["metric"];
      EXPECT_EQ(l["kernel_release"], k2_) << name;
      EXPECT_EQ(l["baseline_kernel_release"], k1_) << name;
      const std::string key = l["case"].get<std::string>() + "/" + l["metric"].get<std::string>();
      if (l["host"] == kHostB) {
        ++b;
        EXPECT_EQ(sample_value(s), 1.0) << name << " " << key;
      } else {
        ++a;
        ASSERT_EQ(l["host"], kHostA);
        ASSERT_TRUE(expected.count(key)) << name << " compares " << key;
        EXPECT_NEAR(sample_value(s), expected.at(key), 1e-9 * expected.at(key))
            << name << " " << key;
      }
    }
    EXPECT_EQ(a, series_of(name)) << name;
    EXPECT_EQ(b, series_of(name)) << name;
  }
}

// Both alerts active for each of host A's series that crossed the
// threshold, with host A's labels and the ratio as value; nothing, ever, for host B.
TEST_F(PrometheusFleet, RegressionAlertsAreActiveForTheRegressedHostOnly) {
  // Wait for an evaluation of the alert group after both hosts were compared, so that host B's
  // absence below is an evaluated "no", not an alert group that has not run yet.
  ASSERT_FALSE(stack_
                   ->wait_for("min(timestamp(ALERTS{alertname=~\"" + kLatencyAlert + "|" +
                                  kThroughputAlert + "\"})) > " + std::to_string(compared_at_),
                              kWaitS)
                   .empty())
      << "the alert group did not evaluate after the comparison";
  int status = 0;
  const json api =
      json::parse(http_get(stack_->prometheus_url() + "/api/v1/alerts", &status), nullptr, false);
  ASSERT_EQ(status, 200);
  ASSERT_FALSE(api.is_discarded());
  for (const std::string& name : {kLatencyAlert, kThroughputAlert}) {
    const YAML::Node rule = alert_rule(name);
    // `for: 1h` asks several results to agree: within a test the alert is pending, which is the
    // rule's expression holding for that series (firing only adds the hour).
    const std::string state = rule["for"] ? "pending" : "firing";
    const auto expected = crossing(ratios(a1_, a2_, kind_of(name)), kind_of(name),
                                   split_threshold(rule["expr"].as<std::string>()).second);
    ASSERT_FALSE(expected.empty()) << name << ": the slowed-down K2 crosses no threshold";
    std::map<std::string, double> got;
    std::size_t active = 0;
    for (const json& alert : api["data"]["alerts"]) {
      const json& l = alert["labels"];
      if (l["alertname"] != name) continue;
      ++active;
      EXPECT_EQ(l["host"], kHostA) << alert.dump();
      EXPECT_EQ(l["kernel_release"], k2_) << alert.dump();
      EXPECT_EQ(l["baseline_kernel_release"], k1_) << alert.dump();
      EXPECT_EQ(alert["state"], state) << alert.dump();
      EXPECT_NE(alert["annotations"]["summary"].get<std::string>().find(kHostA), std::string::npos)
          << alert.dump();
      got[l["case"].get<std::string>() + "/" + l["metric"].get<std::string>()] =
          std::stod(alert["value"].get<std::string>());
    }
    ASSERT_EQ(active, expected.size()) << name;
    for (const auto& [key, ratio] : expected) {
      ASSERT_TRUE(got.count(key)) << name << " missing for " << key;
      EXPECT_NEAR(got[key], ratio, 1e-9 * ratio) << name << " " << key;
    }
  }
  // Not now and at no evaluation since the servers started.
  EXPECT_TRUE(stack_->vector("count_over_time(ALERTS{host=\"" + kHostB + "\"}[1h])").empty());
}

// The dashboard's expressions with host = `host`, the other variables matching anything.
std::string for_host(std::string expr, const std::string& host) {
  expr = std::regex_replace(expr, std::regex(R"(\$\{?host\}?)"), host);
  expr = std::regex_replace(expr, std::regex(R"(\$__(rate_interval|interval|range))"), "5m");
  return std::regex_replace(expr, std::regex(R"(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)"), ".+");
}

// An instant result without its evaluation time: labels and values, to compare two hosts'.
std::string without_time(const json& result) {
  std::set<std::string> rows;
  for (const json& s : result) rows.insert(s["metric"].dump() + " " + s["value"][1].dump());
  std::string out;
  for (const std::string& r : rows) out += r + "\n";
  return out;
}

// Needs no servers: the dashboard's structure.
TEST(PrometheusFleetDashboard, HasAHostSelectorThatEveryPanelUses) {
  const json dash = read_json(kDashboard);
  const json* host = nullptr;
  for (const json& v : dash["templating"]["list"]) {
    if (v["name"] == "host") host = &v;
  }
  ASSERT_NE(host, nullptr) << "no host template variable";
  EXPECT_EQ((*host)["type"], "query");
  EXPECT_NE((*host)["query"].get<std::string>().find(", host)"), std::string::npos);
  EXPECT_TRUE((*host)["multi"].get<bool>());
  EXPECT_TRUE((*host)["includeAll"].get<bool>());
  const std::regex uses_host(R"(host=~"\$\{?host\}?")");
  const std::regex by(R"(\bby\s*\(([^)]*)\))");
  for (const json& a : dash["annotations"]["list"]) {
    if (a.contains("expr")) {
      EXPECT_TRUE(std::regex_search(a["expr"].get<std::string>(), uses_host)) << a["name"];
    }
  }
  for (const json& panel : dash["panels"]) {
    // A panel that aggregates the hosts away must repeat per host, or it mixes machines.
    const bool repeated = panel.value("repeat", "") == "host";
    for (const json& t : panel.value("targets", json::array())) {
      const std::string expr = t["expr"];
      EXPECT_TRUE(std::regex_search(expr, uses_host)) << "no host filter: " << expr;
      for (auto it = std::sregex_iterator(expr.begin(), expr.end(), by);
           it != std::sregex_iterator(); ++it) {
        EXPECT_TRUE(repeated || std::regex_search((*it)[1].str(), std::regex(R"(\bhost\b)")))
            << panel["title"] << ": aggregates hosts together: " << expr;
      }
    }
  }
}

// Against the fleet: each host's selection returns data and only that host's (a host that
// reported nothing selects nothing); the panels that keep the host label show it, and the
// per-kernel panels (repeated per host, the label aggregated away) differ between the two hosts.
TEST_F(PrometheusFleet, DashboardHostVariableSelectsEachHost) {
  const json dash = read_json(kDashboard);
  int repeated_exprs = 0, differing = 0;
  for (const json& panel : dash["panels"]) {
    const bool repeated = panel.value("repeat", "") == "host";
    for (const json& t : panel.value("targets", json::array())) {
      EXPECT_TRUE(stack_->vector(for_host(t["expr"], "no-such-host")).empty())
          << "not filtered by host: " << t["expr"];
      std::map<std::string, std::string> by_host;
      for (const std::string& host : {kHostA, kHostB}) {
        const std::string expr = for_host(t["expr"], host);
        const json r = stack_->vector(expr);
        EXPECT_FALSE(r.empty()) << "no data: " << expr;
        for (const json& s : r) {
          EXPECT_EQ(s["metric"].value("host", ""), repeated ? "" : host) << expr;
        }
        by_host[host] = without_time(r);
      }
      if (repeated) {
        ++repeated_exprs;
        differing += by_host[kHostA] != by_host[kHostB] ? 1 : 0;
      }
    }
  }
  ASSERT_GT(repeated_exprs, 0);
  EXPECT_GT(differing, 0) << "the per-host panels show the same data for both hosts";
}

}  // namespace
}  // namespace rtgate::test
