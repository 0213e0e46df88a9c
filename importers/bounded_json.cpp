#include "importers/bounded_json.h"

#include "importers/importer.h"
#include "results/duplicate_keys.h"

namespace rtgate::importers {
namespace {

using json = nlohmann::json;

// What the parser's callback sees, checked as it goes: the limits hold before anything past
// them is built.
struct Bounds {
  const std::string& name;
  const JsonLimits& limits;
  std::size_t values = 0;

  [[noreturn]] void fail(const std::string& what) const { throw ImportError(name + ": " + what); }

  bool on(int depth, json::parse_event_t event, const json& parsed) {
    if (depth > limits.max_depth) {
      fail("JSON nested deeper than " + std::to_string(limits.max_depth) + " levels");
    }
    if (event != json::parse_event_t::value) return true;
    if (++values > limits.max_values) {
      fail("more than " + std::to_string(limits.max_values) + " JSON values");
    }
    if (parsed.is_string() && parsed.get_ref<const std::string&>().size() > limits.max_string) {
      fail("a JSON string longer than " + std::to_string(limits.max_string) + " bytes");
    }
    return true;
  }
};

}  // namespace

json parse_bounded(std::string_view text, const std::string& name, const JsonLimits& limits) {
  Bounds b{.name = name, .limits = limits, .values = 0};
  json parsed = json::parse(
      text,
      [&b](int depth, json::parse_event_t event, json& value) { return b.on(depth, event, value); },
      /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) {
    if (const auto key = first_duplicate_key(text))
      b.fail("the key \"" + *key + "\" twice in one object");
  }
  return parsed;
}

}  // namespace rtgate::importers
