// A RunReport as Prometheus metric families, in a prometheus-cpp Registry: the families and
// labels of METRICS.md (DESIGN.md "Prometheus"). The push, textfile and serve exporters all start
// here, so the three carry the same series.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>
#include <vector>

#include "exporters/prometheus/series_options.h"
#include "framework/gate/verdict.h"
#include "framework/report/report.h"

namespace rtgate::prom {

// The "standard" bucket set: 1, 2, 5 .. 100 ms (+Inf is implicit). The default is "coarse"
// (series_options.h).
const std::vector<double>& latency_bucket_bounds();

// One result's families: a prometheus-cpp Registry for the gauges and the histogram, plus the
// quantile summary, which the library's Summary (a sliding window over observations) cannot hold:
// rtgate's quantiles are exact and computed already, so that family is built as data.
class ReportMetrics : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;

  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::MetricFamily quantiles;
};

// The run's families; only the suite named `only_suite` when it is non-empty (one collectable
// per Pushgateway group). `gate` adds rtgate_verdict and rtgate_suite_verdict. `options` choose
// the histogram's buckets and per-case or per-suite series.
std::shared_ptr<ReportMetrics> build_metrics(const RunReport& report,
                                             const gate::GateReport* gate = nullptr,
                                             const std::string& only_suite = "",
                                             const SeriesOptions& options = {});

// A valid Prometheus label name for a case label: invalid characters become '_', and names
// taken by rtgate's own labels (host, suite, le, quantile, ...) get a "case_" prefix.
std::string case_label_name(const std::string& key);

// The classic-bucket increments (bounds.size() + 1, the last for +Inf) of a latency histogram:
// each fine bucket counts in the first classic bucket that certainly holds all of it.
std::vector<double> classic_bucket_counts(const LatencyHistogram& h,
                                          const std::vector<double>& bounds_s);

// The text exposition format (what /metrics serves and the textfile collector reads).
std::string to_text(const prometheus::Collectable& metrics);

}  // namespace rtgate::prom
