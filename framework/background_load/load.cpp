#include "framework/background_load/load.h"

#include <utility>

#include "framework/background_load/load_registry.h"

namespace rtgate::load {

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

namespace {

// The item as a kind's factory takes it, or nullptr and *error naming it (`shown`: its text).
std::unique_ptr<Load> make_item(const LoadItemSpec& item, const std::string& shown,
                                std::string* error) {
  const LoadKind* kind = find_load_kind(item.kind);
  if (kind == nullptr) {
    *error =
        "item '" + shown + "': unknown kind '" + item.kind + "' (known: " + load_kind_names() + ")";
    return nullptr;
  }
  std::string why;
  std::unique_ptr<Load> load = kind->make(item.args, &why);
  if (load == nullptr) *error = "item '" + shown + "': " + why + " (usage: " + kind->usage + ")";
  return load;
}

}  // namespace

std::optional<LoadSpec> parse_load_spec(std::string_view text, std::string* error) {
  const TakesRest takes_rest = [](std::string_view name) {
    const LoadKind* kind = find_load_kind(name);
    return kind != nullptr && kind->takes_rest;
  };
  std::optional<LoadSpec> spec = parse_load_text(text, error, takes_rest);
  if (spec && !make_loads(*spec, error)) return std::nullopt;
  return spec;
}

std::optional<LoadSet> make_loads(const LoadSpec& spec, std::string* error) {
  LoadSet set;
  for (const LoadItemSpec& item : spec.items) {
    std::string shown = LoadSpec{{item}}.text();
    std::unique_ptr<Load> load = make_item(item, shown, error);
    if (load == nullptr) return std::nullopt;
    set.add(std::move(shown), std::move(load));
  }
  return set;
}

}  // namespace rtgate::load
