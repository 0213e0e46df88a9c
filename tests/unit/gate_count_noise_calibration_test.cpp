// A count's session noise learned from a short history carries its uncertainty: 8 runs a side at
// about 100 events a run, each boot's rate offset by 10% (log SD), and a history of 5 boots. With
// the learned tau taken as exact (and clipped at 0), A/A gates of one such metric went red far
// more often than alpha; its upper bound keeps them at alpha. Seeded; prints its rates.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "gate/pair/compare.h"
#include "gate_one_case.h"
#include "tests/unit/parallel_trials.h"

namespace rtgate::gate {
namespace {

struct Tally {
  int trials = 0, red = 0;
  void merge(const Tally& o) {
    trials += o.trials;
    red += o.red;
  }
  double red_rate() const { return static_cast<double>(red) / trials; }
};

RunReport boot(std::mt19937_64& rng, int index, double rate, double session_sd, int runs) {
  std::normal_distribution<double> z;
  const double boot_rate = rate * std::exp(session_sd * z(rng));
  std::vector<double> counts;
  for (int r = 0; r < runs; ++r) {
    counts.push_back(static_cast<double>(std::poisson_distribution<int>(boot_rate)(rng)));
  }
  RunReport out = report_of({events("missed_periods", std::move(counts))});
  out.environment.boot_id = "boot-" + std::to_string(index);
  out.environment.pid = 100 + index;
  out.started_at = "2026-12-01T" + std::string(index < 10 ? "0" : "") + std::to_string(index) +
                   ":00:00.000Z";
  return out;
}

Tally aa(int trials, std::uint64_t seed, int history_boots) {
  return test::parallel_trials<Tally>(trials, seed, [&](std::mt19937_64& rng, Tally& t, int) {
    std::vector<RunReport> reports;
    for (int i = 0; i < history_boots + 2; ++i) reports.push_back(boot(rng, i, 100, 0.1, 8));
    std::vector<const RunReport*> known;
    for (int i = 0; i <= history_boots; ++i) known.push_back(&reports[static_cast<std::size_t>(i)]);
    const RunReport& base = reports[static_cast<std::size_t>(history_boots)];
    const RunReport& cur = reports.back();
    Policy p;
    p.alpha_scope = AlphaScope::kMetric;  // one metric at alpha: the promise made visible
    NoiseModel noise = NoiseModel::from_sessions(known, p);
    noise.set_environment(base.environment, cur.environment);
    const GateVerdict g = compare({&base}, cur, p, noise);
    ++t.trials;
    t.red += g.overall == Verdict::kRegressed ? 1 : 0;
  });
}

TEST(GateCountNoiseCalibration, AShortHistorysCountNoiseIsNotTakenAsExact) {
  const Tally five = aa(1000, 41, 5);
  const Tally ten = aa(1000, 42, 10);
  std::printf("counts ~100 a run, 8 runs, boots offset 10%%: A/A red %.1f%% with 5 boots of "
              "history, %.1f%% with 10 (one-sided alpha 5%%)\n",
              100 * five.red_rate(), 100 * ten.red_rate());
  // 1000 trials: a true 5% shows as at most 7.0% with 99.9% probability.
  EXPECT_LE(five.red_rate(), 0.07);
  EXPECT_LE(ten.red_rate(), 0.07);
}

}  // namespace
}  // namespace rtgate::gate
