// libFuzzer target: the CPU list parser (`--cpus`, `-p cpus=`, sysfs masks). A list that parses
// is sorted, unique, in range, and reads back the same from its formatted text.
#include <algorithm>

#include "framework/rt/cpu_list.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto cpus = rtgate::text::parse_cpu_list(rtgate::fuzz::text(data, size));
  if (!cpus) return 0;
  if (!std::is_sorted(cpus->begin(), cpus->end()) ||
      std::adjacent_find(cpus->begin(), cpus->end()) != cpus->end() ||
      (!cpus->empty() && cpus->front() < 0)) {
    rtgate::fuzz::broken("not sorted, unique and >= 0");
  }
  const auto again = rtgate::text::parse_cpu_list(rtgate::text::format_cpu_list(*cpus));
  if (!again || *again != *cpus) rtgate::fuzz::broken("format/parse round trip");
  return 0;
}
