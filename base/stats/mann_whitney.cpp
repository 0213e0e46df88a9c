#include "base/stats/mann_whitney.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rtgate::stats {
namespace {

// counts[u] = number of orderings of m x's and n y's whose U is u. The largest of the m + n
// values is either an x, which beats all n y's (c(m-1, n, u-n)), or a y, which beats nothing
// (c(m, n-1, u)). rows[j] holds c(i, j, .) for the row i being built.
std::vector<double> compute_exact_counts(std::size_t m, std::size_t n) {
  std::vector<std::vector<double>> rows(n + 1, std::vector<double>{1.0});
  for (std::size_t i = 1; i <= m; ++i) {
    for (std::size_t j = 1; j <= n; ++j) {
      std::vector<double> next(i * j + 1, 0.0);
      const std::vector<double>& x_last = rows[j];      // c(i-1, j, .), still the old row
      const std::vector<double>& y_last = rows[j - 1];  // c(i, j-1, .), already the new row
      for (std::size_t u = 0; u < x_last.size(); ++u) next[u + j] += x_last[u];
      for (std::size_t u = 0; u < y_last.size(); ++u) next[u] += y_last[u];
      rows[j] = std::move(next);
    }
  }
  return rows[n];
}

// The table depends on (m, n) only, and a gate asks for the same few sizes over and over (every
// metric of every look of --until-decided, every trial of the calibration): each is computed
// once per process. Sizes are below kMannWhitneyExactLimit, so the cache stays small.
const std::vector<double>& exact_counts(std::size_t m, std::size_t n) {
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<std::vector<double>>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{m, n}];
  if (!slot) slot = std::make_unique<std::vector<double>>(compute_exact_counts(m, n));
  return *slot;
}

// P(U <= u) and P(U >= u), each summed over its own tail so a tiny tail keeps its precision.
struct Tails {
  double lower, upper;
};
Tails exact_tails(const std::vector<double>& counts, double u) {
  double below = 0, above = 0, total = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const double dk = static_cast<double>(k);
    total += counts[k];
    if (dk <= u) below += counts[k];
    if (dk >= u) above += counts[k];
  }
  return {std::min(1.0, below / total), std::min(1.0, above / total)};
}

}  // namespace

double mann_whitney_exact_cdf(std::size_t m, std::size_t n, double u) {
  return exact_tails(exact_counts(m, n), std::floor(u)).lower;
}

namespace {

// x's midrank sum over the pooled sample, and the tie groups' variance correction.
struct Ranks {
  double rank_sum_x = 0;
  double tie_term = 0;  // sum of t^3 - t over tie groups of size t
  bool ties = false;
};

Ranks midranks(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> pooled;  // value, from x
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Ranks r;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) r.rank_sum_x += midrank;
    }
    if (t > 1) {
      r.ties = true;
      r.tie_term += t * t * t - t;
    }
    i = j;
  }
  return r;
}

double one_or_two_sided(Alternative alternative, double below, double above) {
  switch (alternative) {
    case Alternative::kLess:
      return below;
    case Alternative::kGreater:
      return above;
    case Alternative::kTwoSided:
      break;
  }
  return std::min(1.0, 2 * std::min(below, above));
}

// The normal approximation with the tie correction and a continuity correction.
void normal_approximation(double dx, double dy, double tie_term, Alternative alternative,
                          MannWhitneyResult& r) {
  const double n = dx + dy;
  const double sigma = std::sqrt(dx * dy / 12 * ((n + 1) - tie_term / (n * (n - 1))));
  const double centred = r.u - dx * dy / 2;
  if (!(sigma > 0)) {
    r.p_value = 1.0;
    return;
  }
  double correction = 0.5;
  if (alternative == Alternative::kLess) correction = -0.5;
  if (alternative == Alternative::kTwoSided)
    correction = centred > 0 ? 0.5 : centred < 0 ? -0.5 : 0;
  r.z = (centred - correction) / sigma;
  const boost::math::normal normal;
  r.p_value = one_or_two_sided(alternative, boost::math::cdf(normal, r.z),
                               boost::math::cdf(boost::math::complement(normal, r.z)));
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 Alternative alternative, MannWhitneyMethod method) {
  MannWhitneyResult r;
  if (x.empty() || y.empty()) return r;
  const std::size_t nx = x.size(), ny = y.size();
  const Ranks ranks = midranks(x, y);
  const double dx = static_cast<double>(nx), dy = static_cast<double>(ny);
  r.u = ranks.rank_sum_x - dx * (dx + 1) / 2;
  r.effect = r.u / (dx * dy);

  bool exact = method == MannWhitneyMethod::kExact;
  if (method == MannWhitneyMethod::kAuto) {
    exact = !ranks.ties && nx < kMannWhitneyExactLimit && ny < kMannWhitneyExactLimit;
  }
  if (!exact) {
    normal_approximation(dx, dy, ranks.tie_term, alternative, r);
    return r;
  }
  if (ranks.ties) throw std::invalid_argument("mann_whitney_u: the exact test needs untied values");
  const auto [lower, upper] = exact_tails(exact_counts(nx, ny), r.u);
  r.exact = true;
  // Two-sided exact: twice the tail on U's side of its mean.
  r.p_value = alternative == Alternative::kTwoSided
                  ? std::min(1.0, 2 * (r.u > dx * dy / 2 ? upper : lower))
                  : one_or_two_sided(alternative, lower, upper);
  return r;
}

}  // namespace rtgate::stats
