// libFuzzer target: the result loader (report_from_bytes, behind read_report_file: `rtgate gate`,
// `compare`, `export` and `run --baseline`), plain JSON or gzip. Any input is either a RunReport or
// a JsonError (not JSON, not a result, malformed); anything else escaping, or UB under the
// sanitizers, is a finding. An accepted result must survive a write and re-read (what `run -o` then
// `gate` does).
#include <string_view>

#include "results/result_json.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rtgate::RunReport report;
  try {
    report = rtgate::report_from_bytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                       "input");
  } catch (const rtgate::JsonError&) {
    return 0;
  }
  // Quantiles clamp to [min, max]; restore() must have refused a histogram where that is UB.
  for (const auto& s : report.suites) {
    for (const auto& c : s.cases) {
      for (const auto& m : c.metrics) {
        if (m.histogram && m.histogram->count() > 0) {
          const auto q = m.histogram->quantile(0.99);
          if (q < m.histogram->min() || q > m.histogram->max()) rtgate::fuzz::broken("quantile");
        }
      }
    }
  }
  const std::string text = rtgate::to_json_text(report);
  try {
    rtgate::report_from_text(text);
  } catch (const std::exception& e) {
    rtgate::fuzz::broken(std::string("an accepted result does not re-read: ") + e.what());
  }
  return 0;
}
