#include "gate/pair/compare.h"

#include <algorithm>
#include <cmath>

#include "base/stats/holm.h"
#include "gate/cause/cause_evidence.h"
#include "gate/model/format.h"
#include "gate/noise/comparability.h"
#include "gate/noise/environment_diff.h"
#include "gate/noise/steal_matching.h"
#include "gate/pair/metric_judge.h"
#include "gate/pair/pending_metrics.h"
#include "gate/pair/worst_case.h"

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

// What the baseline had and current lacks counts (as missing: never green); what only current
// has has no baseline to be judged against and is reported only (gated = false).
enum class Side { kBaselineOnly, kCurrentOnly };

MetricVerdict missing_row(const std::string& suite, const std::string& case_name, const Metric& m,
                          std::string reason, Side side) {
  MetricVerdict v = identity(suite, case_name, m);
  v.verdict = Verdict::kMissing;
  v.reason = std::move(reason);
  v.gated = side == Side::kBaselineOnly;
  return v;
}

void missing_case(const std::string& suite, const Case& c, const std::string& reason, Side side,
                  std::vector<MetricVerdict>& rows) {
  for (const Metric& m : c.metrics) rows.push_back(missing_row(suite, c.name, m, reason, side));
}

SuiteVerdict missing_suite(const SuiteResult& s, const std::string& reason, Side side) {
  SuiteVerdict v{.suite = s.name, .verdict = Verdict::kMissing, .reason = reason};
  v.gated = side == Side::kBaselineOnly;
  for (const Case& c : s.cases) missing_case(s.name, c, reason, side, v.metrics);
  return v;
}

void pair_cases(const SuiteResult& bs, const SuiteResult& cs, const Policy& policy,
                std::size_t suite_index, SuiteVerdict& out, std::vector<Pending>& pending) {
  const CaseIndex base_cases(&bs), cur_cases(&cs);
  for (const Case& bc : bs.cases) {
    const Case* cc = cur_cases.find(bc.name);
    if (cc == nullptr) {
      missing_case(bs.name, bc, "case absent in current", Side::kBaselineOnly, out.metrics);
      continue;
    }
    for (const Metric& bm : bc.metrics) {
      const Metric* cm = cc->find(bm.name);
      if (cm == nullptr) {
        out.metrics.push_back(
            missing_row(bs.name, bc.name, bm, "metric absent in current", Side::kBaselineOnly));
        continue;
      }
      MetricVerdict v = identity(bs.name, bc.name, *cm);
      const MetricPolicy mp = resolve(policy, bs.name, bc.name, cm->name, cm->gated_by_default());
      v.gated = mp.gated;
      if (bm.kind != cm->kind) {
        v.verdict = Verdict::kInconclusive;
        v.reason =
            std::string("kind differs: ") + to_string(bm.kind) + " -> " + to_string(cm->kind);
      } else {
        pending.push_back({suite_index, out.metrics.size(), &bm, cm, mp});
      }
      out.metrics.push_back(std::move(v));
    }
    for (const Metric& cm : cc->metrics) {
      if (bc.find(cm.name) == nullptr) {
        out.metrics.push_back(
            missing_row(bs.name, bc.name, cm, "new in current; no baseline", Side::kCurrentOnly));
      }
    }
  }
  for (const Case& cc : cs.cases) {
    if (base_cases.find(cc.name) == nullptr) {
      missing_case(bs.name, cc, "case new in current; no baseline", Side::kCurrentOnly,
                   out.metrics);
    }
  }
}

// Interference from outside the system under test, as the gate counts it: user-space RT threads
// of other processes and RT throttling. Missed periods are not on the list: they are what the
// kernel under test did, and they are gated as event counts. Host steal is not either: the gate
// weighs it run by run (steal_matching.h) instead of giving up on every verdict of the suite.
std::string interference(const SuiteResult& s) {
  std::string out;
  auto add = [&](const std::string& r) { out += (out.empty() ? "" : "; ") + r; };
  for (const ForeignRtThread& t : s.hygiene.foreign_rt_threads) {
    if (t.kernel_thread) continue;
    add("'" + t.comm + "' (pid " + std::to_string(t.pid) + ", " + t.policy + " " +
        std::to_string(t.priority) + ")");
  }
  if (s.hygiene.rt_throttled > 0) {
    add("RT throttling activated (" + std::to_string(s.hygiene.rt_throttled) + " events)");
  }
  return out;
}

// Makes every decided verdict of the suite inconclusive with `why`, except a budget's and the
// rows that are not gated.
void undecide(SuiteVerdict& s, const std::string& why) {
  for (MetricVerdict& m : s.metrics) {
    if (!m.gated || m.verdict == Verdict::kMissing || m.verdict == Verdict::kInconclusive ||
        m.decided_test == EvidenceTest::kBudget) {
      continue;
    }
    m.reason = "would be " + std::string(to_string(m.verdict)) + " (" + m.reason + "), but " + why;
    m.verdict = Verdict::kInconclusive;
  }
}

