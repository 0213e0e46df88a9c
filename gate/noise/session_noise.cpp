#include "gate/noise/session_noise.h"

#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <cstdint>
#include <set>

#include "base/stats/summary.h"
#include "gate/model/format.h"
#include "gate/noise/run_values.h"
#include "gate/noise/variance_priors.h"

namespace rtgate::gate {
namespace {

double median(std::vector<double> xs) {
  if (xs.empty()) return NAN;
  const auto mid = xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2);
  std::nth_element(xs.begin(), mid, xs.end());
  if (xs.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(xs.begin(), mid)) / 2;
}

// A screened difference is a real change or an outlier session, not noise: beyond this many
// robust SDs of the successive differences.
constexpr double kScreen = 3.5;

SessionPoint log_point(const SideValues& s) {
  SessionPoint p;
  const auto n = static_cast<double>(s.values.size());
  if (n < 1) return p;
  const double sd = stats::stddev(s.values);
  const double ss = sd * sd * (n - 1);
  p.mean = stats::amean(s.values);
  // Unfloored: the floor's max() would bias the subtracted part up, and tau^2 down.
  const double run_var = n >= 2 ? sd * sd : s.within_var;
  p.mean_var = run_var / n;
  p.spread_ss = ss;
  p.spread_df = n - 1;
  return p;
}

SessionPoint count_point(const std::vector<double>& counts) {
  SessionPoint p;
  const auto n = static_cast<double>(counts.size());
  if (n < 1) return p;
  double k = 0;
  for (double c : counts) k += std::max(0.0, c);
  const double mean = k / n;
  double chi2 = 0;
  if (mean > 0) {
    for (double c : counts) chi2 += (c - mean) * (c - mean) / mean;
  }
  p.mean = std::log((k + 0.5) / n);
  const double phi = n >= 2 && mean > 0 ? std::max(1.0, chi2 / (n - 1)) : 1.0;
  p.mean_var = phi / (k + 0.5);
  if (mean > 0) {
    p.spread_ss = chi2;
    p.spread_df = n - 1;
  }
  return p;
}

}  // namespace

SessionPoint session_point(const Metric& m, const std::string& statistic) {
  if (statistic == "rate") return count_point(m.samples);
  return log_point(side_values(m, statistic));
}

std::string SessionNoise::describe(bool ratio) const {
  const double tau = std::sqrt(std::max(0.0, tau_sq));
  const std::string size =
      ratio ? fmt::num(100 * std::expm1(tau)) + "%" : fmt::num(tau) + " (log rate)";
  if (source == NoiseSource::kHistory) {
    return "session tau " + size + " from " + std::to_string(sessions) + " sessions of history";
  }
  return "session tau " + size + " by the default prior (" +
         (sessions > 0 ? "history too short: " + std::to_string(sessions) + " sessions"
                       : std::string("no history")) +
         (raised ? ", raised by their own spread" : "") + ")";
}

SessionNoise default_session_noise(const std::string& statistic, BoardClass board, bool same_boot) {
  const bool wide = statistic == "max" || statistic == "rate";
  double tau = 0;
  switch (board) {
    case BoardClass::kBareMetal:
      tau = same_boot ? (wide ? 0.10 : 0.03) : (wide ? 0.25 : 0.10);
      break;
    case BoardClass::kVirtualMachine:
    case BoardClass::kEmulated:
      // The host's load moves every session, seen or not. Between processes of one boot of this
      // 2-vCPU KVM guest, cyclic's p99 moved 24-30% (log SD) and a near-max 13-52%, with single
      // sessions 9 times the others; between boots it can only be more.
      tau = same_boot ? (wide ? 0.60 : 0.25) : (wide ? 1.25 : 0.25);
      break;
    case BoardClass::kDeterministic:
      // Time counted in instructions: over 20 boots of 6.1.0-53-rt (cyclic, 5 runs of 5 s), the
      // session means of p99, p99.9 and max moved 1.0%, 0.44% and 2.9% (log SD), all of it
      // what their runs' own spread explains; the boots themselves add about nothing.
      tau = wide ? 0.03 : 0.02;
      break;
  }
  return {.tau_sq = tau * tau, .tau_df = INFINITY};
}

