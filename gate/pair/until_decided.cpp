#include "gate/pair/until_decided.h"

#include <algorithm>
#include <cstdio>

#include "gate/model/format.h"

namespace rtgate {
namespace {

std::string duration_text(double s) {
  char buf[32];
  if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  }
  return buf;
}

// "suite/case/metric (p99.9 per run x1.04 [0.93, 1.17])" for each open gated metric.
std::string open_list(const gate::GateVerdict& g, std::size_t limit = 6) {
  std::string out;
  std::size_t n = 0, total = 0;
  for (const gate::SuiteVerdict& s : g.suites) {
    for (const gate::MetricVerdict& m : s.metrics) {
      if (!m.gated ||
          (m.verdict != gate::Verdict::kInconclusive && m.verdict != gate::Verdict::kMissing)) {
        continue;
      }
      ++total;
      if (n++ >= limit) continue;
      out += (out.empty() ? "" : ", ") + m.suite + "/" + m.case_name + "/" + m.metric + " (" +
             (m.verdict == gate::Verdict::kMissing ? std::string("missing")
                                                   : m.decided_by + " " + gate::fmt::effect(m)) +
             ")";
    }
  }
  if (total > limit) out += " and " + std::to_string(total - limit) + " more";
  return out;
}

// The seconds one more run of each of `suites` is expected to take: each suite's mean run time.
double round_estimate(const RunReport& r, const std::vector<std::string>& suites) {
  double s = 0;
  for (const SuiteResult& res : r.suites) {
    if (std::find(suites.begin(), suites.end(), res.name) != suites.end() && res.runs > 0) {
      s += res.duration_s / res.runs;
    }
  }
  return s;
}

}  // namespace

UntilDecidedOutcome run_until_decided(const JudgeFn& judge, gate::Policy policy,
                                      const UntilDecided& u, RunReport& report,
                                      const RunRoundFn& run_round, const UntilDecidedHooks& hooks) {
  UntilDecidedOutcome out;
  const int first = u.first_runs;
  const int max_runs = std::max(u.max_runs, first);
  for (int runs = first;; ++runs) {
    policy.looks = {.first = first, .runs = runs, .max = max_runs};
    out.gate = judge(report, policy);
    const std::vector<std::string> open = out.gate.open_suites();
    if (out.gate.overall == gate::Verdict::kRegressed) {
      out.stopped = "regressed at " + std::to_string(runs) + " runs";
      break;
    }
    if (open.empty()) {
      out.stopped = "every gated metric decided at " + std::to_string(runs) + " runs";
      break;
    }
    if (runs >= max_runs) {
      out.stopped =
          "--max-runs " + std::to_string(max_runs) + " reached; still open: " + open_list(out.gate);
      break;
    }
    const double estimate = round_estimate(report, open);
    if (u.budget_s > 0 && u.elapsed_s() + estimate > u.budget_s) {
      out.stopped = "--budget " + duration_text(u.budget_s) + ": another run (about " +
                    duration_text(estimate) + ") would not fit after " +
                    duration_text(u.elapsed_s()) + "; still open: " + open_list(out.gate);
      break;
    }
    if (hooks.progress) {
      hooks.progress(
          "until-decided: " + std::to_string(runs) + " runs, " + std::to_string(open.size()) +
          " suite(s) open: " + open_list(out.gate) +
          (u.budget_s > 0 ? "; " + duration_text(u.budget_s - u.elapsed_s()) + " left" : ""));
    }
    Round round = run_round(open);
    for (const SuiteResult& s : round.report.suites) {
      if (SuiteResult* mine = report.find(s.name)) mine->absorb(s);
    }
    for (const auto& [k, v] : round.report.environment.extra) {
      report.environment.extra.emplace(k, v);
    }
    report.finished_at = round.report.finished_at;
    if (hooks.save) hooks.save(report);
    if (round.interrupted || round.abandoned) {
      out.interrupted = round.interrupted;
      out.abandoned = round.abandoned;
      report.complete = false;
      out.stopped = round.interrupted ? "interrupted" : "a suite was abandoned";
      out.gate = judge(report, policy);
      break;
    }
  }
  return out;
}

}  // namespace rtgate