// Whether the steal its kept runs still differ by could explain row `m`'s verdict
// (steal_matching.h): the reason if so, "" if the change is beyond it.
std::string steal_explains(const MetricVerdict& m, const StealExcess& e) {
  const bool worse = m.verdict == Verdict::kRegressed;
  const double share = worse ? e.current : passes(m.verdict) ? e.baseline : 0;
  if (!m.gated || share <= 0 || m.decided_test == EvidenceTest::kBudget) return "";
  // "unchanged" and "not worse" may hide what steal did
  const bool decided = m.verdict != Verdict::kUnchanged && m.verdict != Verdict::kNotWorse;
  if (decided && (m.kind == MetricKind::kThroughput || m.kind == MetricKind::kDuration) &&
      std::abs(m.change_pct) / 100 > share) {
    return "";  // more than the stolen share of the run
  }
  if (decided && m.kind == MetricKind::kCount && e.period_ms > 0 &&
      std::abs(m.current - m.baseline) > share * e.run_ms / e.period_ms) {
    return "";  // more periods than the stolen time spans
  }
  return e.steal + "; the " + (worse ? "current" : "baseline") + " runs kept lost up to " +
         fmt::num(100 * share) + "% more of a run than the other side's";
}

// What weighing the host's steal did to the suite (steal_matching.h): the verdicts the steal
// still left between the kept runs could explain are inconclusive, and the notes say what was
// set aside.
void weigh_steal(const StealMatched& steal, SuiteVerdict& s) {
  if (!steal.applied) return;
  for (MetricVerdict& m : s.metrics) {
    const auto it = steal.excess.find({s.suite, m.case_name});
    if (it == steal.excess.end() || m.verdict == Verdict::kInconclusive ||
        m.verdict == Verdict::kMissing) {
      continue;
    }
    if (const std::string why = steal_explains(m, it->second); !why.empty()) {
      m.reason =
          "would be " + std::string(to_string(m.verdict)) + " (" + m.reason + "), but " + why;
      m.verdict = Verdict::kInconclusive;
    }
  }
  if (const auto it = steal.notes.find(s.suite); it != steal.notes.end()) {
    s.notes.insert(s.notes.end(), it->second.begin(), it->second.end());
  }
}

void finish_suite(const SuiteResult& bs, const SuiteResult& cs, const Policy& policy,
                  SuiteVerdict& out, std::vector<std::string>& incomparable) {
  std::vector<std::string> differ = suite_source_differences(bs, cs);
  for (std::string& d : suite_param_differences(bs, cs)) differ.push_back(std::move(d));
  for (std::string& d : suite_load_differences(bs, cs)) differ.push_back(std::move(d));
  if (!differ.empty()) {
    std::string why;
    for (const std::string& d : differ) why += (why.empty() ? "" : ", ") + d;
    incomparable.push_back(bs.name + ": " + why);
    if (!policy.allow_env_mismatch) undecide(out, "the suites ran with different settings: " + why);
    out.notes.push_back("settings differ: " + why);
  }
  if (!policy.allow_contaminated) {
    for (const auto& [side, s] : {std::pair{"baseline", &bs}, std::pair{"current", &cs}}) {
      const std::string why = interference(*s);
      if (!why.empty()) undecide(out, std::string("the ") + side + " run was disturbed: " + why);
    }
  }
  for (const MetricVerdict& m : out.metrics) {
    if (m.gated) out.verdict = worst(out.verdict, m.verdict);
  }
  if (cs.status == SuiteStatus::kFailed || cs.status == SuiteStatus::kError) {
    out.verdict = Verdict::kRegressed;
    out.reason = std::string(to_string(cs.status)) + " in current: " + cs.reason;
  } else if (cs.status == SuiteStatus::kInconclusive && out.verdict != Verdict::kRegressed) {
    // Not green and not red: what the suite checks could not be judged in current.
    out.verdict = Verdict::kInconclusive;
    out.reason = "inconclusive in current: " + cs.reason;
  }
  if (bs.status != cs.status) {
    out.notes.push_back(std::string("status ") + to_string(bs.status) + " -> " +
                        to_string(cs.status));
  }
  for (const auto& [side, s] : {std::pair{"baseline", &bs}, std::pair{"current", &cs}}) {
    if (!s->contaminated) continue;
    std::string why;
    for (const std::string& r : s->contaminated_reasons) why += (why.empty() ? "" : "; ") + r;
    out.notes.push_back(std::string(side) + " run flagged: " + why);
  }
}