namespace {

// The sample variance of the session means and its df. Unscreened: an outlier session widens
// it (a conservative error), where dropping the extremes of ten would bias it low.
std::pair<double, double> plain_variance(const std::vector<double>& xs) {
  const double sd = stats::stddev(xs);
  return {sd * sd, static_cast<double>(xs.size() - 1)};
}

// The mean square successive difference / 2 after screening differences beyond kScreen robust
// SDs (a step between two sessions is a change, not noise); its df: the von Neumann estimator of
// m differences has variance (3m - 1) sigma^4 / m^2.
std::pair<double, double> screened_mssd(const std::vector<double>& xs) {
  std::vector<double> d, abs_d;
  for (std::size_t i = 1; i < xs.size(); ++i) {
    d.push_back(xs[i] - xs[i - 1]);
    abs_d.push_back(std::fabs(d.back()));
  }
  const double robust_sd = 1.4826 * median(abs_d);
  double sum = 0, m = 0;
  for (double x : d) {
    if (robust_sd > 0 && std::fabs(x) > kScreen * robust_sd) continue;
    sum += x * x;
    ++m;
  }
  return {sum / (2 * m), 2 * m * m / (3 * m - 1)};
}

}  // namespace

SessionNoise estimate_session_noise(const std::vector<SessionPoint>& series, bool counts) {
  SessionNoise out;
  out.sessions = static_cast<int>(series.size());
  if (series.size() < static_cast<std::size_t>(kMinHistory)) {
    if (series.size() >= 2) {
      std::vector<double> means;
      double explained = 0;
      for (const SessionPoint& p : series) {
        means.push_back(p.mean);
        explained += p.mean_var / static_cast<double>(series.size());
      }
      const auto [var, df] = plain_variance(means);
      out.short_var = var - explained;
      out.short_df = df;
    }
    return out;
  }
  std::vector<double> xs;
  double vbar = 0, ss = 0, df = 0;
  for (const SessionPoint& p : series) {
    xs.push_back(p.mean);
    vbar += p.mean_var;
    ss += p.spread_ss;
    df += p.spread_df;
  }
  vbar /= static_cast<double>(series.size());
  // Sessions in time order: the plain variance of their means uses every df, unless the series
  // moved (a change of kernel, a drift), which the von Neumann ratio (mean square successive
  // difference over variance, 2 without serial structure) shows below its lower 5%; then the
  // successive differences, which a few steps barely move, give the spread.
  const auto [var, var_df] = plain_variance(xs);
  const auto [mssd, mssd_df] = screened_mssd(xs);
  const auto n = static_cast<double>(xs.size());
  const double ratio_sd = std::sqrt(4 * (n - 2) / ((n - 1) * (n + 1)));
  const bool moved = var > 0 && 2 * mssd / var < 2 - 1.645 * ratio_sd;
  const double q = moved ? mssd : var;
  out.tau_sq = q - vbar;
  out.session_mean_var = q;
  out.tau_df = moved ? mssd_df : var_df;
  if (df > 0) {
    out.run_var = counts ? std::max(1.0, ss / df) : ss / df;
    out.run_df = df;
  }
  out.source = NoiseSource::kHistory;
  return out;
}

