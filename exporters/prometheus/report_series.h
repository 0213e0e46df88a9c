// A RunReport as Prometheus metric families (prometheus-cpp's data model): the families and
// labels of METRICS.md (DESIGN.md "Prometheus"). The push, textfile and serve exporters all start
// here, so the three carry the same series.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/labels.h>
#include <prometheus/metric_family.h>

#include <memory>
#include <string>
#include <vector>

#include "exporters/prometheus/series_options.h"
#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate::prom {

// The "standard" bucket set: 1, 2, 5 .. 100 ms (+Inf is implicit). The default is "coarse"
// (series_options.h).
const std::vector<double>& latency_bucket_bounds();

// Where a result's series go as they are built: kept as data (ReportMetrics, for `serve`), or
// written out as text at once (report_text.h, for --textfile and --push, so that a 10,000-case
// result never holds its 580,000 series as objects).
class SeriesSink {
 public:
  virtual ~SeriesSink() = default;
  // The families come first, in exposition order, numbered from 0 (`f.metric` is empty).
  virtual void family(const prometheus::MetricFamily& f) = 0;
  // One series of family number `family`.
  virtual void series(std::size_t family, prometheus::ClientMetric&& m) = 0;
};

// The families and labels of METRICS.md for `report`, into `sink`: only the suite named
// `only_suite` when it is non-empty (one Pushgateway group). `gate` adds rtgate_verdict and
// rtgate_suite_verdict. `options` choose the histogram's buckets and per-case or per-suite series.
void build_series(const RunReport& report, const gate::GateVerdict* gate,
                  const std::string& only_suite, const SeriesOptions& options, SeriesSink& sink);

// One result's families as data, built without a prometheus-cpp Registry (at 10,000 cases its
// per-series objects cost more than the exposition). The quantile summary could not have come
// from the library's Summary anyway: a sliding window over observations, where rtgate's
// quantiles are exact and computed already.
class ReportMetrics : public prometheus::Collectable, public SeriesSink {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
  void family(const prometheus::MetricFamily& f) override { families.push_back(f); }
  void series(std::size_t family, prometheus::ClientMetric&& m) override {
    families[family].metric.push_back(std::move(m));
  }

  std::vector<prometheus::MetricFamily> families;  // in exposition order, empty ones included
};

// build_series() into a ReportMetrics.
std::shared_ptr<ReportMetrics> build_metrics(const RunReport& report,
                                             const gate::GateVerdict* gate = nullptr,
                                             const std::string& only_suite = "",
                                             const SeriesOptions& options = {});

// A valid Prometheus label name for a case label: invalid characters become '_', and names
// taken by rtgate's own labels (host, suite, le, quantile, ...) get a "case_" prefix.
std::string case_label_name(const std::string& key);

// The classic-bucket increments (bounds.size() + 1, the last for +Inf) of a latency histogram:
// each fine bucket counts in the first classic bucket that certainly holds all of it.
std::vector<double> classic_bucket_counts(const LatencyHistogram& h,
                                          const std::vector<double>& bounds_s);

}  // namespace rtgate::prom
