#include "framework/background_load/load.h"

#include <utility>

#include "base/text/strings.h"
#include "framework/background_load/load_registry.h"

namespace rtgate::load {
namespace {

using text::trim;

std::vector<std::string> split_args(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t colon = s.find(':');
    out.emplace_back(trim(s.substr(0, colon)));
    if (colon == std::string_view::npos) return out;
    s.remove_prefix(colon + 1);
  }
}

}  // namespace

LoadSet::~LoadSet() { stop(); }

void LoadSet::add(std::string spec, std::unique_ptr<Load> load) {
  items_.push_back({std::move(spec), std::move(load)});
}

void LoadSet::start() {
  for (std::size_t i = 0; i < items_.size(); ++i) {
    try {
      items_[i].load->start();
    } catch (const std::exception& e) {
      // The failed load may have started part of itself; stop() is idempotent, so stop it too.
      for (std::size_t j = i + 1; j-- > 0;) items_[j].load->stop();
      throw LoadError("item '" + items_[i].spec + "': " + e.what());
    }
  }
}

void LoadSet::stop() {
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) it->load->stop();
}

std::vector<LoadReport> LoadSet::reports() const {
  std::vector<LoadReport> out;
  for (const Item& item : items_) {
    LoadReport r = item.load->report();
    r.spec = item.spec;
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<LoadSet> parse_load_spec(std::string_view spec, std::string* error) {
  LoadSet set;
  if (trim(spec).empty()) return set;
  std::string_view rest = spec;
  while (true) {
    const std::size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) {
      *error = "empty item in '" + std::string(spec) + "' (items are separated by ',')";
      return std::nullopt;
    }
    const std::size_t colon = item.find(':');
    const std::string_view name = trim(item.substr(0, colon));
    const LoadKind* kind = find_load_kind(name);
    if (kind == nullptr) {
      *error = "item '" + std::string(item) + "': unknown kind '" + std::string(name) +
               "' (known: " + load_kind_names() + ")";
      return std::nullopt;
    }
    const bool swallow = kind->takes_rest && colon != std::string_view::npos;
    std::vector<std::string> args;
    if (swallow) {
      item = trim(rest);  // the whole remainder, commas included
      args.emplace_back(item.substr(colon + 1));
    } else if (colon != std::string_view::npos) {
      args = split_args(item.substr(colon + 1));
    }
    std::string why;
    std::unique_ptr<Load> load = kind->make(args, &why);
    if (load == nullptr) {
      *error = "item '" + std::string(item) + "': " + why + " (usage: " + kind->usage + ")";
      return std::nullopt;
    }
    set.add(std::string(item), std::move(load));
    if (swallow || comma == std::string_view::npos) return set;
    rest.remove_prefix(comma + 1);
  }
}

}  // namespace rtgate::load
