#include "gate/noise/variance_priors.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <cmath>

#include "base/stats/summary.h"

namespace rtgate::gate {
namespace {

// Per-side centred values, baseline then current: the residuals of the two-group mean model.
std::vector<double> residuals(const GroupMember& m) {
  std::vector<double> out;
  for (const SideValues* side : {&m.base, &m.cur}) {
    double mean = 0;
    for (double v : side->values) mean += v;
    mean /= static_cast<double>(std::max<std::size_t>(1, side->values.size()));
    for (double v : side->values) out.push_back(v - mean);
  }
  return out;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Mean squared correlation between members' residuals beyond chance; 1 (fully dependent) when
// the members' runs do not line up, which caps the prior at one member's information.
//
// The sum over pairs of r_ij^2 = (u_i . u_j)^2 (u the unit residual vectors) is taken without
// visiting the pairs: sum_{i<j} (u_i . u_j)^2 = (||sum_i u_i u_i^T||_F^2 - sum_i ||u_i||^4) / 2.
// That is O(G n^2) for G members of n residuals instead of O(G^2 n), which matters for a
// lock.latency group of thousands of locks.
}  // namespace

double excess_r2(const std::vector<std::vector<double>>& res, double residual_df) {
  const std::size_t g = res.size();
  if (g < 2) return 1;
  const std::size_t n = res.front().size();
  for (const auto& r : res) {
    if (r.size() != n) return 1;
  }
  std::vector<double> scatter(n * n, 0.0);  // sum of u u^T over members with a non-zero residual
  double self = 0;                          // sum of ||u||^4: 1 per such member
  for (const auto& r : res) {
    const double norm2 = dot(r, r);
    if (!(norm2 > 0)) continue;  // a zero residual correlates with nothing (r = 0)
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) scatter[a * n + b] += r[a] * r[b] / norm2;
    }
    self += 1;
  }
  const double sum = (dot(scatter, scatter) - self) / 2;
  const double pairs = static_cast<double>(g) * static_cast<double>(g - 1) / 2;
  return std::clamp(sum / pairs - 1 / residual_df, 0.0, 1.0);
}

stats::VariancePrior fit_group_prior(const std::vector<GroupMember>& members) {
  std::vector<stats::VarianceEstimate> estimates;
  std::vector<std::vector<double>> res;
  for (const GroupMember& m : members) {
    const std::vector<double> r = residuals(m);
    const double df = static_cast<double>(r.size()) - 2;
    if (m.base.values.size() < 2 || m.cur.values.size() < 2 || df < 1) continue;
    estimates.push_back({dot(r, r) / df, df});
    res.push_back(r);
  }
  if (estimates.size() < kMinGroup) return {};
  stats::VariancePrior prior = stats::fit_prior(estimates);
  if (!prior.usable()) return prior;
  // The cap is per side: the prior moderates each side's variance, of n - 1 df.
  std::vector<double> dfs;
  for (const GroupMember& m : members) {
    if (m.base.values.size() < 2 || m.cur.values.size() < 2) continue;
    dfs.push_back(static_cast<double>(std::min(m.base.values.size(), m.cur.values.size()) - 1));
  }
  std::nth_element(dfs.begin(), dfs.begin() + static_cast<std::ptrdiff_t>(dfs.size() / 2),
                   dfs.end());
  const double df = dfs[dfs.size() / 2];
  const double g = static_cast<double>(estimates.size());
  const double g_eff = g / (1 + (g - 1) * excess_r2(res, estimates.front().df));
  const double cap = df * std::min(g_eff, kMaxBorrow);
  if (prior.d0 > cap) {
    // The same location estimate, re-expressed for the smaller df (fit_prior's moment relation).
    double mean = 0;
    for (const auto& e : estimates) {
      mean += std::log(e.var) - boost::math::digamma(e.df / 2) + std::log(e.df / 2);
    }
    mean /= g;
    prior.d0 = cap;
    prior.s0_sq = std::exp(mean + boost::math::digamma(cap / 2) - std::log(cap / 2));
  }
  return prior;
}

void VariancePriors::fit() {
  for (const auto& [key, members] : groups_) priors_[key] = fit_group_prior(members);
}

bool outlier_above(const SideValues& side, const stats::VariancePrior& prior) {
  const std::size_t n = side.values.size();
  if (n < 2 || !prior.usable()) return false;
  const double df = static_cast<double>(n - 1);
  const double sd = stats::stddev(side.values);
  const double ratio = sd * sd / prior.s0_sq;
  if (std::isinf(prior.d0)) {
    return ratio * df > boost::math::quantile(boost::math::complement(
                            boost::math::chi_squared_distribution<double>(df), 0.01));
  }
  return ratio > boost::math::quantile(boost::math::complement(
                     boost::math::fisher_f_distribution<double>(df, prior.d0), 0.01));
}

stats::VariancePrior VariancePriors::prior_for(const GroupKey& key,
                                               const GroupMember& member) const {
  const stats::VariancePrior p = prior(key);
  if (outlier_above(member.base, p) || outlier_above(member.cur, p)) return {};
  return p;
}

stats::VariancePrior VariancePriors::prior(const GroupKey& key) const {
  const auto it = priors_.find(key);
  return it == priors_.end() ? stats::VariancePrior{} : it->second;
}

}  // namespace rtgate::gate
