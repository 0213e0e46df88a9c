// A board's history from real results of this machine (tests/data/history-interferer: 16
// sessions of cyclic + lock.latency, a SCHED_FIFO interferer on CPU 1 from session 9): the change
// points land at session 9, the eight clean sessions alone have none, and with the interfered
// sessions labelled as another kernel that kernel starts a worse segment.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "exporters/json_exporter.h"
#include "framework/gate/history_judge.h"

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

}  // namespace
}  // namespace rtgate::gate
