#include "gate/model/policy.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "base/io/input_limit.h"

namespace rtgate::gate {
namespace {

[[noreturn]] void fail(const std::string& origin, const YAML::Node& at, const std::string& what) {
  const YAML::Mark mark = at.Mark();
  const std::string line = mark.is_null() ? "" : ":" + std::to_string(mark.line + 1);
  throw PolicyError(origin + line + ": " + what);
}

double number(const std::string& origin, const YAML::Node& n, const std::string& key, double lo,
              double hi, const char* range) {
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    fail(origin, n, key + " must be a number");
  }
  if (!(v >= lo && v <= hi)) fail(origin, n, key + " must be " + range);
  return v;
}

// A map key as text; a key that is itself a list or a map ({[1]: 2}) is an error, not a
// YAML::TypedBadConversion escaping the parser.
std::string key_of(const std::string& origin, const YAML::Node& k) {
  if (!k.IsScalar()) fail(origin, k, "a key must be a name, not a list or a map");
  return k.Scalar();
}

bool boolean(const std::string& origin, const YAML::Node& n, const std::string& key) {
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    fail(origin, n, key + " must be true or false");
  }
}

std::vector<double> quantile_list(const std::string& origin, const YAML::Node& n,
                                  const std::string& key) {
  if (!n.IsSequence() || n.size() == 0) {
    fail(origin, n, key + " must be a non-empty list of quantiles in (0, 1), e.g. [0.99, 0.999]");
  }
  std::vector<double> qs;
  for (const YAML::Node& q : n) {
    const double v = number(origin, q, key, 0, 1, "a list of quantiles in (0, 1)");
    if (v <= 0 || v >= 1) fail(origin, q, key + " must be a list of quantiles in (0, 1)");
    qs.push_back(v);
  }
  return qs;
}

// Range checks shared by the top level and the overrides.
constexpr double kMaxPct = 1e6;
double alpha_of(const std::string& origin, const YAML::Node& n) {
  const double a = number(origin, n, "alpha", 0, 0.5, "in (0, 0.5]");
  if (a <= 0) fail(origin, n, "alpha must be in (0, 0.5]");
  return a;
}
double pct_of(const std::string& origin, const YAML::Node& n, const std::string& key) {
  return number(origin, n, key, 0, kMaxPct, "a percentage >= 0");
}
double budget_of(const std::string& origin, const YAML::Node& n, const std::string& key) {
  const double b = number(origin, n, key, 0, 1e18, "a positive number of ns");
  if (b <= 0) fail(origin, n, key + " must be a positive number of ns");
  return b;
}

void check_key(const std::string& origin, const YAML::Node& at, const std::string& key) {
  if (key.empty() || key.front() == '/' || key.back() == '/') {
    fail(origin, at, "'" + key + "' is not a suite, suite/metric or suite/case/metric key");
  }
}

// prior: {df: 19, p99: 0.08, max: 0.4}: rtgate calibrate's per-run SDs (log scale).
CalibratedPrior prior_of(const std::string& origin, const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) fail(origin, n, key + " must be a map {df: N, STATISTIC: SD, ...}");
  CalibratedPrior p;
  for (const auto& kv : n) {
    const std::string k = key_of(origin, kv.first);
    if (k == "df") {
      p.df = number(origin, kv.second, key + ".df", 1, 1e9, "at least 1");
    } else {
      const double sd = number(origin, kv.second, key + "." + k, 0, 100, "an SD in (0, 100]");
      if (sd <= 0) fail(origin, kv.second, key + "." + k + " must be an SD in (0, 100]");
      p.sd[k] = sd;
    }
  }
  if (p.df < 1) fail(origin, n, key + " needs df (the calibration's degrees of freedom)");
  if (p.sd.empty()) fail(origin, n, key + " names no statistic (p99, p999, max, value)");
  return p;
}

