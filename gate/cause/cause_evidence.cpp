#include "gate/cause/cause_evidence.h"

#include "gate/cause/lock_compare.h"
#include "gate/noise/session_noise.h"

namespace rtgate::gate {
namespace {

// The baseline sessions' profiles of one case, pooled, and the samples they measured.
struct Pooled {
  std::optional<trace::CauseProfile> profile;
  double measured = 0;
};

Pooled pool(const std::vector<const RunReport*>& sessions, const std::string& suite,
            const std::string& case_name) {
  Pooled p;
  for (const RunReport* r : sessions) {
    const SuiteResult* s = r->find(suite);
    const Case* c = s == nullptr ? nullptr : s->find(case_name);
    if (c == nullptr || !c->causes) continue;
    if (!p.profile) p.profile.emplace();
    p.profile->merge(*c->causes);
    p.measured += measured_samples(*c);
  }
  return p;
}

std::optional<trace::LockContention> pooled_locks(const std::vector<const RunReport*>& sessions,
                                                  const std::string& suite) {
  std::optional<trace::LockContention> out;
  for (const RunReport* r : sessions) {
    const SuiteResult* s = r->find(suite);
    if (s == nullptr || !s->trace || !s->trace->locks.traced) continue;
    if (!out) out.emplace();
    out->merge(s->trace->locks);
  }
  return out;
}

void name_leading_cause(SuiteVerdict& sv, const CauseComparison& c) {
  const std::string headline = c.headline();
  if (headline.empty()) return;
  for (MetricVerdict& m : sv.metrics) {
    if (m.case_name == c.case_name && m.kind == MetricKind::kLatency &&
        m.verdict == Verdict::kRegressed) {
      m.reason += "; " + headline;
    }
  }
}

}  // namespace

void attach_cause_evidence(GateVerdict& g, const std::vector<const RunReport*>& base_sessions,
                           const RunReport& cur) {
  if (base_sessions.empty()) return;
  const bool two_sessions =
      base_sessions.size() > 1 || session_id(*base_sessions.front()) != session_id(cur);
  for (SuiteVerdict& sv : g.suites) {
    const SuiteResult* cs = cur.find(sv.suite);
    if (cs == nullptr) continue;
    for (const Case& c : cs->cases) {
      const Pooled base = pool(base_sessions, sv.suite, c.name);
      if (!base.profile || !c.causes) continue;
      CauseComparison cmp = compare_causes(*base.profile, base.measured, *c.causes,
                                           measured_samples(c), g.alpha, two_sessions);
      cmp.suite = sv.suite;
      cmp.case_name = c.name;
      if (cs->trace) cmp.threshold_from = cs->trace->threshold_from;
      name_leading_cause(sv, cmp);
      g.causes.push_back(std::move(cmp));
    }
    const std::optional<trace::LockContention> base_locks = pooled_locks(base_sessions, sv.suite);
    if (base_locks && cs->trace && cs->trace->locks.traced) {
      CauseComparison locks{.suite = sv.suite};
      locks.locks = compare_locks(*base_locks, cs->trace->locks, g.alpha);
      g.causes.push_back(std::move(locks));
    }
  }
}

}  // namespace rtgate::gate
