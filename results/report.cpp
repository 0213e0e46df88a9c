#include "results/report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "base/stats/summary.h"

namespace rtgate {

const char* to_string(MetricKind kind) {
  switch (kind) {
    case MetricKind::kLatency:
      return "latency";
    case MetricKind::kThroughput:
      return "throughput";
    case MetricKind::kDuration:
      return "duration";
    case MetricKind::kCount:
      return "count";
  }
  return "?";
}

const char* to_string(Better better) { return better == Better::kLower ? "lower" : "higher"; }

const char* to_string(SuiteStatus status) {
  switch (status) {
    case SuiteStatus::kPassed:
      return "passed";
    case SuiteStatus::kFailed:
      return "failed";
    case SuiteStatus::kSkipped:
      return "skipped";
    case SuiteStatus::kError:
      return "error";
    case SuiteStatus::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

std::optional<MetricKind> metric_kind_from(const std::string& s) {
  for (auto k :
       {MetricKind::kLatency, MetricKind::kThroughput, MetricKind::kDuration, MetricKind::kCount}) {
    if (s == to_string(k)) return k;
  }
  return std::nullopt;
}

std::optional<Better> better_from(const std::string& s) {
  if (s == "lower") return Better::kLower;
  if (s == "higher") return Better::kHigher;
  return std::nullopt;
}

std::optional<SuiteStatus> suite_status_from(const std::string& s) {
  for (auto st : {SuiteStatus::kPassed, SuiteStatus::kFailed, SuiteStatus::kSkipped,
                  SuiteStatus::kError, SuiteStatus::kInconclusive}) {
    if (s == to_string(st)) return st;
  }
  return std::nullopt;
}

LatencySummary LatencySummary::of(const LatencyHistogram& h) {
  LatencySummary s;
  s.count = h.count();
  s.min = h.min();
  s.mean = h.mean();
  s.stddev = h.stddev();
  s.p50 = h.quantile(0.50);
  s.p90 = h.quantile(0.90);
  s.p99 = h.quantile(0.99);
  s.p999 = h.quantile(0.999);
  s.p9999 = h.quantile(0.9999);
  s.max = h.max();
  s.overflow = h.overflow();
  return s;
}

SampleSummary SampleSummary::of(const std::vector<double>& samples) {
  SampleSummary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  s.hmean = stats::hmean(samples);
  s.amean = stats::amean(samples);
  s.stddev = stats::stddev(samples);
  s.cv = stats::coeff_var(samples);
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

Metric Metric::latency(std::string name, LatencyHistogram h, std::vector<double> block_maxima) {
  Metric m;
  m.name = std::move(name);
  m.kind = MetricKind::kLatency;
  m.unit = "ns";
  m.better = Better::kLower;
  m.samples = std::move(block_maxima);
  m.runs.push_back(LatencySummary::of(h));
  m.histogram = std::move(h);
  return m;
}

Metric Metric::throughput(std::string name, std::string unit, double value) {
  Metric m;
  m.name = std::move(name);
  m.kind = MetricKind::kThroughput;
  m.unit = std::move(unit);
  m.better = Better::kHigher;
  m.samples = {value};
  return m;
}

Metric::Gating Metric::gating_of_legacy_unit(const std::string& unit) {
  return unit == "events" || unit == "periods" || unit == "wakeups" ? Gating::kEventRate
                                                                    : Gating::kReported;
}

Metric Metric::count(std::string name, double value, std::string unit, Gating gating) {
  Metric m;
  m.name = std::move(name);
  m.kind = MetricKind::kCount;
  m.unit = std::move(unit);
  m.gating = gating;
  m.better = Better::kLower;
  m.samples = {value};
  return m;
}

void Metric::merge(const Metric& other) {
  add_unique(unknown_quantiles, other.unknown_quantiles);
  samples.insert(samples.end(), other.samples.begin(), other.samples.end());
  runs.insert(runs.end(), other.runs.begin(), other.runs.end());
  if (other.histogram) {
    if (histogram) {
      histogram->merge(*other.histogram);
    } else {
      histogram = other.histogram;
    }
  }
}

Metric* Case::find(const std::string& metric_name) {
  for (Metric& m : metrics) {
    if (m.name == metric_name) return &m;
  }
  return nullptr;
}

const Metric* Case::find(const std::string& metric_name) const {
  return const_cast<Case*>(this)->find(metric_name);
}

SuiteResult SuiteResult::ended(SuiteStatus status, std::string reason) {
  SuiteResult r;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

SuiteResult* RunReport::find(const std::string& suite_name) {
  for (SuiteResult& s : suites) {
    if (s.name == suite_name) return &s;
  }
  return nullptr;
}

const SuiteResult* RunReport::find(const std::string& suite_name) const {
  return const_cast<RunReport*>(this)->find(suite_name);
}

Case* SuiteResult::find(const std::string& case_name) {
  for (Case& c : cases) {
    if (c.name == case_name) return &c;
  }
  return nullptr;
}

const Case* SuiteResult::find(const std::string& case_name) const {
  return const_cast<SuiteResult*>(this)->find(case_name);
}

CaseIndex::CaseIndex(const SuiteResult* suite) {
  if (suite == nullptr) return;
  by_name_.reserve(suite->cases.size());
  for (const Case& c : suite->cases) by_name_.emplace(c.name, &c);  // the first of a name stays
}

const Case* CaseIndex::find(const std::string& case_name) const {
  const auto it = by_name_.find(case_name);
  return it == by_name_.end() ? nullptr : it->second;
}

void merge_analyses(std::vector<trace::SampleAnalysis>& into,
                    const std::vector<trace::SampleAnalysis>& from) {
  // "worst" and "break" are one kind, "guest_worst" another, ranked by its guest latency.
  const auto kind = [](const trace::SampleAnalysis& x) {
    return x.trigger == "threshold" ? 0 : x.trigger == "guest_worst" ? 2 : 1;
  };
  const auto rank = [&](const trace::SampleAnalysis& x) {
    return kind(x) == 2 ? x.guest_latency_ns() : x.latency_ns;
  };
  for (const trace::SampleAnalysis& a : from) {
    if (kind(a) != 0) {
      auto same = [&](const trace::SampleAnalysis& x) {
        return x.cpu == a.cpu && x.thread == a.thread && kind(x) == kind(a);
      };
      auto it = std::find_if(into.begin(), into.end(), same);
      if (it == into.end()) {
        into.push_back(a);
      } else if (rank(a) > rank(*it)) {
        *it = a;
      }
      continue;
    }
    const auto crossings = std::count_if(into.begin(), into.end(), [&](const auto& x) {
      return x.cpu == a.cpu && x.trigger == "threshold";
    });
    if (static_cast<std::size_t>(crossings) < kMaxCrossings) into.push_back(a);
  }
}

void add_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const std::string& s : from) {
    if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
  }
}

void TraceRecord::merge(const TraceRecord& o) {
  if (unavailable.empty()) unavailable = o.unavailable;
  if (break_reason.empty()) break_reason = o.break_reason;
  if (runs == 0) {
    threshold_ns = o.threshold_ns;
    threshold_from = o.threshold_from;
  } else if (o.runs > 0 && threshold_ns != o.threshold_ns) {
    threshold_ns = -1;  // runs with different thresholds: their profiles are not comparable
  }
  runs += o.runs;
  events += o.events;
  lost += o.lost;
  markers += o.markers;
  crossings_not_analysed += o.crossings_not_analysed;
  add_unique(missing_events, o.missing_events);
  merge_analyses(analysis, o.analysis);
  locks.merge(o.locks);
  if (steal_source.empty()) steal_source = o.steal_source;
  for (const auto& [cpu, per_run] : o.cfs_while_rt_runnable_ms) {
    auto& mine = cfs_while_rt_runnable_ms[cpu];
    mine.insert(mine.end(), per_run.begin(), per_run.end());
  }
}

void SuiteResult::merge_run(const SuiteResult& run) {
  loads.insert(loads.end(), run.loads.begin(), run.loads.end());
  if (run.trace) {
    if (!trace) trace.emplace();
    trace->merge(*run.trace);
  }
  for (const Case& rc : run.cases) {
    Case* mine = find(rc.name);
    if (mine == nullptr) {
      cases.push_back(rc);
      continue;
    }
    merge_analyses(mine->analysis, rc.analysis);
    if (rc.causes) {
      if (!mine->causes) mine->causes.emplace();
      mine->causes->merge(*rc.causes);
    }
    for (const Metric& rm : rc.metrics) {
      if (Metric* m = mine->find(rm.name)) {
        m->merge(rm);
      } else {
        mine->metrics.push_back(rm);
      }
    }
  }
}

void SuiteResult::absorb(const SuiteResult& later) {
  merge_run(later);
  runs += later.runs;
  duration_s += later.duration_s;
  merge_hygiene(hygiene, later.hygiene);
  contaminated = contaminated || later.contaminated;
  add_unique(contaminated_reasons, later.contaminated_reasons);
  const auto rank = [](SuiteStatus st) {
    return st == SuiteStatus::kError          ? 4
           : st == SuiteStatus::kFailed       ? 3
           : st == SuiteStatus::kInconclusive ? 2
           : st == SuiteStatus::kSkipped      ? 1
                                              : 0;
  };
  if (rank(later.status) > rank(status)) {
    status = later.status;
    reason = later.reason;
  }
}

std::string rfc3339_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace rtgate
