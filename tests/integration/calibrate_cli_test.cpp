// rtgate calibrate end to end: a real A/A run of cyclic, its table, and a policy file that the
// gate accepts; usage errors refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "framework/rt/rt_checks.h"
#include "gate/model/policy.h"
#include "results/result_json.h"
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
  const auto mp = gate::resolve(p, "cyclic", "cpu0", "wakeup_latency", true);
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

// --sessions: one process per session (each result its own pid and a common boot), a table of
// the sessions' spread, and a directory the gate reads as this host's history.
TEST(CalibrateCli, SessionsAreSeparateProcessesAndAHistoryForTheGate) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string sessions = dir.file("sessions");
  const auto c = run_rtgate({"calibrate", "cyclic", "--runs", "2", "--duration", "0.3", "-p",
                             "interval_us=500", "--sessions", "6", "--sessions-dir", sessions});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  for (const char* text :
       {"session SD", "wakeup_latency", "--history ", "WARNING: all 6 sessions ran in one boot"}) {
    EXPECT_NE(c.out.find(text), std::string::npos) << text << " missing from:\n" << c.out;
  }
  std::set<std::int64_t> pids;
  for (int k = 1; k <= 6; ++k) {
    const RunReport r = read_report_file(sessions + "/session-" + std::to_string(k) + ".json");
    EXPECT_FALSE(r.environment.boot_id.empty());
    pids.insert(r.environment.pid);
    // Each session ran as calibrate was asked to.
    ASSERT_EQ(r.suites.size(), 1u);
    EXPECT_EQ(r.suites[0].runs, 2);
    EXPECT_EQ(std::get<std::int64_t>(r.suites[0].params.at("interval_us")), 500);
  }
  EXPECT_EQ(pids.size(), 6u) << "every session is its own process";

  // Neither the current session nor the baseline's (already a session of the gate) is history:
  // 4 of the 6 are, and the noise comes from those and the baseline.
  const std::string a = sessions + "/session-1.json", b = sessions + "/session-6.json";
  const auto g = run_rtgate({"gate", a, b, "--history", sessions});
  // Processes of one boot judge a gate within that boot, which this one is.
  EXPECT_NE(g.out.find("session noise from 5 processes of one boot of this host's history"),
            std::string::npos)
      << g.out;
  EXPECT_NE(g.out.find("4 of 6 results measured what the baseline did"), std::string::npos)
      << g.out;

  const auto bad = run_rtgate({"calibrate", "cyclic", "--sessions", "3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--sessions needs --sessions-dir"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace rtgate::test