namespace {

// The session-mean variances of one (suite, metric, statistic) group (a lock.latency metric over
// its locks), moderated towards the group's empirical-Bayes prior as the runs' variances are
// (variance_priors.h, with its cautions: the prior's df capped by the members' correlation and
// at kMaxBorrow times a member's own, and a member beyond the upper 1% of its group keeping its
// own). Ten sessions know one metric's spread with about 9 df, and by chance some show almost
// none; their group knows it far better.
void borrow_in_group(
    const std::vector<std::pair<SessionNoise*, const std::vector<SessionPoint>*>>& members) {
  std::vector<stats::VarianceEstimate> estimates;
  std::vector<std::vector<double>> residuals;
  for (const auto& [noise, points] : members) {
    estimates.push_back({noise->session_mean_var, noise->tau_df});
    std::vector<double> r;
    for (const SessionPoint& p : *points) r.push_back(p.mean);
    const double mean = stats::amean(r);
    for (double& v : r) v -= mean;
    residuals.push_back(std::move(r));
  }
  stats::VariancePrior prior = stats::fit_prior(estimates);
  if (!prior.usable()) return;
  std::vector<double> dfs;
  for (const auto& e : estimates) dfs.push_back(e.df);
  const double df = median(dfs);
  const auto g = static_cast<double>(estimates.size());
  const double g_eff = g / (1 + (g - 1) * excess_r2(residuals, df));
  if (prior.d0 > df * std::min(g_eff, kMaxBorrow)) {
    // As fit_group_prior: the same location, re-expressed for the smaller df.
    const double cap = df * std::min(g_eff, kMaxBorrow);
    prior.s0_sq *= std::exp(
        boost::math::digamma(cap / 2) - std::log(cap / 2) -
        (std::isinf(prior.d0) ? 0.0 : boost::math::digamma(prior.d0 / 2) - std::log(prior.d0 / 2)));
    prior.d0 = cap;
  }
  for (const auto& [noise, points] : members) {
    SideValues own;
    for (const SessionPoint& p : *points) own.values.push_back(p.mean);
    if (outlier_above(own, prior)) continue;
    const double within = noise->session_mean_var - noise->tau_sq;
    const stats::VarianceEstimate m =
        stats::moderate({noise->session_mean_var, noise->tau_df}, prior);
    noise->session_mean_var = m.var;
    noise->tau_df = m.df;
    noise->tau_sq = m.var - within;
  }
}

}  // namespace

void borrow_across_groups(const std::map<NoiseModel::Key, std::vector<SessionPoint>>& series,
                          std::map<NoiseModel::Key, SessionNoise>& known) {
  using Group = std::tuple<std::string, std::string, std::string>;
  std::map<Group, std::vector<std::pair<SessionNoise*, const std::vector<SessionPoint>*>>> groups;
  for (auto& [key, noise] : known) {
    if (noise.source != NoiseSource::kHistory || std::get<3>(key) == "rate") continue;
    groups[{std::get<0>(key), std::get<2>(key), std::get<3>(key)}].push_back(
        {&noise, &series.at(key)});
  }
  for (const auto& [group, members] : groups) {
    if (members.size() >= kMinGroup) borrow_in_group(members);
  }
}

std::string session_id(const RunReport& r) {
  if (!r.environment.boot_id.empty()) {
    return r.environment.boot_id + ":" + std::to_string(r.environment.pid);
  }
  return r.environment.hostname + "@" + r.started_at;
}

std::string boot_of(const RunReport& r) {
  return r.environment.boot_id.empty() ? session_id(r) : r.environment.boot_id;
}

std::optional<double> boot_number(const std::string& boot_id) {
  if (boot_id.empty()) return std::nullopt;
  // FNV-1a over the whole id: any id, random or not, keeps its distinctness in 52 bits.
  std::uint64_t h = 14695981039346656037ull;
  for (const char ch : boot_id) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ull;
  }
  return static_cast<double>(h >> 12);
}

namespace {

// The points of one boot's processes as one session: their mean, the variance it has from
// their runs, and their runs' spread pooled.
SessionPoint merged(const std::vector<SessionPoint>& ps) {
  if (ps.size() == 1) return ps.front();
  SessionPoint out{.mean = 0};
  const auto k = static_cast<double>(ps.size());
  for (const SessionPoint& p : ps) {
    out.mean += p.mean / k;
    out.mean_var += p.mean_var / (k * k);
    out.spread_ss += p.spread_ss;
    out.spread_df += p.spread_df;
  }
  return out;
}

}  // namespace

void add_session_points(const RunReport& r, int group, const Policy& policy,
                        NoiseModel::Points& series) {
  for (const SuiteResult& s : r.suites) {
    if (s.status == SuiteStatus::kSkipped) continue;
    for (const Case& c : s.cases) {
      for (const Metric& m : c.metrics) {
        const MetricPolicy mp = resolve(policy, s.name, c.name, m.name, m.gated_by_default());
        if (m.is_event_rate()) {
          if (!m.samples.empty()) {
            series[{s.name, c.name, m.name, "rate"}][group].push_back(session_point(m, "rate"));
          }
          continue;
        }
        for (const std::string& st : run_statistics(m, mp)) {
          const SessionPoint p = session_point(m, st);
          if (!std::isnan(p.mean)) series[{s.name, c.name, m.name, st}][group].push_back(p);
        }
      }
    }
  }
}

