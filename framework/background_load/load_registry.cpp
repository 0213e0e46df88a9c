#include "framework/background_load/load_registry.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace rtgate::load {
namespace {

std::vector<LoadKind>& kinds() {
  static std::vector<LoadKind> all;
  return all;
}

}  // namespace

const std::vector<LoadKind>& load_kinds() { return kinds(); }

const LoadKind* find_load_kind(std::string_view name) {
  for (const LoadKind& k : load_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string load_kind_names() {
  std::string out;
  for (const LoadKind& k : load_kinds()) out += (out.empty() ? "" : ", ") + k.name;
  return out;
}

LoadKindRegistrar::LoadKindRegistrar(LoadKind kind) {
  std::vector<LoadKind>& all = kinds();
  // Two kinds with one name is a build mistake, not something to resolve at run time.
  if (std::any_of(all.begin(), all.end(), [&](const LoadKind& k) { return k.name == kind.name; })) {
    std::fprintf(stderr, "rtgate: load kind '%s' is registered twice\n", kind.name.c_str());
    std::abort();
  }
  const auto pos =
      std::lower_bound(all.begin(), all.end(), kind,
                       [](const LoadKind& a, const LoadKind& b) { return a.name < b.name; });
  all.insert(pos, std::move(kind));
}

bool parse_int_arg(std::string_view text, std::string_view what, int lo, int hi, int* out,
                   std::string* error) {
  // Digits only: from_chars would accept a leading '-', and "+2" or "2 " are not what people mean.
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  int value = 0;
  if (digits) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size() && value >= lo && value <= hi) {
      *out = value;
      return true;
    }
  }
  *error = std::string(what) + " must be an integer from " + std::to_string(lo) + " to " +
           std::to_string(hi) + ", got '" + std::string(text) + "'";
  return false;
}

bool check_arg_count(const std::vector<std::string>& args, std::size_t max, std::string* error) {
  if (args.size() <= max) return true;
  *error = "takes at most " + std::to_string(max) + " argument" + (max == 1 ? "" : "s") + ", got " +
           std::to_string(args.size());
  return false;
}

std::optional<int> thread_count_arg(const std::vector<std::string>& args, int max,
                                    std::string* error) {
  int n = 1;
  if (!check_arg_count(args, 1, error)) return std::nullopt;
  if (!args.empty() && !parse_int_arg(args[0], "thread count", 1, max, &n, error)) {
    return std::nullopt;
  }
  return n;
}

}  // namespace rtgate::load