// 0 (the rule off) or a factor above 1: a factor of 1 or less would call noise gross.
double gross_factor_of(const std::string& origin, const YAML::Node& v, const std::string& name) {
  const double f = number(origin, v, name, 0, 1e6, "0 (off) or a factor above 1");
  if (f > 0 && f <= 1) fail(origin, v, name + " must be 0 (off) or a factor above 1");
  return f;
}

void read_budgets(const std::string& origin, const YAML::Node& v, Policy& p) {
  if (!v.IsMap()) fail(origin, v, "budgets_ns must map suite/metric keys to ns");
  for (const auto& b : v) {
    const std::string key = key_of(origin, b.first);
    check_key(origin, b.first, key);
    p.budgets_ns[key] = budget_of(origin, b.second, "budgets_ns." + key);
  }
}

Overrides overrides_of(const std::string& origin, const std::string& key, const YAML::Node& n) {
  if (!n.IsMap()) fail(origin, n, "metrics." + key + " must be a map of settings");
  Overrides o;
  for (const auto& kv : n) {
    const std::string k = key_of(origin, kv.first);
    const YAML::Node& v = kv.second;
    const std::string name = "metrics." + key + "." + k;
    if (k == "alpha") {
      o.alpha = alpha_of(origin, v);
    } else if (k == "noise_floor_pct") {
      o.noise_floor_pct = pct_of(origin, v, name);
    } else if (k == "latency_noise_floor_pct") {
      o.latency_noise_floor_pct = pct_of(origin, v, name);
    } else if (k == "max_noise_floor_pct") {
      o.max_noise_floor_pct = pct_of(origin, v, name);
    } else if (k == "count_floor_per_run") {
      o.count_floor_per_run = number(origin, v, name, 0, 1e12, "a number of events >= 0");
    } else if (k == "judge_max") {
      o.judge_max = boolean(origin, v, name);
    } else if (k == "prior") {
      o.prior = prior_of(origin, v, name);
    } else if (k == "max_baseline_cv_pct") {
      o.max_baseline_cv_pct = pct_of(origin, v, name);
    } else if (k == "quantiles") {
      o.quantiles = quantile_list(origin, v, name);
    } else if (k == "budget_ns") {
      o.budget_ns = budget_of(origin, v, name);
    } else if (k == "gate") {
      o.gate = boolean(origin, v, name);
    } else if (k == "gross_max_factor") {
      o.gross_max_factor = gross_factor_of(origin, v, name);
    } else {
      fail(origin, kv.first,
           "unknown setting '" + k +
               "' (known: alpha, noise_floor_pct, latency_noise_floor_pct, "
               "max_noise_floor_pct, count_floor_per_run, judge_max, prior, "
               "max_baseline_cv_pct, quantiles, budget_ns, gate, gross_max_factor)");
    }
  }
  return o;
}

