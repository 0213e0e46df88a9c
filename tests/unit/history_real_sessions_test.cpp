// A board's history from real results of this machine (tests/data/history-interferer: 16
// sessions of cyclic + lock.latency, a SCHED_FIFO interferer on CPU 1 from session 9): the change
// points land at session 9, the eight clean sessions alone have none, and with the interfered
// sessions labelled as another kernel that kernel starts a worse segment.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "gate/history/history_judge.h"
#include "results/result_json.h"

namespace rtgate::gate {
namespace {

constexpr int kFirstInterfered = 8;  // s09, as an index

std::vector<RunReport> sessions() {
  std::vector<RunReport> out;
  for (int i = 1; i <= 16; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "/tests/data/history-interferer/s%02d.json.gz", i);
    out.push_back(read_report_file(std::string(RTGATE_SOURCE_DIR) + name));
  }
  return out;
}

HistoryReport judge(const std::vector<RunReport>& rs, std::size_t n, History& h) {
  HistoryBuilder b{Policy{}};
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(b.add(rs[i], "s" + std::to_string(i + 1)), "");
  h = b.finish();
  return judge_history(h, Policy{});
}

const StatisticTrend* trend(const History& h, const HistoryReport& r, const std::string& c,
                            const std::string& metric, const std::string& stat) {
  for (const StatisticTrend& t : r.trends) {
    const HistorySeries& s = h.series[static_cast<std::size_t>(t.series)];
    if (s.case_name == c && s.metric == metric && s.statistic == stat) return &t;
  }
  return nullptr;
}

TEST(HistoryRealSessions, TheChangePointLandsWhereTheInterfererStarted) {
  const std::vector<RunReport> rs = sessions();
  History h;
  const HistoryReport r = judge(rs, rs.size(), h);
  ASSERT_EQ(h.sessions.size(), 16U);
  // What the interferer did (tests/data/history-interferer/README.md): cpu1's p99.9 x158 and
  // max x53, both locks' non-RT throughput -11%; each is one worse change point, at session 9.
  for (const auto& [c, metric, stat] :
       {std::tuple{"cpu1", "wakeup_latency", "p999"}, std::tuple{"cpu1", "wakeup_latency", "max"},
        std::tuple{"pi_mutex", "nonrt_throughput", "value"},
        std::tuple{"futex_mutex", "nonrt_throughput", "value"}}) {
    const StatisticTrend* t = trend(h, r, c, metric, stat);
    ASSERT_NE(t, nullptr) << c << " " << metric;
    ASSERT_EQ(t->findings.changes.size(), 1U) << c << " " << metric << " " << stat;
    EXPECT_EQ(t->findings.changes[0].at, kFirstInterfered) << c << " " << metric;
    EXPECT_TRUE(t->change_worse[0]) << c << " " << metric;
  }
  // No statistic has a worse change point anywhere else.
  for (const StatisticTrend& t : r.trends) {
    for (std::size_t i = 0; i < t.findings.changes.size(); ++i) {
      if (t.change_beyond[i]) {
        EXPECT_NEAR(t.findings.changes[i].at, kFirstInterfered, 1)
            << h.series[static_cast<std::size_t>(t.series)].metric;
      }
    }
  }
  EXPECT_EQ(exit_code(r), 3) << r.reason;  // one kernel: nothing to compare the newest with
}

TEST(HistoryRealSessions, TheCleanSessionsAloneHaveNoChangePoint) {
  const std::vector<RunReport> rs = sessions();
  History h;
  const HistoryReport r = judge(rs, kFirstInterfered, h);
  for (const StatisticTrend& t : r.trends) {
    for (bool beyond : t.change_beyond) {
      EXPECT_FALSE(beyond) << h.series[static_cast<std::size_t>(t.series)].metric;
    }
  }
}

TEST(HistoryRealSessions, TheInterferedKernelStartsAWorseSegment) {
  std::vector<RunReport> rs = sessions();
  for (std::size_t i = kFirstInterfered; i < rs.size(); ++i) {
    rs[i].environment.kernel_release = "interfered";
  }
  History h;
  HistoryReport r = judge(rs, rs.size(), h);
  EXPECT_EQ(exit_code(r), 1) << r.reason;
  EXPECT_EQ(r.newest_sessions, 8);
  EXPECT_NE(r.reason.find("interfered starts a worse segment"), std::string::npos) << r.reason;
  // Its first session alone is beyond the history, but one session is not a segment: exit 3.
  r = judge(rs, kFirstInterfered + 1, h);
  EXPECT_EQ(exit_code(r), 3) << r.reason;
  EXPECT_NE(r.reason.find("one session cannot tell"), std::string::npos) << r.reason;
}

// ReadOptions::history_only reads what a history needs and skips the rest: the history it
// makes is the full read's, value for value, on every real result in tests/data.
TEST(HistoryRealSessions, AHistoryOnlyReadMakesTheFullReadsHistory) {
  std::vector<std::string> paths;
  for (const char* dir : {"/tests/data/history-interferer", "/tests/data/sessions"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(RTGATE_SOURCE_DIR) + dir)) {
      if (e.path().extension() == ".gz") paths.push_back(e.path().string());
    }
  }
  ASSERT_GE(paths.size(), 40U);
  std::sort(paths.begin(), paths.end());
  for (const std::string& p : paths) {
    HistoryBuilder full{Policy{}}, lean{Policy{}};
    ASSERT_EQ(full.add(read_report_file(p), p), "");
    ASSERT_EQ(lean.add(read_report_file(p, {.history_only = true}), p), "");
    const History a = full.finish(), b = lean.finish();
    ASSERT_EQ(a.series.size(), b.series.size()) << p;
    for (std::size_t i = 0; i < a.series.size(); ++i) {
      EXPECT_EQ(a.series[i].metric, b.series[i].metric) << p;
      EXPECT_EQ(a.series[i].values, b.series[i].values) << p << " " << a.series[i].metric;
      EXPECT_EQ(a.series[i].within_var, b.series[i].within_var) << p;
    }
  }
}

