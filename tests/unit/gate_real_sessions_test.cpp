// The gate's A/A calibration on real sessions of this machine, not on a generator: 30 separate
// processes of `rtgate run cyclic lock.latency --runs 5 --duration 2` recorded with
// ci/lab/aa-sessions.sh on the 2-vCPU KVM guest CI runs on (tests/data/sessions; lock.latency cut
// to four locks, so each file stays under 10 kB). Each trial draws 11 of them: 10 as the history
// and the baseline kernel's sessions, one as the current session; whatever differs between them
// is what this host does between processes, with its real tails, jumps and correlations. The
// trials share 30 sessions, so the rate is a resampling estimate, not 500 independent ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <optional>
#include <set>

#include "gate/pair/compare.h"
#include "results/board_class.h"
#include "results/result_json.h"

namespace rtgate::gate {
namespace {

std::vector<RunReport> recorded() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RTGATE_SOURCE_DIR) +
                                                           "/tests/data/sessions")) {
    if (e.path().extension() == ".gz") paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<RunReport> out;
  for (const std::string& p : paths) out.push_back(read_report_file(p));
  return out;
}

struct Rates {
  int trials = 0, regressed = 0, inconclusive = 0, exit0 = 0;
};

Rates resample(const std::vector<RunReport>& all, bool with_history, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  Rates r;
  for (int t = 0; t < 500; ++t) {
    std::shuffle(order.begin(), order.end(), rng);
    const RunReport& cur = all[order[10]];
    std::vector<const RunReport*> history;
    for (std::size_t i = 0; i < 10; ++i) history.push_back(&all[order[i]]);
    std::vector<const RunReport*> base = with_history ? history : std::vector{history.front()};
    NoiseModel noise;
    if (with_history) noise = NoiseModel::from_sessions(history, Policy{});
    noise.set_environment(base.front()->environment, cur.environment);
    const GateVerdict g = compare(base, cur, Policy{}, noise);
    ++r.trials;
    r.regressed += g.overall == Verdict::kRegressed;
    r.inconclusive += exit_code(g, false) == 3;
    r.exit0 += exit_code(g, false) == 0;
  }
  return r;
}

TEST(GateRealSessions, RecordedSessionsAreSeparateProcessesOfOneHost) {
  const std::vector<RunReport> all = recorded();
  ASSERT_EQ(all.size(), 30u);
  std::set<std::string> ids;
  for (const RunReport& r : all) ids.insert(session_id(r));
  EXPECT_EQ(ids.size(), all.size());
  EXPECT_EQ(all.front().environment.boot_id, all.back().environment.boot_id);
}

TEST(GateRealSessions, AABetweenProcessesOfThisMachine) {
  const std::vector<RunReport> all = recorded();
  for (const bool history : {true, false}) {
    const Rates r = resample(all, history, history ? 301 : 302);
    std::printf(
        "[real sessions] A/A, %-44s gate regressed %4.1f%%  exit 3 %4.1f%%  exit 0 %4.1f%%\n",
        history ? "10 sessions of history as the baseline" : "one baseline session, default prior",
        100.0 * r.regressed / r.trials, 100.0 * r.inconclusive / r.trials,
        100.0 * r.exit0 / r.trials);
    EXPECT_LE(static_cast<double>(r.regressed) / r.trials, 0.06);
  }
}

// The gross worst-case rule's A/A false red on this VM: every ordered pair of the 30 recorded
// processes, one session a side. Promise: under 1% at the VM's factor (x8); LKP's x3, the bare
// metal factor, is printed beside it for why a VM takes a wider one.
TEST(GateRealSessions, TheGrossRuleAlmostNeverFiresBetweenProcessesOfThisVm) {
  const std::vector<RunReport> all = recorded();
  ASSERT_EQ(board_class(all.front().environment), BoardClass::kVirtualMachine);
  const auto rate = [&](std::optional<double> factor) {
    Policy p;
    p.gross_max_factor = factor;
    int pairs = 0, gross = 0;
    for (std::size_t a = 0; a < all.size(); ++a) {
      for (std::size_t b = 0; b < all.size(); ++b) {
        if (a == b) continue;
        const GateVerdict g = compare(all[a], all[b], p);
        bool fired = false;
        for (const SuiteVerdict& s : g.suites) {
          for (const MetricVerdict& m : s.metrics) {
            fired = fired || m.decided_test == EvidenceTest::kGross;
          }
        }
        ++pairs;
        gross += fired;
      }
    }
    return std::pair{pairs, gross};
  };
  const auto [pairs, at_default] = rate(std::nullopt);
  const auto [pairs3, at_three] = rate(3.0);
  std::printf("[real sessions] gross rule, A/A over %d pairs of processes: %.2f%% at the VM's x8, "
              "%.2f%% at x3\n",
              pairs, 100.0 * at_default / pairs, 100.0 * at_three / pairs3);
  EXPECT_LT(static_cast<double>(at_default) / pairs, 0.01);
}

}  // namespace
}  // namespace rtgate::gate
