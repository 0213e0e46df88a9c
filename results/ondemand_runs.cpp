#include "results/ondemand_runs.h"

#include <array>
#include <cmath>
#include <string_view>
#include <type_traits>

#include "results/result_json.h"

namespace rtgate {
namespace {

constexpr std::size_t kFields = 11;  // LatencySummary::for_each_field's count

}  // namespace

std::optional<std::vector<LatencySummary>> runs_on_demand(simdjson::ondemand::value v,
                                                          const std::function<std::string()>& where,
                                                          std::vector<std::string>* missing) {
  simdjson::ondemand::json_type type{};
  if (v.type().get(type) != simdjson::SUCCESS) throw JsonError(where() + ": not valid JSON");
  if (type != simdjson::ondemand::json_type::object) return std::nullopt;
  simdjson::ondemand::object cols;
  if (v.get_object().get(cols) != simdjson::SUCCESS) throw JsonError(where() + ": not valid JSON");
  std::vector<LatencySummary> out;
  std::array<bool, kFields> seen{};
  std::optional<std::size_t> runs;
  for (auto f : cols) {
    simdjson::ondemand::field field;
    std::string_view key;
    if (std::move(f).get(field) != simdjson::SUCCESS ||
        field.unescaped_key().get(key) != simdjson::SUCCESS) {
      throw JsonError(where() + ": not valid JSON");
    }
    std::size_t index = 0;
    bool known = false;
    LatencySummary::for_each_field([&](const char* name, auto member) {
      const std::size_t i = index++;
      if (known || key != name) return;
      known = true;
      seen[i] = true;
      const std::string col = where() + "." + name;
      simdjson::ondemand::array a;
      if (field.value().get_array().get(a) != simdjson::SUCCESS) {
        throw JsonError(col + ": expected an array");
      }
      std::size_t r = 0;
      for (auto x : a) {
        if (!runs && out.size() <= r) out.emplace_back();
        if (r >= out.size()) throw JsonError(col + ": not one value per run");
        using T = std::remove_reference_t<decltype(out[r].*member)>;
        if constexpr (std::is_same_v<T, double>) {
          double d = 0;
          if (x.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) {
            throw JsonError(col + ": a value is not a finite number");
          }
          out[r].*member = d;
        } else {
          std::uint64_t u = 0;
          if (x.get_uint64().get(u) != simdjson::SUCCESS) {
            throw JsonError(col + ": a value is not a non-negative integer");
          }
          out[r].*member = u;
        }
        ++r;
      }
      if (runs && r != *runs) throw JsonError(col + ": not one value per run");
      runs = r;
    });
  }
  std::size_t index = 0;
  LatencySummary::for_each_field([&](const char* name, auto) {
    if (seen[index++]) return;
    if (missing == nullptr) throw JsonError(where() + ": missing field '" + name + "'");
    missing->push_back(name);
  });
  return out;
}

}  // namespace rtgate
