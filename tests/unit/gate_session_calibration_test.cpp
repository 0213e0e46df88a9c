// The gate's calibration on data made with what real data has (tests/unit/gate_sim_world.h):
// session offsets shared by every run of a result, negative-binomial counts, a noisier group
// member, bimodal and heavy-tailed runs, autocorrelated samples, p99.9 from a few hundred samples.
// Each trial is a kernel gate as ci/gate-kernel.sh runs it: a history of earlier sessions of this
// host (the newest one the baseline), and a current session of its own, gated with the noise the
// history shows (or, without a history, the stated default prior). Seeded, kTrials trials a
// scenario at two sizes (cyclic on 2 CPUs: 6 judged metrics; wide: cyclic + lock.latency over 16
// locks, 86). Every rate is printed ("[sessions] ...") so it can be quoted, and asserted.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <thread>

#include "gate/pair/compare.h"
#include "tests/unit/gate_sim_world.h"
#include "tests/unit/parallel_trials.h"

namespace rtgate::gate {
namespace {

constexpr int kTrials = 500;
constexpr double kAlpha = 0.05;

sim::Layout cyclic() { return {}; }
sim::Layout wide() { return {.locks = 16}; }

struct Tally {
  int trials = 0, regressed = 0, exit0 = 0, target_regressed = 0, target_green = 0;
  double rate(int n) const { return static_cast<double>(n) / trials; }
  void merge(const Tally& o) {
    trials += o.trials;
    regressed += o.regressed;
    exit0 += o.exit0;
    target_regressed += o.target_regressed;
    target_green += o.target_green;
  }
  void print(const char* scenario) const {
    std::printf(
        "[sessions] %-58s gate regressed %5.1f%%  exit 0 %5.1f%%  target regressed %5.1f%%  "
        "target green %d\n",
        scenario, 100 * rate(regressed), 100 * rate(exit0), 100 * rate(target_regressed),
        target_green);
  }
};

// One trial's setting: the world, the history's length (0: none, the default prior), runs a
// session, and the change current carries.
struct Scenario {
  sim::Layout layout;
  sim::World world;
  int history = 10;
  int runs = 5;
  sim::WorldChange change;
  // The baseline: every session of the history (the baseline kernel ran that often, as a board
  // that runs one kernel per night has), or only the newest.
  bool all_sessions_baseline = true;
};

const MetricVerdict* target(const GateVerdict& g, const sim::Change& c) {
  for (const SuiteVerdict& s : g.suites) {
    for (const MetricVerdict& m : s.metrics) {
      if (c.matches(m.suite, m.case_name, m.metric)) return &m;
    }
  }
  return nullptr;
}

GateVerdict one_gate(std::mt19937_64& rng, const Scenario& sc, int trial) {
  // Sessions are told apart by boot: each history session and the current one is a boot.
  const std::string boot = "trial" + std::to_string(trial) + "-boot";
  std::vector<RunReport> history;
  if (sc.history > 0) {
    history = sim::history(rng, sc.layout, sc.world, sc.history, sc.runs);
  } else {
    history.push_back(sim::session(rng, sc.layout, sc.world, sc.runs));
  }
  for (std::size_t i = 0; i < history.size(); ++i) {
    history[i].environment.boot_id = boot + std::to_string(i);
  }
  RunReport cur = sim::session(rng, sc.layout, sc.world, sc.runs, sc.change);
  cur.environment.boot_id = boot + "current";
  std::vector<const RunReport*> known;
  for (const RunReport& h : history) known.push_back(&h);
  NoiseModel noise;
  if (sc.history > 0) noise = NoiseModel::from_sessions(known, Policy{});
  noise.set_environment(history.back().environment, cur.environment);
  std::vector<const RunReport*> base{&history.back()};
  if (sc.all_sessions_baseline) {
    for (std::size_t i = 0; i + 1 < history.size(); ++i) base.push_back(&history[i]);
  }
  return compare(base, cur, Policy{}, noise);
}

Tally trials(const Scenario& sc, std::uint64_t seed) {
  return test::parallel_trials<Tally>(
      kTrials, seed, [&](std::mt19937_64& rng, Tally& tally, int i) {
        const GateVerdict g = one_gate(rng, sc, i);
        ++tally.trials;
        tally.regressed += g.overall == Verdict::kRegressed;
        tally.exit0 += exit_code(g, false) == 0;
        if (const MetricVerdict* m = target(g, sc.change)) {
          tally.target_regressed += m->verdict == Verdict::kRegressed;
          tally.target_green += passes(m->verdict);
        }
      });
}

void expect_false_rate(const Tally& t) { EXPECT_LE(t.rate(t.regressed), kAlpha + 0.01); }

Scenario offsets(sim::Layout layout, double sigma, int history) {
  return {.layout = layout, .world = {.session_sigma = sigma}, .history = history};
}

// --- A/A: the whole gate's false "regressed" under session offsets ---------------------------

TEST(GateSessionCalibration, CyclicOffset5WithHistory) {
  const Tally t = trials(offsets(cyclic(), 0.05, 10), 201);
  t.print("cyclic A/A, session offset 5%, 10 sessions of history");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, CyclicOffset10WithHistory) {
  const Tally t = trials(offsets(cyclic(), 0.10, 10), 202);
  t.print("cyclic A/A, session offset 10%, 10 sessions of history");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, CyclicOffset5DefaultPrior) {
  const Tally t = trials(offsets(cyclic(), 0.05, 0), 204);
  t.print("cyclic A/A, session offset 5%, default prior");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, CyclicOffset10DefaultPrior) {
  const Tally t = trials(offsets(cyclic(), 0.10, 0), 203);
  t.print("cyclic A/A, session offset 10%, default prior");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, WideOffset5WithHistory) {
  const Tally t = trials(offsets(wide(), 0.05, 10), 211);
  t.print("wide A/A, session offset 5%, 10 sessions of history");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, WideOffset10WithHistory) {
  const Tally t = trials(offsets(wide(), 0.10, 10), 212);
  t.print("wide A/A, session offset 10%, 10 sessions of history");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, WideOffset10NewestSessionAsBaseline) {
  Scenario sc = offsets(wide(), 0.10, 10);
  sc.all_sessions_baseline = false;
  const Tally t = trials(sc, 215);
  t.print("wide A/A, offset 10%, history, baseline its newest session");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, WideOffset5DefaultPrior) {
  const Tally t = trials(offsets(wide(), 0.05, 0), 213);
  t.print("wide A/A, session offset 5%, default prior");
  expect_false_rate(t);
}

TEST(GateSessionCalibration, WideOffset10DefaultPrior) {
  const Tally t = trials(offsets(wide(), 0.10, 0), 214);
  t.print("wide A/A, session offset 10%, default prior");
  expect_false_rate(t);
}

// Missed periods, overruns and skipped periods negative binomial: mean 3 a run, variance 3x.
TEST(GateSessionCalibration, WideNegativeBinomialCounts) {
  for (int history : {10, 0}) {
    Scenario sc = offsets(wide(), 0.05, history);
    sc.layout.missed_rate = sc.layout.overrun_rate = sc.layout.skipped_rate = 3;
    sc.world.count_dispersion = 3;
    const Tally t = trials(sc, 221 + static_cast<std::uint64_t>(history));
    t.print(history > 0 ? "wide A/A, counts NB (mean 3, dispersion 3), history"
                        : "wide A/A, counts NB (mean 3, dispersion 3), default prior");
    expect_false_rate(t);
  }
}

// One lock three times noisier than its group, in drift and in session offset.
TEST(GateSessionCalibration, WideNoisierGroupMember) {
  for (int history : {10, 0}) {
    Scenario sc = offsets(wide(), 0.05, history);
    sc.world.noisy_lock = 3;
    sc.world.noisy_factor = 3;
    const Tally t = trials(sc, 231 + static_cast<std::uint64_t>(history));
    t.print(history > 0 ? "wide A/A, one lock 3x noisier, history"
                        : "wide A/A, one lock 3x noisier, default prior");
    expect_false_rate(t);
  }
}

// What real runs look like at once: one run in ten in a slow mode (x1.5), heavy-tailed drift
// (t with 3 df), autocorrelated samples (rho 0.5), cyclic's p99.9 from 500 samples a run.
TEST(GateSessionCalibration, WideRealisticRuns) {
  for (int history : {10, 0}) {
    Scenario sc = offsets(wide(), 0.05, history);
    sc.world.slow_share = 0.1;
    sc.world.slow_factor = 1.5;
    sc.world.drift_t_df = 3;
    sc.world.autocorrelation = 0.5;
    sc.layout.cyclic_samples = 500;
    const Tally t = trials(sc, 241 + static_cast<std::uint64_t>(history));
    t.print(history > 0 ? "wide A/A, bimodal heavy-tailed autocorrelated runs, history"
                        : "wide A/A, bimodal heavy-tailed autocorrelated runs, default prior");
    expect_false_rate(t);
  }
}

// One long run per session (as a board that runs one cyclic per kernel): the history's sessions
// have no runs to separate from their offsets, so tau^2 holds the run spread too, and a new
// single-run session is judged as a prediction from them.
TEST(GateSessionCalibration, SingleRunSessionsAgainstTheirHistory) {
  for (const auto& [layout, name] : {std::pair{cyclic(), "cyclic"}, std::pair{wide(), "wide"}}) {
    Scenario sc = offsets(layout, 0.05, 10);
    sc.runs = 1;
    const Tally t = trials(sc, 295);
    t.print((std::string(name) + " A/A, one run a session, offset 5%, history").c_str());
    expect_false_rate(t);
  }
  Scenario sc = offsets(cyclic(), 0.05, 10);
  sc.runs = 1;
  sc.change.suite = "cyclic";
  sc.change.case_name = "cpu1";
  sc.change.metric = "wakeup_latency";
  sc.change.tail_scale = 4;
  const Tally t = trials(sc, 296);
  t.print("cyclic p99.9 x4 on cpu1, one run a session, history");
  EXPECT_GE(t.rate(t.target_regressed), 0.90);
}

// --- Detection with 10 sessions of history ---------------------------------------------------

TEST(GateSessionCalibration, P999DoubledOnOneCpu) {
  for (const auto& [layout, name] : {std::pair{cyclic(), "cyclic"}, std::pair{wide(), "wide"}}) {
    Scenario sc = offsets(layout, 0.05, 10);
    sc.change.suite = "cyclic";
    sc.change.case_name = "cpu1";
    sc.change.metric = "wakeup_latency";
    sc.change.tail_scale = 2;
    const Tally t = trials(sc, 251);
    t.print((std::string(name) + " p99.9 x2 on cpu1, offset 5%, history").c_str());
    EXPECT_GE(t.rate(t.target_regressed), 0.90);
  }
}

// Throughput per run at CV 3% with no drift, and a session spread of 0.5% (what separate
// processes on one boot of this machine showed: 0.0-0.6%). A session spread of 5% hides a 10%
// step from one session a side whatever the runs: the evidence then names the sessions needed.
TEST(GateSessionCalibration, ThroughputDownTenPercent) {
  Scenario sc = offsets(wide(), 0.05, 10);
  sc.world.throughput_session_sigma = 0.005;
  sc.world.drift.sigma = 0;
  sc.change.suite = "lock.latency";
  sc.change.case_name = "lock5";
  sc.change.metric = "nonrt_throughput";
  sc.change.throughput_factor = 0.9;
  const Tally t = trials(sc, 261);
  t.print("wide throughput -10% on one lock, offsets 5% / 0.5%, history");
  EXPECT_GE(t.rate(t.target_regressed), 0.90);
}

// Missed periods from none to 5 a run on one CPU, against the ten baseline sessions of the
// history (none of which missed a period). The dispersion the test divides by is taken at its
// upper 75% bound, which from current's own 4 df about doubles it: one session against one
// detects this change about 60% of the time, and the history is what makes it certain.
TEST(GateSessionCalibration, MissedPeriodsZeroToFive) {
  Scenario sc = offsets(cyclic(), 0.05, 10);
  sc.layout.missed_rate = 0;
  sc.change.suite = "cyclic";
  sc.change.case_name = "cpu0";
  sc.change.metric = "missed_periods";
  sc.change.event_rate = 5;
  const Tally t = trials(sc, 291);
  t.print("cyclic missed periods 0 -> 5 a run, history");
  EXPECT_GE(t.rate(t.target_regressed), 0.90);
}

// --- The worst case and a hung workload are never green --------------------------------------

TEST(GateSessionCalibration, OneRunWithFourTimesTheMaxIsNeverUnchanged) {
  for (const auto& [layout, name] : {std::pair{cyclic(), "cyclic"}, std::pair{wide(), "wide"}}) {
    Scenario sc = offsets(layout, 0.05, 10);
    sc.runs = 20;
    sc.change.suite = "cyclic";
    sc.change.case_name = "cpu0";
    sc.change.metric = "wakeup_latency";
    sc.change.outlier_factor = 4;
    const Tally t = trials(sc, 271);
    t.print((std::string(name) + " one current run's max x4, 20 runs a session").c_str());
    EXPECT_EQ(t.target_green, 0);
  }
}

TEST(GateSessionCalibration, ARunAtZeroOpsIsNeverGreen) {
  Scenario sc = offsets(wide(), 0.05, 10);
  sc.change.suite = "lock.latency";
  sc.change.case_name = "lock2";
  sc.change.metric = "nonrt_throughput";
  sc.change.zero_run = true;
  const Tally t = trials(sc, 281);
  t.print("wide one current run at 0 ops/s");
  EXPECT_EQ(t.target_green, 0);
  EXPECT_EQ(t.exit0, 0);
}

}  // namespace
}  // namespace rtgate::gate
