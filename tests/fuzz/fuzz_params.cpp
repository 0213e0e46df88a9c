// libFuzzer target: `-p` parameters (SUITE.KEY=VALUE or KEY=VALUE, one per line) bound to the
// selected suites: every value is parsed by its ParamSpec (int, real, bool, choice, CPU list,
// string). The result is the suites with in-range values, or nullopt with a one-line error.
#include "framework/bind_params.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_suites.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // a command line, not a file
  std::vector<const rtgate::SuiteDescriptor*> selected;
  for (const auto& d : rtgate::fuzz::fuzz_suites()) selected.push_back(&d);
  std::string error;
  const auto bound =
      rtgate::bind_params(selected, rtgate::fuzz::lines(rtgate::fuzz::text(data, size)), &error);
  if (!bound) {
    if (error.empty()) rtgate::fuzz::broken("refused without a reason");
    return 0;
  }
  for (const rtgate::SelectedSuite& s : *bound) {
    for (const rtgate::ParamSpec& spec : s.suite->params) {
      if (spec.type == rtgate::ParamType::kInt) {
        const auto v = static_cast<double>(s.params.get_int(spec.name));
        if (v < spec.min || v > spec.max) rtgate::fuzz::broken(spec.name + " out of range");
      } else if (spec.type == rtgate::ParamType::kDouble) {
        const double v = s.params.get_double(spec.name);
        if (!(v >= spec.min && v <= spec.max)) rtgate::fuzz::broken(spec.name + " out of range");
      }
    }
  }
  return 0;
}