// Holm's step-down (stats::holm) over the judged metrics in a family of `family` hypotheses
// (family >= the number of rows), or each metric at its own level when `per_metric` (a level an
// earlier look set, else alpha). Returns which rows were rejected; sets each row's level when
// `set_level`.
std::vector<bool> holm(const std::vector<MetricVerdict*>& rows, bool worse, int family,
                       double alpha, bool per_metric, bool set_level) {
  std::vector<double> p;
  for (const MetricVerdict* r : rows) p.push_back(worse ? r->p_worse : r->p_better);
  stats::HolmResult h = stats::holm(p, alpha, static_cast<std::size_t>(std::max(family, 0)));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (per_metric) {
      h.levels[i] = std::isnan(rows[i]->level) ? alpha : rows[i]->level;
      h.rejected[i] = p[i] <= h.levels[i];
    }
    if (set_level) rows[i]->level = h.levels[i];
  }
  return h.rejected;
}

void decide_all(GateVerdict& g, const Policy& policy) {
  std::vector<MetricVerdict*> rows;
  for (SuiteVerdict& s : g.suites) {
    for (MetricVerdict& m : s.metrics) {
      if (!std::isnan(m.p_worse)) rows.push_back(&m);
    }
  }
  std::vector<MetricVerdict*> gated;
  for (MetricVerdict* m : rows) {
    if (m->gated) gated.push_back(m);
  }
  const bool per_metric = policy.alpha_scope == AlphaScope::kMetric;
  const std::vector<bool> worse = holm(gated, true, g.family, g.look_alpha, per_metric, true);
  const std::vector<bool> better = holm(gated, false, g.family, g.look_alpha, per_metric, false);
  for (std::size_t i = 0; i < gated.size(); ++i) decide_metric(*gated[i], worse[i], better[i]);
  for (SuiteVerdict& s : g.suites) hold_for_case_counts(s);
  for (MetricVerdict* m : rows) {
    if (m->gated) continue;
    decide_metric(*m, false, false);
    m->reason = (m->kind == MetricKind::kCount
                     ? "count metric, reported only (gate: true in the policy gates it): "
                     : "not gated (gate: false in the policy): ") +
                m->reason;
  }
}

// The current case's trace analyses, as lines on each of its latency verdicts that did not come
// out unchanged: the cause arrives with the regression. Evidence only, after every verdict.
void attach_trace_evidence(GateVerdict& g, const RunReport& cur) {
  for (SuiteVerdict& sv : g.suites) {
    const SuiteResult* cs = cur.find(sv.suite);
    if (cs == nullptr) continue;
    const CaseIndex cases(cs);
    for (MetricVerdict& m : sv.metrics) {
      if (m.kind != MetricKind::kLatency || m.verdict == Verdict::kUnchanged) continue;
      const Case* c = cases.find(m.case_name);
      if (c == nullptr) continue;
      for (const trace::SampleAnalysis& a : c->analysis) {
        if (a.trigger != "threshold") m.trace.push_back(a.summary());
      }
    }
  }
}

std::string incompleteness(const RunReport& cur) {
  return cur.complete ? ""
                      : "the current result is incomplete (the run was interrupted or ended early)";
}

// The suites of both sides paired: a verdict per suite (missing, skipped or to be judged), the
// metrics to judge, and per verdict the pair of suites it judges (nulls for a missing one).
using SuitePairs = std::vector<std::pair<const SuiteResult*, const SuiteResult*>>;
SuitePairs pair_suites(const RunReport& base, const RunReport& cur, const Policy& policy,
                       GateVerdict& g, std::vector<Pending>& pending) {
  SuitePairs matched;
  for (const SuiteResult& bs : base.suites) {
    const SuiteResult* cs = cur.find(bs.name);
    if (cs == nullptr) {
      g.suites.push_back(missing_suite(bs, "suite absent in current", Side::kBaselineOnly));
    } else if (cs->status == SuiteStatus::kSkipped && bs.status == SuiteStatus::kSkipped) {
      g.suites.push_back(missing_suite(*cs, "skipped in both: " + cs->reason, Side::kCurrentOnly));
    } else if (cs->status == SuiteStatus::kSkipped) {
      g.suites.push_back(
          missing_suite(bs, "skipped in current: " + cs->reason, Side::kBaselineOnly));
    } else if (bs.status == SuiteStatus::kSkipped) {
      g.suites.push_back(
          missing_suite(*cs, "skipped in baseline: " + bs.reason, Side::kCurrentOnly));
    } else {
      g.suites.push_back(SuiteVerdict{.suite = bs.name});
      pair_cases(bs, *cs, policy, g.suites.size() - 1, g.suites.back(), pending);
      matched.emplace_back(&bs, cs);
      continue;
    }
    matched.emplace_back(nullptr, nullptr);
  }
  for (const SuiteResult& cs : cur.suites) {
    if (base.find(cs.name) == nullptr) {
      g.suites.push_back(
          missing_suite(cs, "suite new in current; no baseline", Side::kCurrentOnly));
    }
  }
  return matched;
}

