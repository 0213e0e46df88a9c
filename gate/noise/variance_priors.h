// Borrowing strength across metrics: an empirical-Bayes prior for the per-run variance of each
// (suite, metric name, statistic) group, e.g. lock.latency's acquire_latency p99 over its locks.
//
// Five runs give a variance 4 degrees of freedom; 16 locks measured in the same runs give the
// prior many more (stats/moderated_variance.h). Two cautions make the prior honest here:
//  - Only groups of at least kMinGroup metrics are fitted: fewer cannot tell sampling spread
//    from real differences between the metrics' variances.
//  - Metrics measured in the same runs share the runs' drift (a run on a noisier host is noisier
//    for every lock), so their variances are not independent: treating them as 16 independent
//    estimates would make the prior look far more certain than it is, and every metric would
//    err together. The prior's df is therefore capped at the information the group really holds:
//    df per metric x G_eff, G_eff = G / (1 + (G - 1) r2), with r2 the mean squared correlation of
//    the metrics' per-run residuals beyond what chance alone gives (1 / residual df), the design
//    effect of a mean of correlated variance estimates. r2 from ten-run residuals is itself noisy,
//    so the prior is also never worth more than kMaxBorrow times the df of one side's variance
//    (the prior moderates each side's variance separately): five runs borrow at most the
//    information of about twenty.
//  - A member much noisier than its group (a lock three times noisier) must not be shrunk into
//    it: when either side's own variance is beyond the upper 1% of F(df, d0) around the prior
//    (limma's robust = TRUE idea), that member uses its own variance only (prior_for).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/stats/moderated_variance.h"
#include "gate/noise/change_estimate.h"

namespace rtgate::gate {

inline constexpr std::size_t kMinGroup = 5;
inline constexpr double kMaxBorrow = 4;

// One metric's per-run values of one statistic, both sides.
struct GroupMember {
  SideValues base, cur;
};

// The mean squared correlation of the members' residual vectors over all pairs, less what chance
// gives (1 / residual_df), in [0, 1]; 1 when fewer than two or their lengths differ.
double excess_r2(const std::vector<std::vector<double>>& residuals, double residual_df);

// Whether a side's own variance is beyond the upper 1% of what the prior allows.
bool outlier_above(const SideValues& side, const stats::VariancePrior& prior);

// The prior of one group (d0 = 0 when the group is too small or holds no information).
stats::VariancePrior fit_group_prior(const std::vector<GroupMember>& members);

using GroupKey = std::tuple<std::string, std::string, std::string>;  // suite, metric, statistic

class VariancePriors {
 public:
  void add(const GroupKey& key, GroupMember member) { groups_[key].push_back(std::move(member)); }
  // Fits every group; call once after all add()s.
  void fit();
  // The prior of the group (no prior when unknown or unfitted).
  stats::VariancePrior prior(const GroupKey& key) const;
  // The same for one member: none when the member is an outlier above its group.
  stats::VariancePrior prior_for(const GroupKey& key, const GroupMember& member) const;

 private:
  std::map<GroupKey, std::vector<GroupMember>> groups_;
  std::map<GroupKey, stats::VariancePrior> priors_;
};

}  // namespace rtgate::gate
