#include "results/load_spec.h"

#include <cctype>

#include "base/text/strings.h"

namespace rtgate::load {
namespace {

// Trimmed, with every run of whitespace inside made one space.
std::string token(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : text::trim(s)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> split_args(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t colon = s.find(':');
    out.push_back(token(s.substr(0, colon)));
    if (colon == std::string_view::npos) return out;
    s.remove_prefix(colon + 1);
  }
}

}  // namespace

std::string LoadSpec::text() const {
  std::string out;
  for (const LoadItemSpec& item : items) {
    if (!out.empty()) out += ',';
    out += item.kind;
    for (const std::string& a : item.args) out += ':' + a;
  }
  return out;
}

std::optional<LoadSpec> parse_load_text(std::string_view spec, std::string* error,
                                        const TakesRest& takes_rest) {
  LoadSpec out;
  if (text::trim(spec).empty()) return out;
  std::string_view rest = spec;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = text::trim(rest.substr(0, comma));
    const std::size_t colon = item.find(':');
    LoadItemSpec parsed{.kind = token(item.substr(0, colon))};
    if (parsed.kind.empty()) {
      *error = item.empty()
                   ? "empty item in '" + std::string(spec) + "' (items are separated by ',')"
                   : "item '" + std::string(item) + "' has no kind";
      return std::nullopt;
    }
    const bool swallow = colon != std::string_view::npos && takes_rest && takes_rest(parsed.kind);
    if (swallow) {
      // The whole remainder, commas included, from the item's colon on.
      const std::string_view whole = text::trim(rest);
      parsed.args.push_back(token(whole.substr(whole.find(':') + 1)));
    } else if (colon != std::string_view::npos) {
      parsed.args = split_args(item.substr(colon + 1));
    }
    out.items.push_back(std::move(parsed));
    if (swallow || comma == std::string_view::npos) return out;
    rest.remove_prefix(comma + 1);
  }
}

}  // namespace rtgate::load
