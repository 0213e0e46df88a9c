#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gate/model/policy.h"

namespace rtgate::gate {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_policy(text, "gate.yaml");
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

TEST(GatePolicy, DefaultsNeedNoFile) {
  const Policy p = parse_policy("");
  EXPECT_EQ(p.alpha, 0.05);
  EXPECT_EQ(p.noise_floor_pct, 5);
  EXPECT_EQ(p.latency_noise_floor_pct, 10);
  EXPECT_EQ(p.max_noise_floor_pct, 25);
  EXPECT_EQ(p.count_floor_per_run, 1);
  EXPECT_TRUE(p.judge_max);
  EXPECT_EQ(p.family_size, 100);
  EXPECT_EQ(p.max_baseline_cv_pct, 0);  // off: intervals already widen with a noisy baseline
  EXPECT_EQ(p.quantiles, (std::vector<double>{0.99, 0.999}));
  EXPECT_FALSE(p.allow_env_mismatch);
}

TEST(GatePolicy, ParsesTheNewSettingsAndACalibratedPrior) {
  const Policy p = parse_policy(R"(
family_size: 200
max_noise_floor_pct: 40
count_floor_per_run: 2
judge_max: false
metrics:
  cyclic/cpu0/wakeup_latency:
    prior: {df: 19, p99: 0.08, p999: 0.15, max: 0.4}
    max_noise_floor_pct: 50
)");
  EXPECT_EQ(p.family_size, 200);
  EXPECT_EQ(p.max_noise_floor_pct, 40);
  EXPECT_EQ(p.count_floor_per_run, 2);
  EXPECT_FALSE(p.judge_max);
  const MetricPolicy mp = resolve(p, "cyclic", "cpu0", "wakeup_latency", true);
  ASSERT_TRUE(mp.prior);
  EXPECT_EQ(mp.prior->df, 19);
  EXPECT_EQ(mp.prior->sd.at("p999"), 0.15);
  EXPECT_EQ(mp.max_noise_floor_pct, 50);
  EXPECT_FALSE(resolve(p, "cyclic", "cpu1", "wakeup_latency", true).prior);
  EXPECT_NE(error_of("metrics: {s/m: {prior: {p99: 0.1}}}").find("needs df"), std::string::npos);
  EXPECT_NE(error_of("metrics: {s/m: {prior: {df: 5, p99: -1}}}").find("SD"), std::string::npos);
}

TEST(GatePolicy, EventCountsAreGatedByDefaultOtherCountsOnlyWhenNamed) {
  const Policy p;
  EXPECT_TRUE(resolve(p, "cyclic", "cpu0", "missed_periods", true).gated);
  EXPECT_TRUE(resolve(p, "cyclic", "cpu0", "overruns", true).gated);
  EXPECT_FALSE(resolve(p, "lock.latency", "tas", "nonrt_fairness_cv", false).gated);
}

// A metric's own alpha means something only when each metric is tested at its own level.
TEST(GatePolicy, AMetricsOwnAlphaNeedsTheMetricScope) {
  EXPECT_THROW(parse_policy("metrics:\n  cyclic/wakeup_latency: {alpha: 0.1}\n"), PolicyError);
  const Policy p =
      parse_policy("alpha_scope: metric\nmetrics:\n  cyclic/wakeup_latency: {alpha: 0.1}\n");
  EXPECT_EQ(*p.per_metric.at("cyclic/wakeup_latency").alpha, 0.1);
}

TEST(GatePolicy, ParsesYaml) {
  const Policy p = parse_policy(R"(
alpha: 0.01
alpha_scope: metric
noise_floor_pct: 3
latency_noise_floor_pct: 15
max_baseline_cv_pct: 10
quantiles: [0.99, 0.999, 0.9999]
latency_min_runs: 4
allow_env_mismatch: true
allow_contaminated: true
max_steal_pct: 12.5
budgets_ns:
  cyclic/wakeup_latency: 100000
metrics:
  cyclic/overruns: {gate: true}
  lock.latency: {latency_noise_floor_pct: 20, quantiles: [0.99]}
  lock.throughput/pi_mutex/4t/mops: {noise_floor_pct: 8, alpha: 0.1}
)");
  EXPECT_EQ(p.alpha, 0.01);
  EXPECT_EQ(p.quantiles.size(), 3u);
  EXPECT_EQ(p.latency_min_runs, 4);
  EXPECT_TRUE(p.allow_env_mismatch);
  EXPECT_TRUE(p.allow_contaminated);
  EXPECT_EQ(p.max_steal_pct, 12.5);
  EXPECT_EQ(p.budgets_ns.at("cyclic/wakeup_latency"), 100000);
  EXPECT_TRUE(*p.per_metric.at("cyclic/overruns").gate);
  EXPECT_EQ(*p.per_metric.at("lock.latency").latency_noise_floor_pct, 20);
}

TEST(GatePolicy, ParsesJsonWithTheSameParser) {
  const Policy p = parse_policy(
      "{\n\t\"alpha\": 0.02,\n\t\"budgets_ns\": {\"cyclic/wakeup_latency\": 5e4},\n"
      "\t\"metrics\": {\"cyclic/overruns\": {\"gate\": true}}\n}\n");
  EXPECT_EQ(p.alpha, 0.02);
  EXPECT_EQ(p.budgets_ns.at("cyclic/wakeup_latency"), 50000);
  EXPECT_TRUE(*p.per_metric.at("cyclic/overruns").gate);
}

TEST(GatePolicy, ErrorsAreOneLineWithTheLine) {
  // Keys the gate once parsed and never read: refused, saying they change nothing.
  EXPECT_EQ(error_of("alpha: 0.05\nseed: 42\n"),
            "gate.yaml:2: setting 'seed' is not read: no verdict of the gate is randomised; "
            "remove it");
  EXPECT_NE(
      error_of("bootstrap_resamples: 500\n").find("setting 'bootstrap_resamples' is not read"),
      std::string::npos);
  EXPECT_EQ(error_of("alpha: 0.05\nalpah: 0.1\n").rfind("gate.yaml:2: unknown setting 'alpah'", 0),
            0u);
  EXPECT_EQ(error_of("alpha: 2\n"), "gate.yaml:1: alpha must be in (0, 0.5]");
  EXPECT_EQ(error_of("alpha: high\n"), "gate.yaml:1: alpha must be a number");
  EXPECT_EQ(error_of("max_steal_pct: 101\n"),
            "gate.yaml:1: max_steal_pct must be a percentage in [0, 100]");
  EXPECT_NE(error_of("quantiles: [0.99, 1.5]\n").find("quantiles in (0, 1)"), std::string::npos);
  EXPECT_NE(error_of("quantiles: []\n").find("non-empty"), std::string::npos);
  EXPECT_NE(error_of("budgets_ns:\n  cyclic/x: -1\n").find("positive"), std::string::npos);
  EXPECT_NE(error_of("metrics:\n  cyclic/x: {gates: true}\n").find("unknown setting 'gates'"),
            std::string::npos);
  EXPECT_NE(error_of("alpha: [1\n").find("gate.yaml:"), std::string::npos);  // malformed
  EXPECT_EQ(error_of("- 1\n- 2\n"), "gate.yaml:1: a policy is a map of settings");
  for (const char* bad : {"alpha: 2\n", "alpha: [1\n", "- 1\n", "metrics: 3\n"}) {
    EXPECT_EQ(error_of(bad).find('\n'), std::string::npos) << bad;
  }
}

TEST(GatePolicy, LoadPolicyReadsFilesAndReportsMissingOnes) {
  const std::string path = testing::TempDir() + "gate_policy_test.yaml";
  {
    std::ofstream out(path);
    out << "noise_floor_pct: 7\n";
  }
  EXPECT_EQ(load_policy(path).noise_floor_pct, 7);
  std::remove(path.c_str());
  try {
    load_policy(path);
    FAIL() << "no error for a missing file";
  } catch (const PolicyError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read policy " + path + ": No such file or directory");
  }
}

TEST(GatePolicy, MostSpecificKeyWinsFieldByField) {
  Policy p;
  p.per_metric["cyclic"].latency_noise_floor_pct = 20;
  p.per_metric["cyclic"].alpha = 0.1;
  p.per_metric["cyclic/wakeup_latency"].latency_noise_floor_pct = 30;
  p.per_metric["cyclic/cpu1/wakeup_latency"].latency_noise_floor_pct = 40;
  p.budgets_ns["cyclic/wakeup_latency"] = 1000;
  p.budgets_ns["cyclic/cpu1/wakeup_latency"] = 2000;
  p.per_metric["cyclic/overruns"].gate = true;

  const MetricPolicy cpu0 = resolve(p, "cyclic", "cpu0", "wakeup_latency", true);
  EXPECT_EQ(cpu0.latency_noise_floor_pct, 30);
  EXPECT_EQ(cpu0.alpha, 0.1);  // from the suite key
  EXPECT_EQ(*cpu0.budget_ns, 1000);
  const MetricPolicy cpu1 = resolve(p, "cyclic", "cpu1", "wakeup_latency", true);
  EXPECT_EQ(cpu1.latency_noise_floor_pct, 40);
  EXPECT_EQ(*cpu1.budget_ns, 2000);
  EXPECT_TRUE(resolve(p, "cyclic", "cpu0", "overruns", false).gated);
  EXPECT_FALSE(resolve(p, "cyclic", "cpu0", "missed", false).gated);
  EXPECT_TRUE(resolve(p, "other", "c", "ops", true).gated);
  EXPECT_FALSE(resolve(p, "other", "c", "ops", true).budget_ns);
}

TEST(GatePolicy, ValidateAgainstReports) {
  LatencyHistogram h;
  h.record(1000);
  RunReport r;
  SuiteResult s;
  s.name = "lock.throughput";
  Case c;
  c.name = "pi_mutex/4t";
  c.metrics = {Metric::latency("wakeup_latency", h, {1000}),
               Metric::count("overruns", 0, "events", Metric::Gating::kEventRate),
               Metric::throughput("ops", "ops/s", 100)};
  s.cases.push_back(c);
  r.suites.push_back(s);
  Policy p;
  p.budgets_ns["lock.throughput/wakeup_latency"] = 1e5;
  p.budgets_ns["lock.throughput/pi_mutex/4t/wakeup_latency"] = 1e5;  // a case name with a '/'
  p.per_metric["lock.throughput"].alpha = 0.1;
  p.per_metric["lock.throughput/overruns"].gate = true;
  EXPECT_EQ(validate_policy(p, r, RunReport{}), "");
  EXPECT_EQ(validate_policy(p, RunReport{}, r), "");

  Policy typo = p;
  typo.per_metric["lock.throughput/overuns"].gate = true;
  EXPECT_EQ(validate_policy(typo, r, r),
            "policy metrics key 'lock.throughput/overuns' names nothing in either report "
            "(lock.throughput has metrics: ops, overruns, wakeup_latency)");
  Policy no_suite;
  no_suite.budgets_ns["cyclc/wakeup_latency"] = 1;
  EXPECT_EQ(validate_policy(no_suite, r, r),
            "policy budgets_ns key 'cyclc/wakeup_latency' names nothing in either report "
            "(suites: lock.throughput)");
  Policy wrong_kind;
  wrong_kind.budgets_ns["lock.throughput/ops"] = 1;
  EXPECT_NE(validate_policy(wrong_kind, r, r).find("budgets apply to latency metrics"),
            std::string::npos);
}

// A key that is a list or a map was a YAML::TypedBadConversion escaping parse_policy (exit 1).
TEST(GatePolicy, AKeyThatIsNotANameIsAPolicyError) {
  for (const char* text : {"{[1]: 2}", "? {a: 1}\n: 3", "metrics:\n  ? [x]\n  : {gate: true}",
                           "budgets_ns: {[a]: 5}", "metrics: {cyclic: {[k]: 1}}"}) {
    try {
      parse_policy(text, "gate.yaml");
      ADD_FAILURE() << text << ": parsed";
    } catch (const PolicyError& e) {
      EXPECT_NE(std::string(e.what()).find("gate.yaml:"), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << text << ": " << e.what() << " is not a PolicyError";
    }
  }
}

}  // namespace
}  // namespace rtgate::gate
