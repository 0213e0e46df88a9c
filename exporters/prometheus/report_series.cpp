#include "exporters/prometheus/report_series.h"

#include <array>
#include <cctype>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "base/text/rfc3339.h"
#include "gate/history/history.h"
#include "gate/noise/session_noise.h"

namespace rtgate::prom {
namespace {

using prometheus::Labels;

const std::set<std::string>& reserved_labels() {
  static const std::set<std::string> names = {
      "host",     "kernel_release", "suite",     "case",        "metric", "le",
      "quantile", "unit",           "status",    "verdict",     "job",    "instance",
      "version",  "preempt_model",  "statistic", "metric_kind", "better"};
  return names;
}

// Everything that names one metric of one case.
Labels metric_labels(const SuiteResult& s, const Case& c, const Metric& m) {
  Labels l = {{"suite", s.name}, {"case", c.name}, {"metric", m.name}};
  for (const auto& [k, v] : c.labels) l[case_label_name(k)] = v;
  return l;
}

prometheus::ClientMetric series(const Labels& constant, const Labels& labels) {
  prometheus::ClientMetric m;
  m.label.reserve(constant.size() + labels.size());
  for (const auto& [k, v] : constant) m.label.push_back({k, v});
  for (const auto& [k, v] : labels) m.label.push_back({k, v});
  return m;
}

// One family of the sink: each call adds a series (the calls read as prometheus-cpp's: a gauge's
// Set, a histogram's ObserveMultiple).
class Family {
 public:
  Family(SeriesSink& sink, std::size_t index, const prometheus::MetricFamily& f,
         const Labels& constant)
      : sink_(sink), index_(index), constant_(constant) {
    sink_.family(f);
  }

  void Set(const Labels& labels, double v) {
    prometheus::ClientMetric m = series(constant_, labels);
    m.gauge.value = v;
    sink_.series(index_, std::move(m));
  }
  // Bucket increments (bounds.size() + 1, the last for +Inf), made cumulative.
  void ObserveMultiple(const Labels& labels, const std::vector<double>& bounds,
                       const std::vector<double>& increments, double sum) {
    prometheus::ClientMetric m = series(constant_, labels);
    double total = 0;
    m.histogram.bucket.reserve(increments.size());
    for (std::size_t i = 0; i < increments.size(); ++i) {
      total += increments[i];
      m.histogram.bucket.push_back(
          {static_cast<std::uint64_t>(total),
           i < bounds.size() ? bounds[i] : std::numeric_limits<double>::infinity()});
    }
    m.histogram.sample_count = static_cast<std::uint64_t>(total);
    m.histogram.sample_sum = sum;
    sink_.series(index_, std::move(m));
  }
  // The exact quantiles, count and sum of a latency metric.
  void Quantiles(const Labels& labels, const LatencySummary& s) {
    prometheus::ClientMetric m = series(constant_, labels);
    m.summary.sample_count = s.count;
    m.summary.sample_sum = s.mean * static_cast<double>(s.count) / 1e9;
    for (const auto& [q, v] : s.quantiles()) {
      m.summary.quantile.push_back({q, static_cast<double>(v) / 1e9});
    }
    sink_.series(index_, std::move(m));
  }

