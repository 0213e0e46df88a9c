// Writing a large JSON document piece by piece (the result file, `compare --format json`): an
// object as nlohmann's dump() or dump(indent) writes it, except one array member whose elements
// the caller writes one at a time, so that the whole document is never held.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace rtgate::json_stream {

using Put = std::function<void(const std::string&)>;

// v.dump(indent) as it reads `depth` levels down (JSON strings hold no raw newline, so every
// newline of the dump is indentation); indent < 0: compact, v.dump().
// Invalid UTF-8 in a string (a name that was not made valid where it entered) comes out as
// U+FFFD instead of throwing: the document stays valid and the result is written.
inline std::string dump_valid(const nlohmann::ordered_json& v, int indent = -1) {
  return v.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

inline std::string dump_at(const nlohmann::ordered_json& v, int indent, int depth) {
  if (indent < 0) return dump_valid(v);
  const std::string pad(static_cast<std::size_t>(indent * depth), ' ');
  std::string out;
  for (const char c : dump_valid(v, indent)) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

// `obj` (a non-empty object) written through `put` as dump_at(obj, indent, depth) would write
// it, except its member `streamed`, an array: items(next) writes its elements through `put`,
// calling next() before each (an element sits at depth + 2).
template <class Items>
void put_object(const nlohmann::ordered_json& obj, std::string_view streamed, int indent, int depth,
                const Put& put, Items&& items) {
  const bool compact = indent < 0;
  const std::string nl = compact ? "" : "\n";
  const std::string pad = compact ? "" : std::string(static_cast<std::size_t>(indent * depth), ' ');
  const std::string inner = compact ? "" : pad + std::string(static_cast<std::size_t>(indent), ' ');
  const std::string item =
      compact ? "" : inner + std::string(static_cast<std::size_t>(indent), ' ');
  put("{" + nl);
  bool first = true;
  for (const auto& [key, value] : obj.items()) {
    put((first ? "" : "," + nl) + inner + dump_valid(nlohmann::ordered_json(key)) +
        (compact ? ":" : ": "));
    first = false;
    if (key != streamed) {
      put(dump_at(value, indent, depth + 1));
      continue;
    }
    bool any = false;
    items([&] {
      put((any ? "," : "[") + nl + item);
      any = true;
    });
    put(any ? nl + inner + "]" : std::string("[]"));
  }
  put(nl + pad + "}");
}

}  // namespace rtgate::json_stream
