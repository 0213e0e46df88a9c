// The boot is the session: a history merges the results of one boot (a retry is not another
// session), and noise learned from processes of one boot judges only gates within one boot.
#include <gtest/gtest.h>

#include <random>

#include "gate/history/history.h"
#include "gate/noise/session_noise.h"
#include "tests/unit/gate_sim_world.h"

namespace rtgate::gate {
namespace {

// `n` results: result i in boot boots[i], each its own process, an hour apart.
std::vector<RunReport> results(const std::vector<std::string>& boots, std::uint64_t seed,
                               double session_sigma = 0) {
  std::mt19937_64 rng(seed);
  sim::Layout l;
  l.cpus = 1;
  sim::World w;
  w.session_sigma = session_sigma;
  std::vector<RunReport> out;
  for (std::size_t i = 0; i < boots.size(); ++i) {
    RunReport r = sim::session(rng, l, w, 3, sim::Change{});
    r.environment.boot_id = boots[i];
    r.environment.pid = 100 + static_cast<int>(i);
    r.started_at = sim::sim_time(3600 * static_cast<int>(i));
    out.push_back(std::move(r));
  }
  return out;
}

History history_of(const std::vector<RunReport>& rs) {
  HistoryBuilder b{Policy{}};
  for (std::size_t i = 0; i < rs.size(); ++i) EXPECT_EQ(b.add(rs[i], "r" + std::to_string(i)), "");
  return b.finish();
}

TEST(BootSession, AHistoryMergesTheResultsOfOneBoot) {
  const std::vector<RunReport> rs = results({"a", "a", "b", "c", "c", "c"}, 1);
  const History h = history_of(rs);
  ASSERT_EQ(h.sessions.size(), 3u);
  EXPECT_FALSE(h.one_boot);
  EXPECT_EQ(h.merged_in_boot, 3);
  EXPECT_EQ(h.sessions[0].results, 2);
  EXPECT_EQ(h.sessions[2].results, 3);
  EXPECT_EQ(h.sessions[2].id, "c");
  // A merged session's value is the mean of its results' values.
  const History apart = history_of({rs[3], rs[4], rs[5]});  // one boot: three processes
  ASSERT_TRUE(apart.one_boot);
  ASSERT_EQ(apart.sessions.size(), 3u);
  const HistorySeries& s = apart.series.front();
  const double mean = (s.values[0] + s.values[1] + s.values[2]) / 3;
  for (const HistorySeries& merged : h.series) {
    if (merged.suite == s.suite && merged.case_name == s.case_name &&
        merged.metric == s.metric && merged.statistic == s.statistic) {
      EXPECT_NEAR(merged.values.back(), mean, 1e-12);
    }
  }
}

TEST(BootSession, NoiseFromOneBootJudgesOnlyGatesWithinABoot) {
  const std::vector<RunReport> rs = results({"x", "x", "x", "x", "x", "x", "x", "x"}, 2);
  std::vector<const RunReport*> ptrs;
  for (const RunReport& r : rs) ptrs.push_back(&r);
  NoiseModel within = NoiseModel::from_sessions(ptrs, Policy{});
  ASSERT_TRUE(within.one_boot());
  ASSERT_FALSE(within.known().empty());
  const auto& [key, learned] = *within.known().begin();
  ASSERT_EQ(learned.source, NoiseSource::kHistory);
  const auto& [suite, case_name, metric, statistic] = key;

  Environment here = rs[0].environment, elsewhere = rs[0].environment;
  elsewhere.boot_id = "y";
  within.set_environment(here, here);
  EXPECT_EQ(within.of(suite, case_name, metric, statistic, MetricKind::kLatency).source,
            NoiseSource::kHistory);
  EXPECT_NE(within.describe(1).find("processes of one boot"), std::string::npos);

  NoiseModel across = within;
  across.set_environment(here, elsewhere);
  const SessionNoise prior = across.of(suite, case_name, metric, statistic, MetricKind::kLatency);
  EXPECT_EQ(prior.source, NoiseSource::kDefault);
  EXPECT_EQ(prior.tau_sq, default_session_noise(statistic, BoardClass::kBareMetal, false).tau_sq);
  EXPECT_NE(across.describe(1).find("show nothing of what moves between boots"),
            std::string::npos)
      << across.describe(1);
}

TEST(BootSession, NoiseAcrossBootsCountsBootsNotProcesses) {
  // Five boots of two processes each: five sessions, learned between boots.
  const std::vector<RunReport> rs =
      results({"a", "a", "b", "b", "c", "c", "d", "d", "e", "e"}, 3);
  std::vector<const RunReport*> ptrs;
  for (const RunReport& r : rs) ptrs.push_back(&r);
  NoiseModel m = NoiseModel::from_sessions(ptrs, Policy{});
  EXPECT_FALSE(m.one_boot());
  EXPECT_EQ(m.sessions(), 5);
  Environment a = rs[0].environment, f = rs[0].environment;
  f.boot_id = "f";
  m.set_environment(a, f);
  EXPECT_NE(m.describe(1).find("from 5 boots of this host's history"), std::string::npos)
      << m.describe(1);
}

// Two to four sessions cannot replace the prior, but a spread wider than the prior widens it.
TEST(BootSession, TheBaselinesOwnSessionsCanRaiseThePriorButNotLowerIt) {
  for (const double sigma : {0.0, 0.8}) {
    const std::vector<RunReport> rs = results({"a", "b", "c"}, 5, sigma);
    std::vector<const RunReport*> ptrs;
    for (const RunReport& r : rs) ptrs.push_back(&r);
    NoiseModel m = NoiseModel::from_sessions(ptrs, Policy{});
    Environment cur = rs[0].environment;
    cur.boot_id = "d";
    m.set_environment(rs[0].environment, cur);
    const SessionNoise n = m.of("cyclic", "cpu0", "wakeup_latency", "p99", MetricKind::kLatency);
    const double prior = default_session_noise("p99", BoardClass::kBareMetal, false).tau_sq;
    EXPECT_EQ(n.source, NoiseSource::kDefault);
    if (sigma == 0) {
      EXPECT_EQ(n.tau_sq, prior) << n.describe(true);
      EXPECT_FALSE(n.raised);
    } else {
      EXPECT_GT(n.tau_sq, prior) << n.describe(true);
      EXPECT_NE(n.describe(true).find("raised by their own spread"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace rtgate::gate
