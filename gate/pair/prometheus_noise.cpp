#include "gate/pair/prometheus_noise.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/text/rfc3339.h"

namespace rtgate::gate {
namespace {

// What a history series' value parts are as a session point; a part the session lacks is none.
SessionPoint point_of(const std::array<double, kPointParts>& v) {
  const auto or_0 = [](double x) { return std::isfinite(x) ? x : 0.0; };
  return {.mean = v[kPoint],
          .mean_var = or_0(v[kPointVariance]),
          .spread_ss = or_0(v[kSpread]),
          .spread_df = or_0(v[kSpreadDf])};
}

double finished_of(const RunReport& r) { return text::unix_seconds(r.finished_at).value_or(0); }

// A file's boot as Prometheus names it, so that a file and the history's sessions of its boot
// group together.
std::string boot_as_prometheus(const RunReport& r) {
  const std::optional<double> key = boot_number(r.environment.boot_id);
  return key ? prometheus_boot(r.environment.hostname, *key) : boot_of(r);
}

}  // namespace

void PrometheusNoise::expect(const Policy& policy, const RunReport& base) {
  NoiseModel::Points own;
  add_session_points(base, 0, policy, own);
  for (const auto& [key, points] : own) wanted_.insert(key);
  host_ = base.environment.hostname;
}

void PrometheusNoise::take(const PrometheusSession& s, const PrometheusSeriesSet& set) {
  for (std::size_t i = key_of_.size(); i < set.keys.size(); ++i) {
    const SuiteResult& suite = set.suites[i];
    const NoiseModel::Key key{suite.name, suite.cases[0].name, suite.cases[0].metrics[0].name,
                              set.statistics[i]};
    key_of_.push_back(wanted_.contains(key) ? static_cast<int>(keys_.size()) : -1);
    if (key_of_.back() >= 0) keys_.push_back(key);
  }
  if (s.host != host_) {
    ++other_hosts_;
    return;
  }
  Session& out = sessions_.emplace_back(Session{.host = s.host, .boot = s.boot, .finished = s.ts});
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    if (key_of_[i] >= 0 && std::isfinite(s.values[i][kPoint])) {
      out.points.emplace_back(key_of_[i], point_of(s.values[i]));
    }
  }
}

std::string PrometheusNoise::read(const PrometheusSource& src, const Policy& policy,
                                  const RunReport& base) {
  expect(policy, base);
  int n = 0;
  return read_prometheus_sessions(
      src, policy, true,
      [this](const PrometheusSession& s, const PrometheusSeriesSet& set) {
        take(s, set);
        return std::string();
      },
      &n);
}

NoiseModel PrometheusNoise::model(const std::vector<const RunReport*>& baselines,
                                  const RunReport& cur, const Policy& policy) const {
  struct Entry {
    double finished;
    std::string boot;
    const RunReport* file;
    const Session* history;
  };
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const RunReport* r : baselines) {
    if (seen.insert(session_id(*r)).second) {
      entries.push_back({finished_of(*r), boot_as_prometheus(*r), r, nullptr});
    }
  }
  // The files' hosts and finish times, parsed once: each history session is matched to them.
  std::vector<std::pair<std::string, double>> files;
  for (const RunReport* r : baselines) files.emplace_back(r->environment.hostname, finished_of(*r));
  files.emplace_back(cur.environment.hostname, finished_of(cur));
  for (const Session& s : sessions_) {
    const bool a_file = std::any_of(files.begin(), files.end(), [&](const auto& f) {
      return f.first == s.host && std::abs(f.second - s.finished) < 0.0015;
    });
    if (!a_file) {
      entries.push_back({s.finished, s.boot, nullptr, &s});
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.finished < b.finished; });
  std::map<std::string, int> boots;  // boot -> its session, in order of first appearance
  for (const Entry& e : entries) boots.emplace(e.boot, static_cast<int>(boots.size()));
  const bool by_boot = boots.size() > 1;
  NoiseModel::Points grouped;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const int group = by_boot ? boots.at(entries[i].boot) : static_cast<int>(i);
    if (entries[i].file != nullptr) {
      add_session_points(*entries[i].file, group, policy, grouped);
      continue;
    }
    for (const auto& [k, p] : entries[i].history->points) {
      grouped[keys_[static_cast<std::size_t>(k)]][group].push_back(p);
    }
  }
  return NoiseModel::from_points(
      grouped, by_boot ? static_cast<int>(boots.size()) : static_cast<int>(entries.size()),
      !by_boot && entries.size() > 1);
}

std::string PrometheusNoise::describe() const {
  const auto all = sessions_.size() + static_cast<std::size_t>(other_hosts_);
  return " (--prometheus: " + std::to_string(sessions_.size()) + " of " + std::to_string(all) +
         " sessions on the baseline's host)";
}

}  // namespace rtgate::gate