Policy policy_of(const YAML::Node& root, const std::string& origin) {
  Policy p;
  if (root.IsNull()) return p;  // an empty file: the defaults
  if (!root.IsMap()) fail(origin, root, "a policy is a map of settings");
  for (const auto& kv : root) {
    const std::string k = key_of(origin, kv.first);
    const YAML::Node& v = kv.second;
    if (k == "alpha") {
      p.alpha = alpha_of(origin, v);
    } else if (k == "noise_floor_pct") {
      p.noise_floor_pct = pct_of(origin, v, k);
    } else if (k == "latency_noise_floor_pct") {
      p.latency_noise_floor_pct = pct_of(origin, v, k);
    } else if (k == "max_noise_floor_pct") {
      p.max_noise_floor_pct = pct_of(origin, v, k);
    } else if (k == "count_floor_per_run") {
      p.count_floor_per_run = number(origin, v, k, 0, 1e12, "a number of events >= 0");
    } else if (k == "judge_max") {
      p.judge_max = boolean(origin, v, k);
    } else if (k == "family_size") {
      p.family_size = static_cast<int>(number(origin, v, k, 1, 1e9, "at least 1"));
    } else if (k == "max_baseline_cv_pct") {
      p.max_baseline_cv_pct = pct_of(origin, v, k);
    } else if (k == "quantiles") {
      p.quantiles = quantile_list(origin, v, k);
    } else if (k == "alpha_scope") {
      const std::string scope = v.IsScalar() ? v.as<std::string>() : "";
      if (scope != "gate" && scope != "metric") fail(origin, v, "alpha_scope is gate or metric");
      p.alpha_scope = scope == "gate" ? AlphaScope::kGate : AlphaScope::kMetric;
    } else if (k == "latency_min_runs") {
      p.latency_min_runs = static_cast<int>(number(origin, v, k, 1, 1e6, "between 1 and 1000000"));
    } else if (k == "allow_env_mismatch") {
      p.allow_env_mismatch = boolean(origin, v, k);
    } else if (k == "allow_contaminated") {
      p.allow_contaminated = boolean(origin, v, k);
    } else if (k == "max_steal_pct") {
      p.max_steal_pct = number(origin, v, k, 0, 100, "a percentage in [0, 100]");
    } else if (k == "gross_max_factor") {
      p.gross_max_factor = gross_factor_of(origin, v, k);
    } else if (k == "gross_min_runs") {
      p.gross_min_runs = static_cast<int>(number(origin, v, k, 1, 1e6, "between 1 and 1000000"));
    } else if (k == "seed" || k == "bootstrap_resamples") {
      // Named apart from unknown keys: older policy files carry them, and their authors should
      // learn that removing them changes nothing.
      fail(origin, kv.first,
           "setting '" + k + "' is not read: no verdict of the gate is randomised; remove it");
    } else if (k == "budgets_ns") {
      read_budgets(origin, v, p);
    } else if (k == "metrics") {
      if (!v.IsMap()) fail(origin, v, "metrics must map suite/metric keys to settings");
      for (const auto& m : v) {
        const std::string key = key_of(origin, m.first);
        check_key(origin, m.first, key);
        p.per_metric[key] = overrides_of(origin, key, m.second);
      }
    } else {
      fail(origin, kv.first,
           "unknown setting '" + k +
               "' (known: alpha, alpha_scope, family_size, noise_floor_pct, "
               "latency_noise_floor_pct, max_noise_floor_pct, count_floor_per_run, judge_max, "
               "max_baseline_cv_pct, quantiles, latency_min_runs, allow_env_mismatch, "
               "allow_contaminated, max_steal_pct, gross_max_factor, gross_min_runs, "
               "budgets_ns, metrics)");
    }
  }
  // A metric's own alpha is a level for that metric alone: under the gate's scope every metric
  // shares the family's alpha, and an override there would silently mean nothing.
  if (p.alpha_scope == AlphaScope::kGate) {
    for (const auto& [key, o] : p.per_metric) {
      if (o.alpha) {
        fail(origin, root["metrics"],
             "metrics." + key +
                 ".alpha: a metric's own alpha needs alpha_scope: metric (with the "
                 "default alpha_scope: gate, the top-level alpha is shared by every metric)");
      }
    }
  }
  return p;
}

void apply(MetricPolicy& mp, const Overrides& o) {
  if (o.alpha) mp.alpha = *o.alpha;
  if (o.noise_floor_pct) mp.noise_floor_pct = *o.noise_floor_pct;
  if (o.latency_noise_floor_pct) mp.latency_noise_floor_pct = *o.latency_noise_floor_pct;
  if (o.max_noise_floor_pct) mp.max_noise_floor_pct = *o.max_noise_floor_pct;
  if (o.count_floor_per_run) mp.count_floor_per_run = *o.count_floor_per_run;
  if (o.judge_max) mp.judge_max = *o.judge_max;
  if (o.prior) mp.prior = *o.prior;
  if (o.max_baseline_cv_pct) mp.max_baseline_cv_pct = *o.max_baseline_cv_pct;
  if (o.quantiles) mp.quantiles = *o.quantiles;
  if (o.budget_ns) mp.budget_ns = *o.budget_ns;
  if (o.gate) mp.gated = *o.gate;
  if (o.gross_max_factor) mp.gross_max_factor = *o.gross_max_factor;
}

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