// The per-run columns read in place are checked as the DOM reader checks them.
TEST(HistoryRealSessions, AHistoryOnlyReadRefusesBrokenColumns) {
  const std::string dir = ::testing::TempDir();
  nlohmann::json doc = nlohmann::json::parse(to_json_text(read_report_file(
      std::string(RTGATE_SOURCE_DIR) + "/tests/data/history-interferer/s01.json.gz")));
  nlohmann::json* runs = nullptr;
  for (auto& s : doc["suites"]) {
    for (auto& c : s["cases"]) {
      for (auto& m : c["metrics"]) {
        if (m["kind"] == "latency" && runs == nullptr) runs = &m["runs"];
      }
    }
  }
  ASSERT_NE(runs, nullptr);
  for (const auto& [edit, says] :
       std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>>{
           {[](nlohmann::json& r) { r["p99"].push_back(1); }, "not one value per run"},
           {[](nlohmann::json& r) { r["max"][0] = -5; }, "non-negative integer"},
           {[](nlohmann::json& r) { r["mean"][0] = "x"; }, "finite number"},
           {[](nlohmann::json& r) { r.erase("p999"); }, "missing field 'p999'"}}) {
    nlohmann::json broken = *runs;
    edit(broken);
    const nlohmann::json saved = *runs;
    *runs = broken;
    // Per process: a file another user's run left in the shared temp dir is not ours to write.
    const std::string path = dir + "/broken-columns-" + std::to_string(getpid()) + ".json";
    {
      std::ofstream out(path);
      out << doc.dump();
      ASSERT_TRUE(out.good()) << path;
    }
    *runs = saved;
    try {
      read_report_file(path, {.history_only = true});
      ADD_FAILURE() << "accepted: " << says;
    } catch (const JsonError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace rtgate::gate