NoiseModel NoiseModel::from_sessions(const std::vector<const RunReport*>& sessions,
                                     const Policy& policy) {
  std::vector<const RunReport*> order;
  std::set<std::string> seen;
  for (const RunReport* r : sessions) {
    if (seen.insert(session_id(*r)).second) order.push_back(r);
  }
  std::stable_sort(order.begin(), order.end(), [](const RunReport* a, const RunReport* b) {
    return a->started_at < b->started_at;
  });
  std::map<std::string, int> boots;  // boot -> its session, in order of first appearance
  for (const RunReport* r : order) boots.emplace(boot_of(*r), static_cast<int>(boots.size()));
  const bool by_boot = boots.size() > 1;
  Points grouped;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int group = by_boot ? boots.at(boot_of(*order[i])) : static_cast<int>(i);
    add_session_points(*order[i], group, policy, grouped);
  }
  return from_points(grouped,
                     by_boot ? static_cast<int>(boots.size()) : static_cast<int>(order.size()),
                     !by_boot && order.size() > 1);
}

NoiseModel NoiseModel::from_points(const Points& grouped, int sessions, bool one_boot) {
  std::map<Key, std::vector<SessionPoint>> series;
  for (const auto& [key, groups] : grouped) {
    for (const auto& [group, points] : groups) series[key].push_back(merged(points));
  }
  NoiseModel model;
  model.sessions_ = sessions;
  model.one_boot_ = one_boot;
  for (const auto& [key, points] : series) {
    model.known_[key] = estimate_session_noise(points, std::get<3>(key) == "rate");
    model.from_history_ += model.known_[key].source == NoiseSource::kHistory;
  }
  borrow_across_groups(series, model.known_);
  return model;
}

void NoiseModel::set_environment(const Environment& base, const Environment& cur) {
  board_ = noisier(board_class(base), board_class(cur));
  same_boot_ = !base.boot_id.empty() && base.boot_id == cur.boot_id;
}

std::string NoiseModel::describe(int baseline_sessions) const {
  const std::string sides = std::to_string(baseline_sessions) + " baseline session" +
                            (baseline_sessions == 1 ? "" : "s") + " against 1 current; ";
  const std::string prior = std::string("the default prior (") +
                            (same_boot_ ? "one boot" : "separate boots") + ", " +
                            to_string(board_) + ")";
  if (from_history_ > 0 && !history_fits()) {
    return sides + "session noise by " + prior + ": the history's " + std::to_string(sessions_) +
           " sessions are processes of one boot, which show nothing of what moves between boots";
  }
  if (from_history_ > 0) {
    return sides + "session noise from " + std::to_string(sessions_) +
           (one_boot_ ? " processes of one boot" : " boots") + " of this host's history, " + prior +
           " where it has too few";
  }
  if (sessions_ > baseline_sessions) {
    return sides + "session noise by " + prior + ": the history's " + std::to_string(sessions_) +
           " sessions are too few (" + std::to_string(kMinHistory) + " needed)";
  }
  if (sessions_ > 1) {
    return sides + "session noise by " + prior + ": no history beyond the baseline's " +
           std::to_string(sessions_) + " sessions (" + std::to_string(kMinHistory) + " needed)";
  }
  return sides + "session noise by " + prior + ": no history";
}

SessionNoise NoiseModel::of(const std::string& suite, const std::string& case_name,
                            const std::string& metric, const std::string& statistic,
                            MetricKind kind, bool tail) const {
  (void)kind;
  SessionNoise prior = default_session_noise(tail ? "max" : statistic, board_, same_boot_);
  const auto it = known_.find({suite, case_name, metric, statistic});
  if (it == known_.end()) {
    prior.sessions = sessions_;
    return prior;
  }
  if (it->second.source == NoiseSource::kHistory && history_fits()) return it->second;
  prior.sessions = it->second.sessions;
  const SessionNoise& seen = it->second;
  if (seen.short_df > 0 && history_fits()) {
    // 2-4 sessions cannot replace the prior, but a spread wider than it must widen it.
    const double pooled = (kPriorWeight * prior.tau_sq + seen.short_df * seen.short_var) /
                          (kPriorWeight + seen.short_df);
    if (pooled > prior.tau_sq) {
      prior.tau_sq = pooled;
      prior.raised = true;
    }
  }
  return prior;
}

}  // namespace rtgate::gate
