// The shipped VM policy (ci/policies/vm.yaml) on real sessions of a VM, not on a generator:
// tests/data/vm-cyclic holds `rtgate run cyclic --runs 5 --duration 2` recorded with
// ci/lab/aa-sessions.sh on the 2-vCPU Firecracker guest CI runs on: 10 sessions of history, 10
// A/A pairs after them, and 10 pairs whose current side ran beside a FIFO-98 interferer
// (`--load rt:1:98`, 2 ms of every 10 ms on CPU 0). Each file is one process of one boot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>

#include "gate/pair/baseline_sessions.h"
#include "gate/pair/compare.h"
#include "results/result_json.h"

namespace rtgate::gate {
namespace {

const std::string kData = std::string(RTGATE_SOURCE_DIR) + "/tests/data/vm-cyclic";

Policy vm_policy() { return load_policy(std::string(RTGATE_SOURCE_DIR) + "/ci/policies/vm.yaml"); }

std::string pair_file(const std::string& dir, int pair, const char* side) {
  char name[32];
  std::snprintf(name, sizeof name, "/p%02d-%s.json.gz", pair, side);
  return kData + "/" + dir + name;
}

// The recorded pairs of `dir`, each gated as `rtgate gate BASE CUR --history history` does.
std::vector<GateVerdict> gate_pairs(const std::string& dir, const Policy& policy) {
  std::vector<GateVerdict> out;
  for (int p = 1; p <= 10; ++p) {
    const RunReport base = read_report_file(pair_file(dir, p, "base"));
    const RunReport cur = read_report_file(pair_file(dir, p, "cur"));
    std::string error;
    const auto sessions = BaselineSessions::load(base, {}, kData + "/history", &error);
    EXPECT_TRUE(sessions) << error;
    if (!sessions) return out;
    out.push_back(sessions->compare(cur, policy));
  }
  return out;
}

int count(const std::vector<GateVerdict>& gates, int code) {
  return static_cast<int>(std::count_if(gates.begin(), gates.end(), [&](const GateVerdict& g) {
    return exit_code(g, false) == code;
  }));
}

TEST(GateVmPolicy, TheRecordedAAPairsPassAndTheInterfererFails) {
  const Policy vm = vm_policy();
  const std::vector<GateVerdict> aa = gate_pairs("pairs", vm);
  const std::vector<GateVerdict> aa_default = gate_pairs("pairs", Policy{});
  Policy mismatch = vm;
  mismatch.allow_env_mismatch = true;  // the interferer is a --load, a setting of its own
  const std::vector<GateVerdict> rt = gate_pairs("interferer", mismatch);
  std::printf(
      "[vm policy] A/A pairs exit 0: %d of 10 (default policy: %d), exit 1: %d; "
      "FIFO-98 interferer exit 1: %d of 10\n",
      count(aa, 0), count(aa_default, 0), count(aa, 1), count(rt, 1));
  EXPECT_GE(count(aa, 0), 8);
  EXPECT_EQ(count(aa, 1), 0);
  EXPECT_GE(count(rt, 1), 9);
  // The history is the baseline's: a current side under another load still has it.
  ASSERT_FALSE(rt.empty());
  EXPECT_NE(rt.front().noise.find("10 of 10 results measured what the baseline did"),
            std::string::npos)
      << rt.front().noise;
}

TEST(GateVmPolicy, ResampledAAGatesAreRarelyRed) {
  std::vector<RunReport> all;
  for (const char* dir : {"history", "pairs"}) {
    for (const auto& e : std::filesystem::directory_iterator(kData + "/" + dir)) {
      if (e.path().extension() == ".gz") all.push_back(read_report_file(e.path().string()));
    }
  }
  ASSERT_EQ(all.size(), 30u);
  const Policy vm = vm_policy();
  std::mt19937_64 rng(41);
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  int red = 0, green = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    std::shuffle(order.begin(), order.end(), rng);
    const RunReport& base = all[order[10]];
    const RunReport& cur = all[order[11]];
    std::vector<const RunReport*> known{&base};
    for (std::size_t i = 0; i < 10; ++i) known.push_back(&all[order[i]]);
    NoiseModel noise = NoiseModel::from_sessions(known, vm);
    noise.set_environment(base.environment, cur.environment);
    const int code = exit_code(compare({&base}, cur, vm, noise), false);
    red += code == 1;
    green += code == 0;
  }
  std::printf("[vm policy] resampled A/A over %d trials: exit 1 %.1f%%, exit 0 %.1f%%\n", trials,
              100.0 * red / trials, 100.0 * green / trials);
  EXPECT_LE(red, trials * 5 / 100);
}

}  // namespace
}  // namespace rtgate::gate
