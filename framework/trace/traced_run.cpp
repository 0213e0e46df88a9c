#include "framework/trace/traced_run.h"

#include <cmath>

namespace rtgate::trace {
namespace {

std::int64_t to_ns(double us) { return static_cast<std::int64_t>(std::llround(us * 1e3)); }

// The case a sample belongs to: the one its suite named when it registered the sample's counter
// (RunContext::track, claim_trace).
Case* owner(SuiteResult& r, const std::string& thread,
            const std::map<std::string, std::string>& owners) {
  const auto named = owners.find(thread);
  if (named == owners.end()) return nullptr;
  for (Case& c : r.cases) {
    if (c.name == named->second) return &c;
  }
  return nullptr;
}

}  // namespace

TraceOptions TraceOptions::for_suite(const std::string& suite) const {
  TraceOptions o = *this;
  if (const auto it = chosen.find(suite); it != chosen.end()) {
    o.threshold_us = it->second.threshold_us;
    o.threshold_from = it->second.from;
  }
  return o;
}

std::string excerpt_file_name(const std::string& suite, int cpu) {
  return suite + ".cpu" + std::to_string(cpu) + ".txt";
}

std::unique_ptr<TracedRun> TracedRun::start(const TraceOptions& options,
                                            const std::vector<int>& cpus, std::atomic<bool>* stop,
                                            std::string* why) {
  std::unique_ptr<TracedRun> t(new TracedRun());
  t->options_ = options;
  TraceConfig config;
  config.cpus = cpus;
  config.buffer_kb = options.buffer_kb;
  config.lock_stacks = options.locks;
  t->session_ = TraceSession::start(config, why);
  if (!t->session_) return nullptr;
  CollectorOptions co;
  co.threshold_ns = to_ns(options.threshold_us);
  co.locks = options.locks;
  t->hook_ =
      std::make_unique<TraceHook>(*t->session_, co.threshold_ns, to_ns(options.break_us), stop);
  co.lower_mark_floor = [hook = t->hook_.get()](int cpu, std::int64_t ns) {
    hook->lower_mark_floor(cpu, ns);
  };
  t->collector_ = TraceCollector::start(*t->session_, std::move(co), why);
  if (!t->collector_) return nullptr;
  return t;
}

void TracedRun::finish(SuiteResult& result, const std::string& suite, int run_index,
                       const std::map<std::string, std::string>& owners) {
  session_->freeze();
  TraceFindings f = collector_->finish();
  TraceRecord rec;
  rec.runs = 1;
  rec.threshold_ns = to_ns(options_.threshold_us);
  rec.threshold_from = options_.threshold_from;
  rec.events = f.events;
  rec.lost = f.lost;
  rec.markers = f.markers;
  rec.crossings_not_analysed = f.crossings_not_analysed;
  rec.missing_events = session_->missing_events();
  rec.locks = std::move(f.contention);
  rec.steal_source = f.steal_source;
  for (const auto& [cpu, ns] : f.cfs_while_rt_runnable_ns) {
    rec.cfs_while_rt_runnable_ms[cpu].push_back(static_cast<double>(ns) / 1e6);
  }
  for (SampleAnalysis& a : f.analyses) {
    a.run = run_index;
    a.excerpt_file = excerpt_file_name(suite, a.cpu);
    if (Case* c = owner(result, a.thread, owners)) {
      c->analysis.push_back(std::move(a));
    } else {
      rec.analysis.push_back(std::move(a));
    }
  }
  for (const auto& [thread, profile] : f.profiles) {
    if (Case* c = owner(result, thread, owners)) {
      if (!c->causes) c->causes.emplace();
      c->causes->merge(profile);
    }
  }
  if (hook_->broke()) {
    result.status = SuiteStatus::kFailed;
    result.reason = hook_->break_reason();
    rec.break_reason = result.reason;
  }
  result.trace = std::move(rec);
}

}  // namespace rtgate::trace
