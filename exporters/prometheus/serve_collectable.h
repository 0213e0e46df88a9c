// What `rtgate serve` exposes at /metrics: the latest result's families (report_series.h),
// plus live gauges read from the running suite's tracked counters at scrape time (samples so far
// and max so far per measuring thread), whether a run is in progress, and a run counter.
//
// Scrapes run on the HTTP server's threads (SCHED_OTHER). They read the measuring threads'
// LiveStats with relaxed loads and take only the run context's registration lock, which RT threads
// never take once measuring; so a scrape cannot block an RT thread.
#pragma once

#include <prometheus/collectable.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/env/environment.h"
#include "framework/measure/run_context.h"

namespace rtgate::prom {

class ServeCollectable : public prometheus::Collectable {
 public:
  explicit ServeCollectable(const Environment& env);

  // The latest finished result (replaces the previous one).
  void set_result(std::shared_ptr<prometheus::Collectable> latest);
  // The runner's on_run hook: a run of `suite` starts (ctx) or ends (nullptr).
  void on_run(const std::string& suite, RunContext* ctx);
  void count_run();

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::string host_, kernel_release_;
  mutable std::mutex mutex_;
  std::shared_ptr<prometheus::Collectable> latest_;
  std::string suite_;
  RunContext* ctx_ = nullptr;
  std::uint64_t runs_ = 0;
};

}  // namespace rtgate::prom
