// Other tools' JSON, parsed with bounds: a file from elsewhere must not take the importer's memory
// or stack (16 MiB of '[' made a tree too deep for nlohmann's recursive destructor and dump), nor
// mean two things (a key given twice, which readers resolve differently).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace rtgate::importers {

struct JsonLimits {
  int max_depth = 64;                   // rt-tests and rtla write 4 levels
  std::size_t max_values = 20'000'000;  // a histogram of every microsecond up to 10 s, twice
  std::size_t max_string = 1 << 20;     // a command line or a thread name
};

// `text` parsed, or a discarded value when it is not JSON (some tools write text). Throws
// ImportError naming `name` and the limit when the document is JSON past a limit, or has a key
// twice in one object.
nlohmann::json parse_bounded(std::string_view text, const std::string& name,
                             const JsonLimits& limits = {});

}  // namespace rtgate::importers
