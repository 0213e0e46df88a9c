#include "framework/gate/compare.h"

#include <algorithm>

#include "framework/gate/environment_diff.h"
#include "framework/gate/latency_judge.h"
#include "framework/gate/sample_judge.h"

namespace rtgate::gate {
namespace {

MetricVerdict identity(const std::string& suite, const std::string& case_name, const Metric& m) {
  MetricVerdict v;
  v.suite = suite;
  v.case_name = case_name;
  v.metric = m.name;
  v.unit = m.unit;
  v.kind = m.kind;
  v.better = m.better;
  return v;
}

// What the baseline had and current lacks counts (as missing); what only current has has no
// baseline to be judged against and is reported only (gated = false).
enum class Side { kBaselineOnly, kCurrentOnly };

MetricVerdict missing_row(const std::string& suite, const std::string& case_name, const Metric& m,
                          std::string reason, Side side) {
  MetricVerdict v = identity(suite, case_name, m);
  v.verdict = Verdict::kMissing;
  v.reason = std::move(reason);
  v.gated = side == Side::kBaselineOnly;
  return v;
}

// Rows for every metric of a case present on one side only.
void missing_case(const std::string& suite, const Case& c, const std::string& reason, Side side,
                  std::vector<MetricVerdict>& rows) {
  for (const Metric& m : c.metrics) rows.push_back(missing_row(suite, c.name, m, reason, side));
}

const SuiteResult* find_suite(const RunReport& r, const std::string& name) {
  for (const SuiteResult& s : r.suites) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const Case* find_case(const SuiteResult& s, const std::string& name) {
  for (const Case& c : s.cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

SuiteVerdict missing_suite(const SuiteResult& s, const std::string& reason, Side side) {
  SuiteVerdict v{.suite = s.name, .verdict = Verdict::kMissing, .reason = reason};
  v.gated = side == Side::kBaselineOnly;
  for (const Case& c : s.cases) missing_case(s.name, c, reason, side, v.metrics);
  return v;
}

void compare_cases(const SuiteResult& bs, const SuiteResult& cs, const Policy& policy,
                   SuiteVerdict& out) {
  for (const Case& bc : bs.cases) {
    const Case* cc = find_case(cs, bc.name);
    if (cc == nullptr) {
      missing_case(bs.name, bc, "case absent in current", Side::kBaselineOnly, out.metrics);
      continue;
    }
    for (const Metric& bm : bc.metrics) {
      const Metric* cm = cc->find(bm.name);
      out.metrics.push_back(
          cm == nullptr
              ? missing_row(bs.name, bc.name, bm, "metric absent in current", Side::kBaselineOnly)
              : compare_metric(bs.name, bc.name, bm, *cm, policy));
    }
    for (const Metric& cm : cc->metrics) {
      if (bc.find(cm.name) == nullptr) {
        out.metrics.push_back(
            missing_row(bs.name, bc.name, cm, "new in current; no baseline", Side::kCurrentOnly));
      }
    }
  }
  for (const Case& cc : cs.cases) {
    if (find_case(bs, cc.name) == nullptr) {
      missing_case(bs.name, cc, "case new in current; no baseline", Side::kCurrentOnly,
                   out.metrics);
    }
  }
}

// User-space RT threads of other processes that ran during the run ("" when none): interference
// from outside the system under test, so a regression there cannot be attributed to it. Kernel
// threads are the system under test; steal time and missed periods stay notes.
std::string foreign_rt_threads(const Hygiene& h) {
  std::string out;
  for (const ForeignRtThread& t : h.foreign_rt_threads) {
    if (t.kernel_thread) continue;
    out += (out.empty() ? "'" : ", '") + t.comm + "' (pid " + std::to_string(t.pid) + ", " +
           t.policy + " " + std::to_string(t.priority) + ")";
  }
  return out;
}

bool over_budget(const MetricVerdict& m) {
  for (const Evidence& e : m.evidence) {
    if (e.test == "budget" && e.indicates == Verdict::kRegressed) return true;
  }
  return false;
}

SuiteVerdict compare_suite(const SuiteResult& bs, const SuiteResult& cs, const Policy& policy) {
  if (cs.status == SuiteStatus::kSkipped && bs.status == SuiteStatus::kSkipped) {
    return missing_suite(cs, "skipped in both: " + cs.reason, Side::kCurrentOnly);
  }
  if (cs.status == SuiteStatus::kSkipped) {
    return missing_suite(bs, "skipped in current: " + cs.reason, Side::kBaselineOnly);
  }
  if (bs.status == SuiteStatus::kSkipped) {
    return missing_suite(cs, "skipped in baseline: " + bs.reason, Side::kCurrentOnly);
  }
  SuiteVerdict out{.suite = bs.name};
  compare_cases(bs, cs, policy, out);
  if (!policy.allow_contaminated) {
    const std::string foreign = foreign_rt_threads(cs.hygiene);
    for (MetricVerdict& m : out.metrics) {
      if (foreign.empty() || m.verdict != Verdict::kRegressed || over_budget(m)) continue;
      m.verdict = Verdict::kInconclusive;
      m.reason = "would be regressed (" + m.reason +
                 "), but foreign RT threads ran during the current run: " + foreign;
    }
  }
  for (const MetricVerdict& m : out.metrics) {
    if (m.gated) out.verdict = worst(out.verdict, m.verdict);
  }
  if (cs.status == SuiteStatus::kFailed || cs.status == SuiteStatus::kError) {
    out.verdict = Verdict::kRegressed;
    out.reason = std::string(to_string(cs.status)) + " in current: " + cs.reason;
  }
  if (bs.status != cs.status) {
    out.notes.push_back(std::string("status ") + to_string(bs.status) + " -> " +
                        to_string(cs.status));
  }
  for (const auto& [side, s] : {std::pair{"baseline", &bs}, std::pair{"current", &cs}}) {
    if (!s->contaminated) continue;
    std::string why;
    for (const std::string& r : s->contaminated_reasons) why += (why.empty() ? "" : "; ") + r;
    out.notes.push_back(std::string(side) + " run contaminated: " + why);
  }
  return out;
}

// The metrics compare() will judge: on both sides, in suites neither side skipped, gated.
int count_judged(const RunReport& base, const RunReport& cur, const Policy& policy) {
  int n = 0;
  for (const SuiteResult& bs : base.suites) {
    const SuiteResult* cs = find_suite(cur, bs.name);
    if (cs == nullptr || bs.status == SuiteStatus::kSkipped ||
        cs->status == SuiteStatus::kSkipped) {
      continue;
    }
    for (const Case& bc : bs.cases) {
      const Case* cc = find_case(*cs, bc.name);
      if (cc == nullptr) continue;
      for (const Metric& bm : bc.metrics) {
        const Metric* cm = cc->find(bm.name);
        if (cm != nullptr && resolve(policy, bs.name, bc.name, bm.name, cm->kind).gated) ++n;
      }
    }
  }
  return n;
}

}  // namespace

MetricVerdict compare_metric(const std::string& suite, const std::string& case_name,
                             const Metric& base, const Metric& cur, const Policy& policy) {
  MetricVerdict v = identity(suite, case_name, cur);
  const MetricPolicy mp = resolve(policy, suite, case_name, cur.name, cur.kind);
  v.gated = mp.gated;
  if (base.kind != cur.kind) {
    v.verdict = Verdict::kInconclusive;
    v.reason = std::string("kind differs: ") + to_string(base.kind) + " -> " + to_string(cur.kind);
    return v;
  }
  if (cur.kind == MetricKind::kLatency) {
    judge_latency(base, cur, mp, v);
  } else {
    judge_samples(base, cur, mp, v);
  }
  if (!v.gated) {
    v.verdict = Verdict::kUnchanged;
    v.evidence.clear();
    v.reason = cur.kind == MetricKind::kCount
                   ? "count metric, reported only (gate: true in the policy gates it)"
                   : "not gated (gate: false in the policy)";
  }
  return v;
}

GateReport compare(const RunReport& base, const RunReport& cur, const Policy& given) {
  GateReport g;
  Policy policy = given;
  policy.judged_metrics = std::max(1, count_judged(base, cur, given));
  g.judged_metrics = policy.judged_metrics;
  g.alpha = policy.alpha;
  g.metric_alpha =
      policy.alpha_scope == AlphaScope::kGate ? policy.alpha / policy.judged_metrics : policy.alpha;
  const EnvironmentDiff env = diff_environments(base.environment, cur.environment);
  g.environment_differences = env.differences;
  g.environment_mismatch = env.mismatch && !policy.allow_env_mismatch;

  for (const SuiteResult& bs : base.suites) {
    const SuiteResult* cs = find_suite(cur, bs.name);
    g.suites.push_back(cs == nullptr
                           ? missing_suite(bs, "suite absent in current", Side::kBaselineOnly)
                           : compare_suite(bs, *cs, policy));
  }
  for (const SuiteResult& cs : cur.suites) {
    if (find_suite(base, cs.name) == nullptr) {
      g.suites.push_back(
          missing_suite(cs, "suite new in current; no baseline", Side::kCurrentOnly));
    }
  }
  for (const SuiteVerdict& s : g.suites) {
    if (s.gated) g.overall = worst(g.overall, s.verdict);
  }
  if (g.environment_mismatch) g.overall = Verdict::kInconclusive;
  return g;
}

}  // namespace rtgate::gate
