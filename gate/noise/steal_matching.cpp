#include "gate/noise/steal_matching.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace rtgate::gate {
namespace {

// Two runs' steal shares within this of each other are the same steal: 0.2% of the run, plus
// one tick per run where steal is only known in /proc/stat's 10 ms ticks.
double tolerance(const SuiteResult& s) {
  const double run_ms = s.runs > 0 ? s.duration_s * 1000 / s.runs : 0;
  const bool ticks =
      s.hygiene.steal_source.rfind("/proc/stat", 0) == 0 || s.hygiene.steal_source.empty();
  return 0.002 + (ticks && run_ms > 0 ? 10 / run_ms : 0);
}

int case_cpu(const Case& c) {
  const auto it = c.labels.find("cpu");
  if (it == c.labels.end()) return -1;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return -1;
  }
}

std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * share);
  return buf;
}

std::string range(const std::vector<double>& v) {
  if (v.empty()) return "none";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo == *hi ? pct(*lo) : pct(*lo) + "-" + pct(*hi);
}

template <class T>
void erase_runs(std::vector<T>& v, const std::vector<bool>& drop) {
  if (v.size() != drop.size()) return;  // not one entry per run (per-block maxima)
  std::vector<T> kept;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(v[i]));
  }
  v = std::move(kept);
}

// The share at or under which a side keeps its runs: `limit`, or its second least-stolen run's
// share when fewer than two would be left.
double keep_limit(std::vector<double> shares, double limit) {
  std::sort(shares.begin(), shares.end());
  return shares.size() < 2 ? std::max(limit, shares.empty() ? limit : shares[0])
                           : std::max(limit, shares[1]);
}

double kept_max(const std::vector<double>& shares, double limit) {
  double out = 0;
  for (const double s : shares) {
    if (s <= limit) out = std::max(out, s);
  }
  return out;
}

// Sets aside the runs of `c` whose share is over `limit`; returns how many remain.
std::size_t set_aside(Case& c, const std::vector<double>& shares, double limit) {
  std::vector<bool> drop(shares.size());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    drop[i] = shares[i] > limit;
    kept += drop[i] ? 0 : 1;
  }
  for (Metric& m : c.metrics) {
    erase_runs(m.runs, drop);
    erase_runs(m.samples, drop);
  }
  return kept;
}

Case* find_case(SuiteResult* s, const std::string& name) {
  if (s == nullptr) return nullptr;
  for (Case& c : s->cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

SuiteResult* find_suite(RunReport& r, const std::string& name) {
  for (SuiteResult& s : r.suites) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace

std::vector<double> run_steal_shares(const SuiteResult& s, int cpu) {
  std::vector<double> out;
  if (s.runs <= 0 || s.duration_s <= 0) return out;
  const double run_ms = s.duration_s * 1000 / s.runs;
  const auto share = [&](const std::map<int, double>& per_cpu, double scale) {
    if (cpu >= 0) {
      const auto it = per_cpu.find(cpu);
      return it == per_cpu.end() ? 0.0 : it->second * scale / run_ms;
    }
    double sum = 0;
    for (const auto& [c, ms] : per_cpu) sum += ms;
    return per_cpu.empty() ? 0.0 : sum * scale / run_ms / static_cast<double>(per_cpu.size());
  };
  const auto& per_run = s.hygiene.steal_ms_per_run;
  for (int i = 0; i < s.runs; ++i) {
    out.push_back(static_cast<int>(per_run.size()) == s.runs
                      ? share(per_run[static_cast<std::size_t>(i)], 1.0)
                      : share(s.hygiene.steal_ms_per_cpu, 1.0 / s.runs));
  }
  return out;
}

StealMatched match_steal(const std::vector<const RunReport*>& base, const RunReport& cur,
                         double max_steal_pct) {
  StealMatched m;
  const double floor = max_steal_pct / 100;
  const auto over_floor = [&](const SuiteResult& s) {
    for (const double share : run_steal_shares(s, -1)) {
      if (share > floor) return true;
    }
    for (const auto& [cpu, ms] : s.hygiene.steal_ms_per_cpu) {
      if (s.duration_s > 0 && ms / (s.duration_s * 1000) > floor) return true;
    }
    return false;
  };
  bool any = false;
  for (const RunReport* r : base) {
    for (const SuiteResult& s : r->suites) any = any || over_floor(s);
  }
  for (const SuiteResult& s : cur.suites) any = any || over_floor(s);
  if (!any) return m;  // nothing to weigh: no copies
  m.applied = true;
  for (const RunReport* b : base) m.base.push_back(*b);
  m.cur = cur;
  for (SuiteResult& cs : m.cur.suites) {
    std::vector<SuiteResult*> bsuites;
    for (RunReport& b : m.base) {
      if (SuiteResult* s = find_suite(b, cs.name)) bsuites.push_back(s);
    }
    if (bsuites.empty()) continue;
    for (Case& cc : cs.cases) {
      const int cpu = case_cpu(cc);
      const std::vector<double> cur_shares = run_steal_shares(cs, cpu);
      std::vector<std::vector<double>> base_shares;
      std::vector<double> all_base;
      for (SuiteResult* bs : bsuites) {
        base_shares.push_back(run_steal_shares(*bs, cpu));
        all_base.insert(all_base.end(), base_shares.back().begin(), base_shares.back().end());
      }
      if (cur_shares.empty() || all_base.empty()) continue;
      const double cur_max = *std::max_element(cur_shares.begin(), cur_shares.end());
      const double base_max = *std::max_element(all_base.begin(), all_base.end());
      if (std::max(cur_max, base_max) <= floor) continue;
      const double tol = tolerance(cs);
      const double limit = std::max(floor, std::min(cur_max, base_max) + tol);
      const double cur_limit = keep_limit(cur_shares, limit);
      const double base_limit = keep_limit(all_base, limit);
      const std::size_t cur_kept = set_aside(cc, cur_shares, cur_limit);
      std::size_t base_kept = 0;
      for (std::size_t i = 0; i < bsuites.size(); ++i) {
        if (Case* bc = find_case(bsuites[i], cc.name)) {
          base_kept += set_aside(*bc, base_shares[i], base_limit);
        }
      }
      const std::size_t cur_aside = cur_shares.size() - cur_kept;
      const std::size_t base_aside = all_base.size() - base_kept;
      const std::string where = cpu >= 0 ? "CPU " + std::to_string(cpu) : "its CPUs";
      const std::string steal = "host steal of " + where + ": baseline runs " + range(all_base) +
                                ", current runs " + range(cur_shares);
      if (cur_aside + base_aside > 0) {
        m.notes[cs.name].push_back(
            cc.name + ": " + steal + "; set aside the runs over the other side's most-stolen (" +
            std::to_string(cur_aside) + " current, " + std::to_string(base_aside) + " baseline)");
      }
      const double cur_top = kept_max(cur_shares, cur_limit);
      const double base_top = kept_max(all_base, base_limit);
      // Beyond every run of the other side, set aside or not: what matching could not remove.
      StealExcess e{.current = std::max(0.0, cur_top - base_max - tol),
                    .baseline = std::max(0.0, base_top - cur_max - tol),
                    .run_ms = cs.duration_s * 1000 / std::max(1, cs.runs),
                    .period_ms = 0,
                    .steal = steal};
      if (const auto p = cc.labels.find("period_us"); p != cc.labels.end()) {
        e.period_ms = std::atof(p->second.c_str()) / 1000;
      }
      if (e.current > 0 || e.baseline > 0) m.excess[{cs.name, cc.name}] = std::move(e);
    }
  }
  return m;
}

}  // namespace rtgate::gate
