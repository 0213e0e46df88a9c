#include "framework/trace/cause_profile.h"

#include <cctype>

namespace rtgate::trace {

std::string comm_pattern(const std::string& comm) {
  std::string out;
  for (std::size_t i = 0; i < comm.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(comm[i])) == 0) {
      out += comm[i];
    } else if (out.empty() || out.back() != '*') {
      out += '*';
    }
  }
  return out;
}

std::string cause_class(const AnalysisPart& part) {
  if (part.kind == "task") {
    std::string c = "task " + comm_pattern(part.name) + " (" + part.policy;
    // A SCHED_OTHER task's "priority" is its nice value, worth naming only when set.
    const bool rt = part.policy != "SCHED_OTHER" && part.policy != "SCHED_BATCH" &&
                    part.policy != "SCHED_IDLE" && !part.policy.empty();
    if (rt || part.prio != 0) c += (part.policy.empty() ? "" : " ") + std::to_string(part.prio);
    return c + ")";
  }
  if (part.kind == "idle") return "idle exit";
  if (part.kind == "host" || part.kind == "self" || part.kind == "untraced") return part.kind;
  return part.kind + " " + part.name;
}

bool CauseProfileBuilder::counts(const SampleAnalysis& a) const {
  return a.latency_ns > 0 && a.latency_ns >= threshold_ns_;
}

void CauseProfileBuilder::add(const SampleAnalysis& a) {
  if (!counts(a)) return;
  // Parts of one class (two kworkers of a pattern, a handler that ran twice) count once.
  std::map<std::string, std::int64_t> by_class;
  for (const AnalysisPart& p : a.parts) by_class[cause_class(p)] += p.ns;
  std::map<std::string, std::uint64_t>& slice = slices_[a.deadline_ns / kSliceNs];
  ++samples_;
  ns_ += a.latency_ns;
  for (const auto& [name, ns] : by_class) {
    CauseStats& c = causes_[name];
    c.ns += ns;
    if (static_cast<double>(ns) >= kPresentShare * static_cast<double>(a.latency_ns)) {
      ++c.samples;
      ++slice[name];
    }
  }
}

CauseProfile CauseProfileBuilder::result() const {
  CauseProfile p;
  p.threshold_ns = threshold_ns_;
  p.samples = samples_;
  p.not_analysed = not_analysed_;
  p.ns = ns_;
  // The span, empty slices within it included: a class absent from most of the run and
  // crowded into one slice is a burst, and the empty slices are what shows it.
  p.slices = slices_.empty() ? 0 : slices_.rbegin()->first - slices_.begin()->first + 1;
  p.causes = causes_;
  for (const auto& [index, slice] : slices_) {
    for (const auto& [name, x] : slice) {
      const auto xd = static_cast<double>(x);
      p.causes[name].slice_sq += xd * xd;
    }
  }
  return p;
}

}  // namespace rtgate::trace