// The overall verdict: the worst gated suite's, made inconclusive by differing environments or
// run options (unless a fact about current decided: a failed suite, a budget) or by an
// incomplete current result.
void decide_overall(const RunReport& base, const RunReport& cur, const Policy& policy,
                    GateVerdict& g) {
  const RunOptionsDiff options = run_option_differences(base, cur);
  for (const std::string& d : options.differences) g.incomparable.push_back("run options: " + d);
  const std::string incomplete = incompleteness(cur);
  if (!incomplete.empty()) g.incomparable.push_back(incomplete);

  bool hard = false;  // a fact about current that holds on any machine: failed, over budget
  for (const SuiteVerdict& s : g.suites) {
    if (!s.gated) continue;
    g.overall = worst(g.overall, s.verdict);
    hard = hard || (!s.reason.empty() && s.verdict == Verdict::kRegressed);
    for (const MetricVerdict& m : s.metrics) {
      hard = hard || (m.gated && m.decided_test == EvidenceTest::kBudget);
    }
  }
  const bool options_differ = !options.differences.empty() && !policy.allow_env_mismatch;
  if ((g.environment_mismatch || options_differ) && g.overall != Verdict::kMissing) {
    g.overall = hard ? Verdict::kRegressed : Verdict::kInconclusive;
  }
  if (!incomplete.empty()) g.overall = worst(g.overall, Verdict::kInconclusive);
}

}  // namespace

GateVerdict compare(const RunReport& base, const RunReport& cur, const Policy& policy) {
  NoiseModel noise;
  noise.set_environment(base.environment, cur.environment);
  return compare({&base}, cur, policy, noise);
}

GateVerdict compare(const std::vector<const RunReport*>& given_base, const RunReport& given_cur,
                    const Policy& given_policy, const NoiseModel& noise) {
  Policy policy = given_policy;
  if (!policy.gross_max_factor) {
    policy.gross_max_factor = default_gross_factor(
        noisier(board_class(given_base.front()->environment), board_class(given_cur.environment)));
  }
  const StealMatched steal = policy.allow_contaminated
                                 ? StealMatched{}
                                 : match_steal(given_base, given_cur, policy.max_steal_pct);
  std::vector<const RunReport*> base_sessions = given_base;
  if (steal.applied) {
    base_sessions.clear();
    for (const RunReport& b : steal.base) base_sessions.push_back(&b);
  }
  const RunReport& cur = steal.applied ? steal.cur : given_cur;
  const RunReport& base = *base_sessions.front();
  GateVerdict g;
  g.alpha = policy.alpha;
  g.looks = policy.looks;
  g.look_alpha = policy.alpha * policy.looks.share();
  const EnvironmentDiff env = diff_environments(base.environment, cur.environment);
  g.environment_differences = env.differences;
  g.environment_mismatch = env.mismatch && !policy.allow_env_mismatch;

  std::vector<Pending> pending;
  const SuitePairs matched = pair_suites(base, cur, policy, g, pending);
  for (const Pending& p : pending) g.judged_metrics += p.policy.gated ? 1 : 0;
  g.family =
      policy.alpha_scope == AlphaScope::kGate ? std::max(policy.family_size, g.judged_metrics) : 1;
  // Runs of the current session compared with runs of the same session (one process gating
  // itself, a simulation) share its offset: no session term.
  const bool one_session = base_sessions.size() == 1 && session_id(base) == session_id(cur);
  g.noise = one_session ? "one session: the runs are the replicates"
                        : noise.describe(static_cast<int>(base_sessions.size()));
  judge_pending(
      g, pending,
      {.levels = {.test = g.look_alpha / g.family, .eq = g.look_alpha, .robust = policy.alpha},
       .sessions = &base_sessions,
       .noise = &noise,
       .one_session = one_session,
       .per_metric_alpha = policy.alpha_scope == AlphaScope::kMetric,
       .look_share = policy.looks.share()});
  decide_all(g, policy);

  for (std::size_t i = 0; i < matched.size(); ++i) {
    if (matched[i].first != nullptr) {
      weigh_steal(steal, g.suites[i]);
      finish_suite(*matched[i].first, *matched[i].second, policy, g.suites[i], g.incomparable);
    }
  }
  decide_overall(base, cur, policy, g);
  attach_trace_evidence(g, cur);
  attach_cause_evidence(g, base_sessions, cur);
  return g;
}

}  // namespace rtgate::gate