 private:
  SeriesSink& sink_;
  std::size_t index_;
  const Labels& constant_;
};

// The families in exposition order (the order of the members below).
class Families {
 public:
  Families(SeriesSink& sink, const Environment& env)
      : sink_(sink),
        constant_{{"host", env.hostname}, {"kernel_release", env.kernel_release}},
        run_info(gauge("rtgate_run_info", "rtgate version and the measured kernel (value 1)")),
        timestamp(gauge("rtgate_run_timestamp_seconds", "Unix time the run finished")),
        status(gauge("rtgate_suite_status", "1 for the suite's status, 0 for the others")),
        contaminated(gauge("rtgate_suite_contaminated",
                           "1 when foreign RT threads, steal or throttling disturbed the run")),
        suite_duration(gauge("rtgate_suite_duration_seconds", "wall time of the suite, all runs")),
        latency(family("rtgate_latency_seconds",
                       "latency histogram of the result (all runs merged)",
                       prometheus::MetricType::Histogram)),
        latency_max(gauge("rtgate_latency_max_seconds", "exact maximum latency")),
        throughput(gauge("rtgate_throughput", "throughput, harmonic mean over runs")),
        duration(gauge("rtgate_duration", "duration per run, arithmetic mean over runs")),
        count(gauge("rtgate_count_per_run",
                    "a counted metric (overruns, missed periods, ...), arithmetic mean over runs")),
        latency_worst(
            gauge("rtgate_suite_latency_worst_seconds",
                  "--prom-cases suite: the worst case's p99, p99.9 and max (quantile 1)")),
        worst(gauge("rtgate_suite_worst",
                    "--prom-cases suite: the worst case's value of a non-latency metric")),
        verdict(gauge("rtgate_verdict", "1 for the gate's verdict on the metric")),
        suite_verdict(gauge("rtgate_suite_verdict", "1 for the gate's verdict on the suite")),
        gate_change(gauge("rtgate_gate_change",
                          "the gate's change of the metric's deciding statistic and its "
                          "interval: a ratio (scale=ratio) or events per run (scale=difference)")),
        quantiles(family("rtgate_latency_quantile_seconds",
                         "exact latency quantiles from the fine histogram (all runs merged)",
                         prometheus::MetricType::Summary)),
        boot_key(gauge("rtgate_boot_key",
                       "the measured boot, as a number (a 52-bit hash of its boot id)")),
        history_point(gauge("rtgate_history_point",
                            "what a board's history judges of this session: the mean of the "
                            "runs' log values (an event count's log rate)")),
        history_variance(gauge("rtgate_history_point_variance",
                               "the variance rtgate_history_point has from the session's own "
                               "runs")),
        history_spread(gauge("rtgate_history_point_spread",
                             "the spread of the session's runs that a gate's noise model pools: "
                             "their sum of squares about the mean (an event count's Pearson "
                             "chi-square)")),
        history_spread_df(
            gauge("rtgate_history_point_spread_df",
                  "the degrees of freedom of rtgate_history_point_spread (runs - 1)")) {}

 private:
  Family family(const std::string& name, const std::string& help, prometheus::MetricType type) {
    return {sink_, next_++, {.name = name, .help = help, .type = type, .metric = {}}, constant_};
  }
  Family gauge(const std::string& name, const std::string& help) {
    return family(name, help, prometheus::MetricType::Gauge);
  }

  SeriesSink& sink_;
  std::size_t next_ = 0;
  Labels constant_;

