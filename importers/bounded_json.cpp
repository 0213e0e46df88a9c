#include "importers/bounded_json.h"

#include <set>
#include <vector>

#include "importers/importer.h"

namespace rtgate::importers {
namespace {

using json = nlohmann::json;

// What the parser's callback sees, checked as it goes: the limits hold before anything past
// them is built.
struct Bounds {
  const std::string& name;
  const JsonLimits& limits;
  std::vector<std::set<std::string>> keys;  // one per open object
  std::size_t values = 0;

  [[noreturn]] void fail(const std::string& what) const { throw ImportError(name + ": " + what); }

  bool on(int depth, json::parse_event_t event, const json& parsed) {
    if (depth > limits.max_depth) {
      fail("JSON nested deeper than " + std::to_string(limits.max_depth) + " levels");
    }
    switch (event) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string& k = parsed.get_ref<const std::string&>();
        if (!keys.empty() && !keys.back().insert(k).second)
          fail("the key \"" + k + "\" twice in one object");
        break;
      }
      case json::parse_event_t::value:
        if (++values > limits.max_values) {
          fail("more than " + std::to_string(limits.max_values) + " JSON values");
        }
        if (parsed.is_string() && parsed.get_ref<const std::string&>().size() > limits.max_string) {
          fail("a JSON string longer than " + std::to_string(limits.max_string) + " bytes");
        }
        break;
      default:
        break;
    }
    return true;
  }
};

}  // namespace

json parse_bounded(std::string_view text, const std::string& name, const JsonLimits& limits) {
  Bounds b{.name = name, .limits = limits, .keys = {}, .values = 0};
  return json::parse(
      text,
      [&b](int depth, json::parse_event_t event, json& parsed) {
        return b.on(depth, event, parsed);
      },
      /*allow_exceptions=*/false);
}

}  // namespace rtgate::importers
