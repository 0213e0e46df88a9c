#include "gate/noise/run_values.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "gate/model/format.h"

namespace rtgate::gate {
namespace {

bool kept_per_run(double q) {
  return std::any_of(LatencySummary::kQuantiles.begin(), LatencySummary::kQuantiles.end(),
                     [q](double k) { return std::fabs(k - q) < 1e-12; });
}

double run_value(const LatencySummary& s, const std::string& statistic) {
  if (statistic == "max") return static_cast<double>(s.max);
  const double q = statistic_quantile(statistic);
  for (const auto& [kq, v] : s.quantiles()) {
    if (std::fabs(kq - q) < 1e-12) return static_cast<double>(v);
  }
  return NAN;
}

// A per-run throughput or duration is a count over a timed interval: resolved to about 0.1%.
constexpr double kValueResolution = 1e-3;

}  // namespace

int zero_runs(const Metric& m) {
  // An event rate's 0 is its best value, a latency has no per-run values here.
  if (m.kind == MetricKind::kLatency || m.is_event_rate()) return 0;
  int n = 0;
  for (double v : m.samples) n += !(v > 0 && std::isfinite(v));
  return n;
}

SideValues side_values(const std::vector<const Metric*>& sessions, const std::string& statistic) {
  SideValues out;
  double within = 0;
  int with_values = 0;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    if (sessions[i] == nullptr) continue;
    const SideValues one = side_values(*sessions[i], statistic);
    if (one.values.empty()) continue;
    out.values.insert(out.values.end(), one.values.begin(), one.values.end());
    out.session.insert(out.session.end(), one.values.size(), static_cast<int>(i));
    within += one.within_var;
    ++with_values;
  }
  out.within_var = with_values > 0 ? within / with_values : 0;
  return out;
}

SideCounts side_counts(const std::vector<const Metric*>& sessions) {
  SideCounts out;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    if (sessions[i] == nullptr) continue;
    for (double v : sessions[i]->samples) {
      out.values.push_back(v);
      out.session.push_back(static_cast<int>(i));
    }
  }
  return out;
}

double statistic_quantile(const std::string& statistic) {
  // The names once: the gate asks this for every metric and statistic of a selection.
  static const auto names = [] {
    std::array<std::string, LatencySummary::kQuantiles.size()> n;
    for (std::size_t i = 0; i < n.size(); ++i) {
      n[i] = fmt::quantile_name(LatencySummary::kQuantiles[i]);
    }
    return n;
  }();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == statistic) return LatencySummary::kQuantiles[i];
  }
  return NAN;
}

std::string statistic_label(const std::string& statistic) {
  const double q = statistic_quantile(statistic);
  if (std::isnan(q)) return statistic;
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%.6g", q * 100);
  return buf;
}

std::string statistic_unknown(const Metric& m, const std::string& statistic) {
  const double q = statistic_quantile(statistic);
  if (m.kind != MetricKind::kLatency || std::isnan(q)) return "";
  if (m.summary_only) return "has count, min, mean and max only (no histogram)";
  const auto& u = m.unknown_quantiles;
  if (std::find(u.begin(), u.end(), statistic) != u.end()) {
    return "does not know it in some run (it lay beyond the range of the histogram it was "
           "imported from)";
  }
  return "";
}

std::vector<std::string> run_statistics(const Metric& m, const MetricPolicy& mp) {
  std::vector<std::string> out;
  for (std::string& s : policy_statistics(m.kind, mp)) {
    if (statistic_unknown(m, s).empty()) out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> policy_statistics(MetricKind kind, const MetricPolicy& mp) {
  std::vector<std::string> out;
  if (kind == MetricKind::kLatency) {
    std::vector<double> qs = mp.quantiles;
    std::sort(qs.begin(), qs.end());
    for (double q : qs) {
      if (kept_per_run(q)) out.push_back(fmt::quantile_name(q));
    }
    if (mp.judge_max) out.push_back("max");
  } else if (kind == MetricKind::kThroughput || kind == MetricKind::kDuration ||
             kind == MetricKind::kCount) {
    out.push_back("value");
  }
  return out;
}

SideValues side_values(const Metric& m, const std::string& statistic) {
  SideValues out;
  if (statistic == "value") {
    for (double v : m.samples) {
      if (v > 0 && std::isfinite(v)) out.values.push_back(std::log(v));
    }
    out.within_var = kValueResolution * kValueResolution;
    return out;
  }
  double samples = 0;
  for (const LatencySummary& r : m.runs) {
    const double v = run_value(r, statistic);
    if (r.count == 0 || !(v > 0)) continue;
    out.values.push_back(std::log(v));
    samples += static_cast<double>(r.count);
  }
  out.within_var = quantisation_log_var();
  const double q = statistic_quantile(statistic);
  if (!std::isnan(q) && m.histogram && !out.values.empty()) {
    const double per_run = samples / static_cast<double>(out.values.size());
    out.within_var += within_run_log_var(*m.histogram, q, per_run);
  }
  return out;
}

}  // namespace rtgate::gate