 public:
  Family run_info;
  Family timestamp;
  Family status;
  Family contaminated;
  Family suite_duration;
  Family latency;
  Family latency_max;
  Family throughput;
  Family duration;
  Family count;
  Family latency_worst;
  Family worst;
  Family verdict;
  Family suite_verdict;
  Family gate_change;
  Family quantiles;
  Family boot_key;
  Family history_point;
  Family history_variance;
  Family history_spread;
  Family history_spread_df;
};

// The value a non-latency metric is exported with: Hmean of a throughput, else the Amean.
double headline(const Metric& m) {
  const SampleSummary sum = SampleSummary::of(m.samples);
  return m.kind == MetricKind::kThroughput ? sum.hmean : sum.amean;
}

void add_metric(Families& f, const SuiteResult& s, const Case& c, const Metric& m,
                const SeriesOptions& options) {
  const Labels l = metric_labels(s, c, m);
  if (m.kind == MetricKind::kLatency) {
    if (m.summary_only) {
      // Imported with count, min, mean and max alone: the exact max, no quantiles or buckets.
      std::uint64_t max = 0;
      for (const LatencySummary& r : m.runs) max = std::max(max, r.max);
      if (!m.runs.empty()) f.latency_max.Set(l, static_cast<double>(max) / 1e9);
      return;
    }
    if (!m.histogram) return;
    const LatencySummary sum = LatencySummary::of(*m.histogram);
    if (!options.bounds_s.empty()) {
      f.latency.ObserveMultiple(l, options.bounds_s,
                                classic_bucket_counts(*m.histogram, options.bounds_s),
                                sum.mean * static_cast<double>(sum.count) / 1e9);
    }
    f.latency_max.Set(l, static_cast<double>(sum.max) / 1e9);
    f.quantiles.Quantiles(l, sum);
    return;
  }
  if (m.samples.empty()) return;
  Labels lu = l;
  lu["unit"] = m.unit;
  switch (m.kind) {
    case MetricKind::kThroughput:
      f.throughput.Set(lu, headline(m));
      break;
    case MetricKind::kDuration:
      f.duration.Set(lu, headline(m));
      break;
    default:
      f.count.Set(lu, headline(m));
  }
}

// What `rtgate history --prometheus` and `gate --prometheus` read of a session: per statistic
// the default policy judges, its session point, that point's variance from the session's own
// runs, and the runs' spread (what a gate's session noise pools).
void add_history_points(Families& f, const SuiteResult& s, const Case& c, const Metric& m) {
  // Reported-only metrics too: a gate shows their change with the session noise they have.
  const gate::MetricPolicy mp =
      gate::resolve(gate::Policy{}, s.name, c.name, m.name, m.gated_by_default());
  Labels l = metric_labels(s, c, m);
  l["metric_kind"] = to_string(m.kind);
  l["better"] = to_string(m.better);
  l["unit"] = m.unit;
  for (const std::string& st : gate::history_statistics(m, mp)) {
    const gate::SessionPoint p = gate::session_point(m, st);
    if (!std::isfinite(p.mean)) continue;
    l["statistic"] = st;
    f.history_point.Set(l, p.mean);
    f.history_variance.Set(l, p.mean_var);
    f.history_spread.Set(l, p.spread_ss);
    f.history_spread_df.Set(l, p.spread_df);
  }
}

// --prom-cases suite: per metric name, the worst case of the suite (a fixed number of series per
// suite, whatever the number of cases).
void add_suite_worst(Families& f, const SuiteResult& s) {
  struct Worst {
    const Metric* first = nullptr;
    std::uint64_t p99 = 0, p999 = 0, max = 0;
    bool quantiles = false;  // some case had them (not only summary-only metrics)
    double value = 0;
  };
  std::map<std::string, Worst> worst;
  for (const Case& c : s.cases) {
    for (const Metric& m : c.metrics) {
      Worst& w = worst[m.name];
      const bool first = w.first == nullptr;
      if (first) w.first = &m;
      if (m.kind == MetricKind::kLatency) {
        if (m.summary_only) {
          for (const LatencySummary& r : m.runs) w.max = std::max(w.max, r.max);
          continue;
        }
        if (!m.histogram) continue;
        w.quantiles = true;
        w.p99 = std::max(w.p99, m.histogram->quantile(0.99));
        w.p999 = std::max(w.p999, m.histogram->quantile(0.999));
        w.max = std::max(w.max, m.histogram->max());
      } else if (!m.samples.empty()) {
        const double v = headline(m);
        if (first || (m.better == Better::kLower ? v > w.value : v < w.value)) w.value = v;
      }
    }
  }
  for (const auto& [name, w] : worst) {
    if (w.first->kind == MetricKind::kLatency) {
      for (const auto& [q, v] : {std::pair{"0.99", w.p99}, {"0.999", w.p999}, {"1", w.max}}) {
        if (!w.quantiles && std::string_view(q) != "1") continue;
        f.latency_worst.Set({{"suite", s.name}, {"metric", name}, {"quantile", q}},
                            static_cast<double>(v) / 1e9);
      }
    } else {
      f.worst.Set({{"suite", s.name}, {"metric", name}, {"unit", w.first->unit}}, w.value);
    }
  }
}

void add_verdicts(Families& f, const gate::SuiteVerdict& sv, bool per_metric) {
  constexpr std::array kVerdicts = {gate::Verdict::kImproved,     gate::Verdict::kUnchanged,
                                    gate::Verdict::kNotWorse,     gate::Verdict::kRegressed,
                                    gate::Verdict::kInconclusive, gate::Verdict::kMissing};
  for (const gate::Verdict v : kVerdicts) {
    f.suite_verdict.Set({{"suite", sv.suite}, {"verdict", gate::to_string(v)}},
                        sv.verdict == v ? 1 : 0);
    for (const gate::MetricVerdict& m : sv.metrics) {
      if (!m.gated || !per_metric) continue;
      f.verdict.Set({{"suite", m.suite},
                     {"case", m.case_name},
                     {"metric", m.metric},
                     {"verdict", gate::to_string(v)}},
                    m.verdict == v ? 1 : 0);
    }
  }
  for (const gate::MetricVerdict& m : sv.metrics) {
    if (!m.gated || !per_metric || !std::isfinite(m.effect)) continue;
    for (const auto& [bound, value] :
         {std::pair{"estimate", m.effect}, {"low", m.effect_low}, {"high", m.effect_high}}) {
      f.gate_change.Set({{"suite", m.suite},
                         {"case", m.case_name},
                         {"metric", m.metric},
                         {"statistic", m.statistic},
                         {"scale", m.ratio ? "ratio" : "difference"},
                         {"bound", bound}},
                        value);
    }
  }
}

}  // namespace

const std::vector<double>& latency_bucket_bounds() { return bucket_set("standard"); }

std::string case_label_name(const std::string& key) {
  std::string out = key.empty() ? "_" : key;
  for (char& ch : out) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  }
  if (std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  if (out.rfind("__", 0) == 0 || reserved_labels().count(out)) out = "case_" + out;
  return out;
}

std::vector<double> classic_bucket_counts(const LatencyHistogram& h,
                                          const std::vector<double>& bounds_s) {
  std::vector<double> counts(bounds_s.size() + 1, 0.0);
  for (const Bucket& b : h.buckets()) {
    // The bucket holds integers in [lower, upper - 1] ns: "certainly <= le" means upper - 1.
    const double highest_s = static_cast<double>(b.upper_ns - 1) / 1e9;
    std::size_t i = 0;
    while (i < bounds_s.size() && highest_s > bounds_s[i] * (1 + 1e-12)) ++i;
    counts[i] += static_cast<double>(b.count);
  }
  counts.back() += static_cast<double>(h.overflow());
  return counts;
}

std::vector<prometheus::MetricFamily> ReportMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families.size());
  for (const auto& f : families) {
    if (!f.metric.empty()) out.push_back(f);
  }
  return out;
}

