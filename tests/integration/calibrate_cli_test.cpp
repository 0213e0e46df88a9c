// rtgate calibrate end to end: a real A/A run of cyclic, its table, and a policy file that the
// gate accepts; usage errors refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>

#include "framework/gate/policy.h"
#include "framework/rt/rt_checks.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

TEST(CalibrateCli, WritesAPolicyTheGateAccepts) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string policy = dir.file("policy.yaml");
  const auto c = run_rtgate(
      {"calibrate", "cyclic", "--runs", "3", "--duration", "0.5", "--policy-out", policy});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  for (const char* text : {"statistic", "detect@5", "detect@20", "floor@10", "wakeup_latency",
                           "p99.9", "max", "missed_periods", "policy written to"}) {
    EXPECT_NE(c.out.find(text), std::string::npos) << text << " missing from:\n" << c.out;
  }
  gate::Policy p;
  ASSERT_NO_THROW(p = gate::load_policy(policy));
  const auto mp = gate::resolve(p, "cyclic", "cpu0", "wakeup_latency", MetricKind::kLatency, "ns");
  ASSERT_TRUE(mp.prior.has_value());
  EXPECT_EQ(mp.prior->df, 2);
  EXPECT_GE(mp.latency_noise_floor_pct, 10);

  const std::string result = dir.file("a.json");
  const auto r = run_rtgate({"run", "cyclic", "--runs", "3", "--duration", "0.5", "-o", result});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto g = run_rtgate({"gate", result, result, "--policy", policy});
  EXPECT_TRUE(g.exit_code == 0 || g.exit_code == 3) << g.exit_code << "\n" << g.out << g.err;
}

TEST(CalibrateCli, OneRunIsAUsageError) {
  const auto r = run_rtgate({"calibrate", "cyclic", "--runs", "1", "--duration", "0.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("calibrate needs at least 2 runs"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CalibrateCli, UnwritablePolicyIsRefusedBeforeRunning) {
  const auto r = run_rtgate(
      {"calibrate", "cyclic", "--runs", "2", "--policy-out", "/nonexistent/dir/policy.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--policy-out"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5);  // the default duration is 10 s a run: nothing ran
}

}  // namespace
}  // namespace rtgate::test
