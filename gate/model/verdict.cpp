#include "gate/model/verdict.h"

#include "base/exit_codes.h"

namespace rtgate::gate {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kImproved:
      return "improved";
    case Verdict::kUnchanged:
      return "unchanged";
    case Verdict::kNotWorse:
      return "not_worse";
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kMissing:
      return "missing";
  }
  return "?";
}

const char* to_string(EvidenceTest test) {
  switch (test) {
    case EvidenceTest::kRunQuantile:
      return "run_quantile";
    case EvidenceTest::kRunMax:
      return "run_max";
    case EvidenceTest::kRunValue:
      return "run_value";
    case EvidenceTest::kEventRate:
      return "event_rate";
    case EvidenceTest::kBudget:
      return "budget";
    case EvidenceTest::kZeroRuns:
      return "zero_runs";
    case EvidenceTest::kWorstMax:
      return "worst_max";
    case EvidenceTest::kNotComparable:
      return "not_comparable";
    case EvidenceTest::kBaselineCv:
      return "baseline_cv";
    case EvidenceTest::kGross:
      return "gross";
  }
  return "?";
}

std::optional<Verdict> verdict_from(const std::string& s) {
  for (auto v : {Verdict::kImproved, Verdict::kUnchanged, Verdict::kNotWorse, Verdict::kRegressed,
                 Verdict::kInconclusive, Verdict::kMissing}) {
    if (s == to_string(v)) return v;
  }
  return std::nullopt;
}

int severity(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUnchanged:
      return 0;
    case Verdict::kImproved:
      return 1;
    case Verdict::kNotWorse:
      return 2;
    case Verdict::kInconclusive:
      return 3;
    case Verdict::kMissing:
      return 4;
    case Verdict::kRegressed:
      return 5;
  }
  return 0;
}

Verdict worst(Verdict a, Verdict b) { return severity(b) > severity(a) ? b : a; }

bool passes(Verdict verdict) {
  return verdict == Verdict::kUnchanged || verdict == Verdict::kNotWorse ||
         verdict == Verdict::kImproved;
}

int exit_code(const GateVerdict& report, bool fail_on_inconclusive) {
  switch (report.overall) {
    case Verdict::kRegressed:
      return kExitFailed;
    case Verdict::kInconclusive:
    case Verdict::kMissing:
      return fail_on_inconclusive ? kExitFailed : kExitInconclusive;
    default:
      return kExitOk;
  }
}

std::vector<std::string> GateVerdict::open_metrics() const {
  std::vector<std::string> out;
  for (const SuiteVerdict& s : suites) {
    for (const MetricVerdict& m : s.metrics) {
      if (m.gated && (m.verdict == Verdict::kInconclusive || m.verdict == Verdict::kMissing)) {
        out.push_back(m.suite + "/" + m.case_name + "/" + m.metric);
      }
    }
  }
  return out;
}

std::vector<std::string> GateVerdict::open_suites() const {
  std::vector<std::string> out;
  for (const SuiteVerdict& s : suites) {
    if (!s.gated) continue;
    bool open = s.verdict == Verdict::kInconclusive || s.verdict == Verdict::kMissing;
    for (const MetricVerdict& m : s.metrics) {
      open = open ||
             (m.gated && (m.verdict == Verdict::kInconclusive || m.verdict == Verdict::kMissing));
    }
    if (open) out.push_back(s.suite);
  }
  return out;
}

}  // namespace rtgate::gate
