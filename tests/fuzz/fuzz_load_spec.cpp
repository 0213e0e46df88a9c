// libFuzzer target: the `--load SPEC` parser with the real load kinds (parsed, never started).
// Any input is a LoadSpec whose canonical text parses back to itself, or nullopt with a
// one-line error.
#include "framework/background_load/load.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string error;
  const auto set = rtgate::load::parse_load_spec(rtgate::fuzz::text(data, size), &error);
  if (!set && error.empty()) rtgate::fuzz::broken("refused without a reason");
  if (!set && error.find('\n') != std::string::npos &&
      rtgate::fuzz::text(data, size).find('\n') == std::string_view::npos) {
    rtgate::fuzz::broken("a multi-line error for a one-line spec");
  }
  if (set) {
    std::string again_error;
    const auto again = rtgate::load::parse_load_spec(set->text(), &again_error);
    if (!again || !(*again == *set)) rtgate::fuzz::broken("the canonical text is another spec");
  }
  return 0;
}
