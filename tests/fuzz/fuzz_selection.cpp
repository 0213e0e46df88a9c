// libFuzzer target: suite selectors (names, globs, tag:NAME, -EXCLUDED; one per line), as `run`,
// `list` and `serve` take them. The result is a subset in registry order or a one-line error.
#include "framework/selection.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_suites.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // a command line, not a file
  const auto& suites = rtgate::fuzz::fuzz_suites();
  const auto selectors = rtgate::fuzz::lines(rtgate::fuzz::text(data, size));
  const rtgate::Selection s = rtgate::select_suites(suites, selectors, "tag:smoke");
  if (!s.ok()) {
    if (!s.suites.empty()) rtgate::fuzz::broken("an error with suites selected");
    return 0;
  }
  const rtgate::SuiteDescriptor* prev = nullptr;
  for (const rtgate::SuiteDescriptor* d : s.suites) {
    if (d < suites.data() || d >= suites.data() + suites.size() || (prev && d <= prev)) {
      rtgate::fuzz::broken("not a subset in registry order");
    }
    prev = d;
  }
  (void)rtgate::closest_names({"cyclic", "lock.latency", "mm.pft"}, selectors.front());
  return 0;
}
