#include "gate/cause/lock_compare.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <regex>

#include "base/stats/holm.h"
#include "gate/noise/count_estimate.h"

namespace rtgate::gate {
namespace {

struct Side {
  std::vector<double> per_run;
  double wait_ns = 0;
};

// Per lock class: the waits of each run (summed over the entries of the class) and the time.
std::map<std::string, Side> by_class(const trace::LockContention& c) {
  std::map<std::string, Side> out;
  const auto runs = static_cast<std::size_t>(std::max(1, c.runs));
  for (const trace::LockWait& w : c.locks) {
    Side& s = out[lock_class(w)];
    s.per_run.resize(runs, 0);
    if (w.per_run.size() == runs) {
      for (std::size_t i = 0; i < runs; ++i) s.per_run[i] += static_cast<double>(w.per_run[i]);
    } else {
      // A result without per-run counts: the total spread evenly (no dispersion to learn).
      for (double& x : s.per_run)
        x += static_cast<double>(w.wait.count) / static_cast<double>(runs);
    }
    s.wait_ns += static_cast<double>(w.wait.total_ns);
  }
  return out;
}

double sum(const std::vector<double>& xs) { return std::accumulate(xs.begin(), xs.end(), 0.0); }

// What the baseline can have had of a lock that is not in its table: nothing when the table
// holds every contended lock, else at most the waits beyond the table and at most the smallest
// time waited in it (the table keeps the largest).
Side absent(const trace::LockContention& base, std::size_t runs) {
  Side s{std::vector<double>(runs, 0), 0};
  if (base.other_waits == 0) return s;
  for (double& x : s.per_run) x = static_cast<double>(base.other_waits) / static_cast<double>(runs);
  // The table is kept largest total wait first: its last entry waited least.
  if (!base.locks.empty()) s.wait_ns = static_cast<double>(base.locks.back().wait.total_ns);
  return s;
}

}  // namespace

std::string lock_class(const trace::LockWait& w) {
  static const std::regex kOffset(R"(\+0x[0-9a-f]+(/0x[0-9a-f]+)?)");
  const std::string lock = w.lock.rfind("0x", 0) == 0 ? w.kind + " lock" : w.lock + " " + w.kind;
  const std::string caller = std::regex_replace(w.caller, kOffset, "");
  return caller.empty() ? lock : lock + " from " + caller;
}

std::vector<LockChange> compare_locks(const trace::LockContention& base,
                                      const trace::LockContention& cur, double alpha) {
  std::vector<LockChange> out;
  if (!base.traced || !cur.traced) return out;
  const std::map<std::string, Side> b = by_class(base), c = by_class(cur);
  const double runs_b = std::max(1, base.runs), runs_c = std::max(1, cur.runs);
  std::vector<LockChange> all;
  std::vector<double> p;
  for (const auto& [name, sc] : c) {
    const auto it = b.find(name);
    const Side sb = it == b.end() ? absent(base, static_cast<std::size_t>(runs_b)) : it->second;
    const CountEstimate e = estimate_counts({.values = sb.per_run}, {.values = sc.per_run});
    all.push_back({.lock = name,
                   .is_new = it == b.end(),
                   .waits_base = sum(sb.per_run) / runs_b,
                   .waits_cur = sum(sc.per_run) / runs_c,
                   .wait_ms_base = sb.wait_ns / 1e6 / runs_b,
                   .wait_ms_cur = sc.wait_ns / 1e6 / runs_c,
                   .phi = e.phi,
                   .p = e.p_up});
    p.push_back(e.ok() ? e.p_up : 1.0);
  }
  const std::vector<bool> up = stats::holm_reject(p, alpha);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const LockChange& l = all[i];
    if (up[i] && l.waits_cur >= kMinLockGrowth * l.waits_base && l.wait_ms_cur > l.wait_ms_base) {
      out.push_back(l);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LockChange& x, const LockChange& y) {
    return x.wait_ms_cur - x.wait_ms_base > y.wait_ms_cur - y.wait_ms_base;
  });
  return out;
}

}  // namespace rtgate::gate