void build_series(const RunReport& report, const gate::GateVerdict* gate,
                  const std::string& only_suite, const SeriesOptions& options, SeriesSink& sink) {
  Families f(sink, report.environment);
  f.run_info.Set(
      {{"version", report.tool_version}, {"preempt_model", report.environment.preempt_model}}, 1);
  const double finished = text::unix_seconds(report.finished_at).value_or(0);
  if (const std::optional<double> key = gate::boot_number(report.environment.boot_id);
      key && options.per_case) {
    f.boot_key.Set({}, *key);
  }
  constexpr std::array kStatuses = {SuiteStatus::kPassed, SuiteStatus::kFailed,
                                    SuiteStatus::kSkipped, SuiteStatus::kError,
                                    SuiteStatus::kInconclusive};
  for (const SuiteResult& s : report.suites) {
    if (!only_suite.empty() && s.name != only_suite) continue;
    f.timestamp.Set({{"suite", s.name}}, finished);
    for (const SuiteStatus st : kStatuses) {
      f.status.Set({{"suite", s.name}, {"status", to_string(st)}}, s.status == st ? 1 : 0);
    }
    f.contaminated.Set({{"suite", s.name}}, s.contaminated ? 1 : 0);
    f.suite_duration.Set({{"suite", s.name}}, s.duration_s);
    if (!options.per_case) {
      add_suite_worst(f, s);
      continue;
    }
    for (const Case& c : s.cases) {
      for (const Metric& m : c.metrics) {
        add_metric(f, s, c, m, options);
        if (s.status != SuiteStatus::kSkipped) add_history_points(f, s, c, m);
      }
    }
  }
  if (gate != nullptr) {
    for (const gate::SuiteVerdict& sv : gate->suites) {
      if (sv.gated && (only_suite.empty() || sv.suite == only_suite)) {
        add_verdicts(f, sv, options.per_case);
      }
    }
  }
}

std::shared_ptr<ReportMetrics> build_metrics(const RunReport& report, const gate::GateVerdict* gate,
                                             const std::string& only_suite,
                                             const SeriesOptions& options) {
  auto metrics = std::make_shared<ReportMetrics>();
  build_series(report, gate, only_suite, options, *metrics);
  return metrics;
}

}  // namespace rtgate::prom
