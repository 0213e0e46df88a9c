// libFuzzer target: `rtgate import`'s detection and parsers (importers/), on any bytes. Each
// input is either one importer's run or an ImportError (one line: no newline in it); anything
// else escaping, or UB under the sanitizers, is a finding. An accepted run must be a result:
// written and read back as `rtgate import -o` then `gate` would, and combined with itself as
// two runs of one session.
#include <string_view>

#include "importers/import_files.h"
#include "results/result_json.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rtgate::RunReport run;
  try {
    run = rtgate::importers::import_text(rtgate::fuzz::text(data, size), "input",
                                         "rtla timerlat hist -p 1000")
              .second;
  } catch (const rtgate::importers::ImportError& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) {
      rtgate::fuzz::broken("an import error of more than one line");
    }
    return 0;
  }
  try {
    rtgate::report_from_text(rtgate::to_json_text(run));
  } catch (const std::exception& e) {
    rtgate::fuzz::broken(std::string("an import does not read back as a result: ") + e.what());
  }
  try {
    rtgate::importers::combine_runs({run, run}, {"a", "b"});
  } catch (const rtgate::importers::ImportError&) {
    rtgate::fuzz::broken("a run does not combine with itself");
  }
  return 0;
}
