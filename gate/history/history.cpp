#include "gate/history/history.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "gate/cause/cause_compare.h"
#include "gate/noise/comparability.h"
#include "gate/noise/run_values.h"
#include "gate/noise/session_noise.h"

namespace rtgate::gate {
namespace {

// Why `r` measured something else than `ref`: history_mismatch in both directions (a suite
// either lacks), "" when it did not.
std::string selection_mismatch(const RunReport& r, const RunReport& ref) {
  if (r.environment.hostname != ref.environment.hostname) {
    return "host " + r.environment.hostname + " (not " + ref.environment.hostname + ")";
  }
  for (const SuiteResult& s : r.suites) {
    if (ref.find(s.name) == nullptr) return "suite " + s.name;
  }
  for (const SuiteResult& s : ref.suites) {
    if (r.find(s.name) == nullptr) return "no suite " + s.name;
  }
  std::string why = history_mismatch(r, ref);
  return why == "the current session itself" ? "" : why;
}

RunReport skeleton(const RunReport& r) {
  RunReport out;
  out.schema = r.schema;
  out.tool_version = r.tool_version;
  out.started_at = r.started_at;
  out.options = r.options;
  out.environment = r.environment;
  for (const SuiteResult& s : r.suites) {
    SuiteResult copy;
    copy.name = s.name;
    copy.params = s.params;
    copy.loads = s.loads;
    copy.status = s.status;
    copy.imported = s.imported;  // who measured it is part of what it measured
    out.suites.push_back(std::move(copy));
  }
  return out;
}

std::string stored_as(const std::string& source) {
  for (const char* outcome : {"inconclusive", "regressed"}) {
    for (const char* ext : {".json", ".json.gz"}) {
      const std::string tail = std::string(".") + outcome + ext;
      if (source.size() >= tail.size() &&
          source.compare(source.size() - tail.size(), tail.size(), tail) == 0) {
        return outcome;
      }
    }
  }
  return "";
}

// The series' points re-indexed by `into` (old session -> merged session), the points of one
// merged session averaged.
void merge_points(HistorySeries& series, const std::vector<int>& into) {
  std::map<int, std::pair<double, int>> sums;
  for (std::size_t i = 0; i < series.sessions.size(); ++i) {
    auto& [sum, n] = sums[into[static_cast<std::size_t>(series.sessions[i])]];
    sum += series.values[i];
    ++n;
  }
  series.sessions.clear();
  series.values.clear();
  for (const auto& [session, sn] : sums) {
    series.sessions.push_back(session);
    series.values.push_back(sn.first / sn.second);
  }
}

}  // namespace

std::string HistoryBuilder::add(const RunReport& r, const std::string& source) {
  if (!reference_) {
    reference_ = skeleton(r);
    reference_source_ = source;
  }
  return add(reduce(r, source));
}

std::vector<std::string> history_statistics(const Metric& m, const MetricPolicy& mp) {
  if (m.is_event_rate()) return {"rate"};
  return run_statistics(m, mp);
}

SessionValues HistoryBuilder::reduce(const RunReport& r, const std::string& source) const {
  SessionValues out;
  if (reference_) {
    out.mismatch = selection_mismatch(r, *reference_);
    if (!out.mismatch.empty()) return out;
  }
  out.session = {.id = session_id(r),
                 .boot = boot_of(r),
                 .started_at = r.started_at,
                 .kernel = r.environment.kernel_release,
                 .host = r.environment.hostname,
                 .source = source,
                 .stored_as = stored_as(source)};
  for (const SuiteResult& s : r.suites) {
    out.session.contaminated = out.session.contaminated || s.contaminated;
    if (s.status == SuiteStatus::kSkipped) continue;
    for (const Case& c : s.cases) {
      if (c.causes) {
        out.profiles.push_back({.suite = s.name,
                                .case_name = c.name,
                                .profile = *c.causes,
                                .measured = measured_samples(c)});
      }
      for (const Metric& m : c.metrics) {
        const MetricPolicy mp = resolve(policy_, s.name, c.name, m.name, m.gated_by_default());
        if (!mp.gated) continue;
        for (const std::string& st : history_statistics(m, mp)) {
          const SessionPoint p = session_point(m, st);
          if (!std::isfinite(p.mean)) continue;
          std::string key = s.name;
          for (const std::string* part : {&c.name, &m.name, &st}) key += '\x1f' + *part;
          out.values.push_back({.key = std::move(key),
                                .suite = &s,
                                .case_ = &c,
                                .metric = &m,
                                .statistic = st,
                                .value = p.mean,
                                .within_var = p.mean_var});
        }
      }
    }
  }
  return out;
}

std::string HistoryBuilder::add(SessionValues v) {
  if (!v.mismatch.empty()) return v.mismatch;
  if (session_index_.contains(v.session.id)) {
    ++history_.duplicates;
    return "";
  }
  const int index = static_cast<int>(history_.sessions.size());
  session_index_.emplace(v.session.id, index);
  for (std::size_t i = 0; i < v.values.size(); ++i) {
    SessionValues::Value& e = v.values[i];
    int at = static_cast<int>(i);
    if (i >= series_keys_.size() || series_keys_[i] != e.key) {
      const auto [it, added] =
          series_index_.emplace(e.key, static_cast<int>(history_.series.size()));
      at = it->second;
      if (added) {
        series_keys_.push_back(e.key);
        history_.series.push_back({.suite = e.suite->name,
                                   .case_name = e.case_->name,
                                   .metric = e.metric->name,
                                   .statistic = e.statistic,
                                   .kind = e.metric->kind,
                                   .better = e.metric->better,
                                   .unit = e.metric->unit});
      }
    }
    HistorySeries& series = history_.series[static_cast<std::size_t>(at)];
    series.sessions.push_back(index);
    series.values.push_back(e.value);
    series.within_var += e.within_var;  // a sum until finish()
  }
  for (HistoryProfile& p : v.profiles) {
    p.session = index;
    history_.profiles.push_back(std::move(p));
  }
  history_.sessions.push_back(std::move(v.session));
  return "";
}

void HistoryBuilder::merge_boots() {
  // The earliest session of each boot keeps it; the others fold into it.
  std::map<std::string, int> first;
  std::vector<int> into(history_.sessions.size());
  for (std::size_t i = 0; i < history_.sessions.size(); ++i) {
    const HistorySession& s = history_.sessions[i];
    auto [it, added] = first.emplace(s.boot, static_cast<int>(i));
    if (!added &&
        s.started_at < history_.sessions[static_cast<std::size_t>(it->second)].started_at) {
      it->second = static_cast<int>(i);
    }
  }
  history_.one_boot = first.size() == 1 && history_.sessions.size() > 1;
  if (first.size() == history_.sessions.size() || history_.one_boot) return;
  std::vector<int> kept_index(history_.sessions.size(), -1);
  std::vector<HistorySession> kept;
  for (std::size_t i = 0; i < history_.sessions.size(); ++i) {
    if (first.at(history_.sessions[i].boot) != static_cast<int>(i)) continue;
    kept_index[i] = static_cast<int>(kept.size());
    kept.push_back(history_.sessions[i]);
    kept.back().id = history_.sessions[i].boot;
  }
  for (std::size_t i = 0; i < history_.sessions.size(); ++i) {
    into[i] = kept_index[static_cast<std::size_t>(first.at(history_.sessions[i].boot))];
    if (kept_index[i] < 0) {
      HistorySession& to = kept[static_cast<std::size_t>(into[i])];
      to.results += 1;
      to.merged_sources.push_back(history_.sessions[i].source);
      ++history_.merged_in_boot;
    }
  }
  for (HistorySeries& series : history_.series) merge_points(series, into);
  for (HistoryProfile& p : history_.profiles) p.session = into[static_cast<std::size_t>(p.session)];
  history_.sessions = std::move(kept);
}

History HistoryBuilder::finish() {
  merge_boots();
  std::vector<int> order(history_.sessions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return history_.sessions[static_cast<std::size_t>(a)].started_at <
           history_.sessions[static_cast<std::size_t>(b)].started_at;
  });
  std::vector<int> rank(order.size());
  History out;
  out.duplicates = history_.duplicates;
  out.merged_in_boot = history_.merged_in_boot;
  out.one_boot = history_.one_boot;
  for (std::size_t i = 0; i < order.size(); ++i) {
    rank[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    out.sessions.push_back(std::move(history_.sessions[static_cast<std::size_t>(order[i])]));
  }
  for (HistorySeries& s : history_.series) {
    std::vector<std::pair<int, double>> points;
    for (std::size_t i = 0; i < s.sessions.size(); ++i) {
      points.emplace_back(rank[static_cast<std::size_t>(s.sessions[i])], s.values[i]);
    }
    std::sort(points.begin(), points.end());
    s.within_var /= std::max<double>(1, static_cast<double>(s.values.size()));
    s.sessions.clear();
    s.values.clear();
    for (const auto& [session, value] : points) {
      s.sessions.push_back(session);
      s.values.push_back(value);
    }
    out.series.push_back(std::move(s));
  }
  for (HistoryProfile& p : history_.profiles) p.session = rank[static_cast<std::size_t>(p.session)];
  std::stable_sort(
      history_.profiles.begin(), history_.profiles.end(),
      [](const HistoryProfile& a, const HistoryProfile& b) { return a.session < b.session; });
  out.profiles = std::move(history_.profiles);
  history_ = {};
  session_index_.clear();
  series_index_.clear();
  series_keys_.clear();
  return out;
}

}  // namespace rtgate::gate