MetricPolicy resolve(const Policy& policy, const std::string& suite, const std::string& case_name,
                     const std::string& metric, bool gated_by_default) {
  MetricPolicy mp;
  mp.alpha = policy.alpha;
  mp.noise_floor_pct = policy.noise_floor_pct;
  mp.latency_noise_floor_pct = policy.latency_noise_floor_pct;
  mp.max_noise_floor_pct = policy.max_noise_floor_pct;
  mp.count_floor_per_run = policy.count_floor_per_run;
  mp.judge_max = policy.judge_max;
  mp.max_baseline_cv_pct = policy.max_baseline_cv_pct;
  mp.quantiles = policy.quantiles;
  mp.latency_min_runs = policy.latency_min_runs;
  mp.gated = gated_by_default;
  mp.gross_max_factor = policy.gross_max_factor.value_or(3);
  mp.gross_min_runs = policy.gross_min_runs;
  // Least specific first, so the most specific key is applied last and wins.
  for (const std::string& key :
       {suite, suite + "/" + metric, suite + "/" + case_name + "/" + metric}) {
    if (auto b = policy.budgets_ns.find(key); b != policy.budgets_ns.end())
      mp.budget_ns = b->second;
    if (auto o = policy.per_metric.find(key); o != policy.per_metric.end()) apply(mp, o->second);
  }
  return mp;
}

Policy parse_policy(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw PolicyError(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  try {
    return policy_of(root, origin);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's own conversions are input errors too; the checks above name most of them.
    throw PolicyError(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Policy load_policy(const std::string& path) {
  std::string why;
  bool too_big = false;
  const std::optional<std::string> text = io::read_bounded(path, kMaxPolicyBytes, &why, &too_big);
  if (!text) {
    throw PolicyError(too_big ? "policy " + path + ": " + why
                              : "cannot read policy " + path + ": " + why);
  }
  return parse_policy(*text, path);
}

std::string validate_policy(const Policy& policy, const RunReport& base, const RunReport& cur) {
  // Every key each report offers, and the kind of the metric it names ("" for a suite).
  std::map<std::string, MetricKind> metric_keys;
  std::set<std::string> suites;
  std::map<std::string, std::set<std::string>> metrics_of_suite;
  for (const RunReport* r : {&base, &cur}) {
    for (const SuiteResult& s : r->suites) {
      suites.insert(s.name);
      for (const Case& c : s.cases) {
        for (const Metric& m : c.metrics) {
          metric_keys.emplace(s.name + "/" + m.name, m.kind);
          metric_keys.emplace(s.name + "/" + c.name + "/" + m.name, m.kind);
          metrics_of_suite[s.name].insert(m.name);
        }
      }
    }
  }
  auto unknown = [&](const std::string& section, const std::string& key) {
    std::string msg = "policy " + section + " key '" + key + "' names nothing in either report";
    const std::string suite = key.substr(0, key.find('/'));
    if (suites.count(suite) == 0) return msg + " (suites: " + join(suites) + ")";
    return msg + " (" + suite + " has metrics: " + join(metrics_of_suite[suite]) + ")";
  };
  for (const auto& [key, budget] : policy.budgets_ns) {
    if (suites.count(key) != 0) continue;
    const auto m = metric_keys.find(key);
    if (m == metric_keys.end()) return unknown("budgets_ns", key);
    if (m->second != MetricKind::kLatency) {
      return "policy budgets_ns key '" + key + "' is a " + to_string(m->second) +
             " metric; budgets apply to latency metrics";
    }
  }
  for (const auto& [key, o] : policy.per_metric) {
    if (suites.count(key) != 0) continue;
    const auto m = metric_keys.find(key);
    if (m == metric_keys.end()) return unknown("metrics", key);
    if (o.budget_ns && m->second != MetricKind::kLatency) {
      return "policy metrics key '" + key + "' sets budget_ns on a " + to_string(m->second) +
             " metric; budgets apply to latency metrics";
    }
  }
  return "";
}

}  // namespace rtgate::gate
