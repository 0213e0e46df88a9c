// libFuzzer target: the gate policy parser (`--policy FILE`, YAML or JSON). Any input is either a
// Policy or a PolicyError; a policy that parses must resolve for a metric of every kind.
#include "gate/model/policy.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rtgate::gate::Policy policy;
  try {
    policy = rtgate::gate::parse_policy(std::string(rtgate::fuzz::text(data, size)), "fuzz");
  } catch (const rtgate::gate::PolicyError&) {
    return 0;
  }
  for (const bool gated_by_default : {true, false}) {
    const auto mp =
        rtgate::gate::resolve(policy, "cyclic", "cpu0", "wakeup_latency", gated_by_default);
    if (!(mp.alpha > 0 && mp.alpha <= 0.5)) rtgate::fuzz::broken("alpha out of (0, 0.5]");
    for (double q : mp.quantiles) {
      if (!(q > 0 && q < 1)) rtgate::fuzz::broken("a quantile out of (0, 1)");
    }
  }
  return 0;
}
