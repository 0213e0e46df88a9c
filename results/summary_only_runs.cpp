#include "results/summary_only_runs.h"

#include <algorithm>
#include <type_traits>

#include "results/json_dom.h"

namespace rtgate::json_dom {
std::vector<LatencySummary> summary_columns(object cols, const std::string& where,
                                            bool all_fields) {
  const std::size_t n = count_of(array_field(cols, "count", where));
  std::vector<LatencySummary> out(n);
  const auto column = [&](const char* key, auto field) {
    const array c = array_field(cols, key, where);
    if (count_of(c) != n) throw JsonError(where + "." + key + ": not one value per run");
    std::size_t i = 0;
    for (element x : c) {
      using T = std::remove_reference_t<decltype(out[i].*field)>;
      const auto v = as<T>(x);
      if (!v) throw JsonError(where + "." + key + ": " + dump(x) + " is not a valid value");
      out[i++].*field = *v;
    }
  };
  if (all_fields) {
    LatencySummary::for_each_field(column);
  } else {
    column("count", &LatencySummary::count);
    column("min", &LatencySummary::min);
    column("mean", &LatencySummary::mean);
    column("max", &LatencySummary::max);
  }
  return out;
}

bool flag(element v, const std::string& where) {
  const auto b = as<bool>(v);
  if (!b) throw JsonError(where + ": expected true or false");
  return *b;
}

std::vector<std::string> quantile_names(element v, const std::string& where) {
  static const std::vector<std::string> known = [] {
    std::vector<std::string> k;
    LatencySummary::for_each_field([&](const char* name, auto) {
      if (name[0] == 'p') k.emplace_back(name);
    });
    return k;
  }();
  auto names = as<std::vector<std::string>>(v);
  if (!names) throw JsonError(where + ": expected a list of quantile names");
  for (const std::string& q : *names) {
    if (std::find(known.begin(), known.end(), q) == known.end()) {
      throw JsonError(where + ": '" + q + "' is not a quantile of a summary");
    }
  }
  return *std::move(names);
}

void finish_summary_only(Metric& m, const std::vector<std::string>& missing, bool runs_read,
                         std::optional<element> runs, const std::string& where) {
  for (const std::string& c : missing) {
    if (c == "count" || c == "min" || c == "mean" || c == "max") {
      throw JsonError(where + ": missing field '" + c + "'");
    }
  }
  if (!runs_read) {
    if (!runs) throw JsonError(where + ": missing");
    m.runs = summary_columns(object_of(*runs, where), where, false);
  }
  for (std::size_t i = 0; i < m.runs.size(); ++i) {
    LatencySummary& r = m.runs[i];
    r.stddev = 0;
    r.p50 = r.p90 = r.p99 = r.p999 = r.p9999 = r.overflow = 0;
    if (r.count == 0) continue;
    // The mean lies in [min, max], up to the rounding of a double.
    if (r.min > r.max || r.mean < static_cast<double>(r.min) * (1 - 1e-9) - 1 ||
        r.mean > static_cast<double>(r.max) * (1 + 1e-9) + 1) {
      throw JsonError(where + "[" + std::to_string(i) + "]: min, mean and max out of order");
    }
  }
  m.summary_only = true;
  m.histogram.reset();
  m.unknown_quantiles.clear();
}

bool read_imported_parts(Metric& m, const ImportedParts& p, simdjson::dom::parser& parser,
                         const std::string& where) {
  // Each piece is parsed when it is read: the parser holds one document at a time.
  const auto parse = [&](std::string_view raw) {
    element e;
    if (parser.parse(raw.data(), raw.size(), false).get(e) != simdjson::SUCCESS) {
      throw JsonError(where + ": not valid JSON");
    }
    return e;
  };
  if (!p.unknown.empty()) {
    m.unknown_quantiles = quantile_names(parse(p.unknown), where + ".unknown_quantiles");
  }
  if (!p.summary_only.empty() && flag(parse(p.summary_only), where + ".summary_only")) {
    const bool in_place = p.runs.empty() && !m.runs.empty();
    finish_summary_only(m, p.missing_columns, in_place,
                        p.runs.empty() ? std::nullopt : std::optional(parse(p.runs)),
                        where + ".runs");
    return true;
  }
  if (!p.missing_columns.empty()) {
    throw JsonError(where + ".runs: missing field '" + p.missing_columns.front() + "'");
  }
  return false;
}

}  // namespace rtgate::json_dom
