// The session noise from a host's history (gate/noise/session_noise.h): what the series of
// session means gives, what a real change in it does not give, and the stated default prior.
#include <gtest/gtest.h>

#include <random>

#include "gate/noise/session_noise.h"

namespace rtgate::gate {
namespace {

// Session means with offsets of SD `tau` plus their runs' own part (variance `within` each).
std::vector<SessionPoint> series(std::mt19937_64& rng, int n, double tau, double within,
                                 double step_at = -1, double step = 0) {
  std::normal_distribution<double> z(0, 1);
  std::vector<SessionPoint> out;
  for (int i = 0; i < n; ++i) {
    const double level = i >= step_at && step_at >= 0 ? step : 0;
    out.push_back({.mean = level + tau * z(rng) + std::sqrt(within) * z(rng),
                   .mean_var = within,
                   .spread_ss = within * 5 * 4,
                   .spread_df = 4});
  }
  return out;
}

TEST(GateSessionNoise, RecoversTheSessionSpreadAboveTheRunsPart) {
  // Averaged over 400 histories of 10 sessions the estimate of tau^2 = 0.01 is unbiased to
  // within 10% (one history's has only about 9 df).
  std::mt19937_64 rng(11);
  double sum = 0;
  for (int i = 0; i < 400; ++i)
    sum += estimate_session_noise(series(rng, 10, 0.1, 0.004), false).tau_sq;
  EXPECT_NEAR(sum / 400, 0.01, 0.001);
}

TEST(GateSessionNoise, AKernelChangeInTheHistoryIsNotNoise) {
  // A step of 10 session SDs half-way: the plain variance would make tau about 5 times too large;
  // the von Neumann ratio sees the series moved and the successive differences stay near the truth.
  std::mt19937_64 rng(12);
  int moved = 0;
  double sum = 0;
  for (int i = 0; i < 200; ++i) {
    const SessionNoise n = estimate_session_noise(series(rng, 12, 0.1, 0.0, 6, 1.0), false);
    sum += n.tau_sq;
    moved += n.tau_df < 11;  // the differences' df, not the variance's 11
  }
  EXPECT_GT(moved, 180);
  EXPECT_LT(sum / 200, 0.02);
}

TEST(GateSessionNoise, AQuietHistoryKeepsItsUncertainty) {
  // Session means that varied less than their runs explain give tau^2 < 0, kept: the df still
  // say how little 6 sessions know, and the total the gate uses never goes below the runs' part.
  std::vector<SessionPoint> calm;
  for (double m : {0.0, 0.01, -0.01, 0.0, 0.01, -0.01}) {
    calm.push_back({.mean = m, .mean_var = 0.01, .spread_ss = 0.2, .spread_df = 4});
  }
  const SessionNoise n = estimate_session_noise(calm, false);
  EXPECT_LT(n.tau_sq, 0);
  EXPECT_GT(n.session_mean_var, 0);
  EXPECT_LT(n.tau_df, 6);
  EXPECT_EQ(n.source, NoiseSource::kHistory);
}

TEST(GateSessionNoise, TooShortAHistoryIsLeftToThePrior) {
  std::mt19937_64 rng(13);
  EXPECT_EQ(estimate_session_noise(series(rng, kMinHistory - 1, 0.1, 0.001), false).source,
            NoiseSource::kDefault);
}

TEST(GateSessionNoise, TheDefaultPriorIsPerBoardClass) {
  auto tau = [](const char* s, BoardClass c, bool same_boot) {
    return std::sqrt(default_session_noise(s, c, same_boot).tau_sq);
  };
  const BoardClass metal = BoardClass::kBareMetal, vm = BoardClass::kVirtualMachine;
  EXPECT_DOUBLE_EQ(tau("p99", metal, false), 0.10);
  EXPECT_DOUBLE_EQ(tau("max", metal, false), 0.25);
  EXPECT_DOUBLE_EQ(tau("p99", metal, true), 0.03);
  // A VM's processes of one boot spread as far as this VM's did (tests/data/sessions).
  EXPECT_DOUBLE_EQ(tau("p99", vm, true), 0.25);
  EXPECT_DOUBLE_EQ(tau("max", vm, true), 0.6);
  EXPECT_DOUBLE_EQ(tau("p99", BoardClass::kEmulated, false), tau("p99", vm, false));
  // The deterministic board repeats itself boot after boot.
  EXPECT_DOUBLE_EQ(tau("p99", BoardClass::kDeterministic, false), 0.02);
  EXPECT_DOUBLE_EQ(tau("max", BoardClass::kDeterministic, false), 0.03);
  EXPECT_TRUE(std::isinf(default_session_noise("value", metal, false).tau_df));
}

TEST(GateSessionNoise, SessionsAreTheBootAndTheProcess) {
  RunReport a, b;
  a.environment.boot_id = b.environment.boot_id = "boot";
  a.environment.pid = 1;
  b.environment.pid = 2;
  EXPECT_NE(session_id(a), session_id(b));
  b.environment.pid = 1;
  EXPECT_EQ(session_id(a), session_id(b));
  RunReport old1, old2;  // written before rtgate recorded sessions: host and start time
  old1.environment.hostname = old2.environment.hostname = "h";
  old1.started_at = "2026-01-01T00:00:00Z";
  old2.started_at = "2026-01-02T00:00:00Z";
  EXPECT_NE(session_id(old1), session_id(old2));
}

}  // namespace
}  // namespace rtgate::gate
