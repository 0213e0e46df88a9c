// The result model: what a run produced, independent of any exporter.
//
// RunReport holds SuiteResults, each holding Cases, each holding Metrics. Exporters (JSON, JUnit,
// Prometheus, console) consume it; the gate compares two of them. Field names follow the
// "rtgate.result/1" JSON contract in DESIGN.md.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "results/cause_profile.h"
#include "results/environment.h"
#include "results/hygiene.h"
#include "results/latency_histogram.h"
#include "results/load_report.h"
#include "results/lock_contention.h"
#include "results/sample_analysis.h"

namespace rtgate {

// What `run -o` writes. /2 holds the same data as /1, encoded compactly (histograms as spans of
// consecutive bucket counts, per-run summaries as columns, no indentation); /3 the same again
// (the histogram layout once per document, each histogram's counts with negative numbers for
// runs of empty buckets, per-run summaries left out when the one run is the metric's summary).
// All three are read.
inline constexpr const char* kResultSchema = "rtgate.result/3";
inline constexpr const char* kResultSchemaV2 = "rtgate.result/2";
inline constexpr const char* kResultSchemaV1 = "rtgate.result/1";

enum class MetricKind { kLatency, kThroughput, kDuration, kCount };
enum class Better { kLower, kHigher };
// kInconclusive: the suite ran, but what it checks could not be judged (a functional check whose
// rounds the host or the kernel's CFS protection disturbed too often): neither pass nor fail.
enum class SuiteStatus { kPassed, kFailed, kSkipped, kError, kInconclusive };

const char* to_string(MetricKind kind);
const char* to_string(Better better);
const char* to_string(SuiteStatus status);
std::optional<MetricKind> metric_kind_from(const std::string& s);
std::optional<Better> better_from(const std::string& s);
std::optional<SuiteStatus> suite_status_from(const std::string& s);

// Summary of a latency metric (ns), computed from its histogram.
struct LatencySummary {
  std::uint64_t count = 0;
  std::uint64_t min = 0;
  double mean = 0;
  double stddev = 0;
  std::uint64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, p9999 = 0;
  std::uint64_t max = 0;
  std::uint64_t overflow = 0;
  static LatencySummary of(const LatencyHistogram& h);

  // Calls f(name, member pointer) for every field, in the result JSON's order: the one list the
  // JSON writer and reader go by (summary objects and per-run columns alike).
  template <class F>
  static void for_each_field(F&& f) {
    f("count", &LatencySummary::count);
    f("min", &LatencySummary::min);
    f("mean", &LatencySummary::mean);
    f("stddev", &LatencySummary::stddev);
    f("p50", &LatencySummary::p50);
    f("p90", &LatencySummary::p90);
    f("p99", &LatencySummary::p99);
    f("p999", &LatencySummary::p999);
    f("p9999", &LatencySummary::p9999);
    f("max", &LatencySummary::max);
    f("overflow", &LatencySummary::overflow);
  }

  // The quantiles a summary keeps, and their values as (q, ns) pairs in the same order.
  static constexpr std::array<double, 5> kQuantiles = {0.5, 0.9, 0.99, 0.999, 0.9999};
  std::array<std::pair<double, std::uint64_t>, 5> quantiles() const {
    return {{{0.5, p50}, {0.9, p90}, {0.99, p99}, {0.999, p999}, {0.9999, p9999}}};
  }
};

// Summary of per-run samples (throughput, duration, count).
struct SampleSummary {
  std::size_t n = 0;
  double hmean = 0, amean = 0, stddev = 0, cv = 0, min = 0, max = 0;
  static SampleSummary of(const std::vector<double>& samples);
};

struct Metric {
  std::string name;
  MetricKind kind = MetricKind::kLatency;
  std::string unit;
  Better better = Better::kLower;
  // Latency: per-run or per-block maxima. Other kinds: one value per run.
  std::vector<double> samples;
  std::optional<LatencyHistogram> histogram;  // latency metrics only
  // A latency metric imported from a tool that reports only count, min, mean and max
  // (cyclictest without -h, pmqtest): it has no histogram, its runs' quantiles and stddev are
  // unknown (0), and the gate judges only its max. (A history read also leaves histograms out;
  // that does not make a metric summary-only.)
  bool summary_only = false;
  // Latency metrics: each run's own summary, in run order (Metric::latency makes one, merge
  // appends). The gate treats the run as the unit of replication: machine state drifts between
  // runs by more than the pooled samples' sampling error, so quantiles are compared run by run.
  std::vector<LatencySummary> runs;
  // Latency metrics imported with a histogram: the quantiles ("p99", LatencySummary's names)
  // that some run does not know, because they lay among the samples beyond the tool's histogram
  // range (0 in those runs). The gate does not judge them.
  std::vector<std::string> unknown_quantiles;
  // How the gate treats a count, declared by the suite that makes it: as a rate of events per
  // run (missed periods, overruns, lost wakeups), judged with the exact rate test, or reported
  // only (work done, a fairness figure, a functional check's tally). Other kinds are judged.
  enum class Gating { kEventRate, kReported };
  Gating gating = Gating::kEventRate;

  bool is_event_rate() const { return kind == MetricKind::kCount && gating == Gating::kEventRate; }
  // What the gate judges unless a policy says otherwise.
  bool gated_by_default() const { return kind != MetricKind::kCount || is_event_rate(); }
  // A count in a result written before counts declared their gating: the rule by unit that the
  // gate applied then.
  static Gating gating_of_legacy_unit(const std::string& unit);

  static Metric latency(std::string name, LatencyHistogram h, std::vector<double> block_maxima);
  static Metric throughput(std::string name, std::string unit, double value);
  static Metric count(std::string name, double value, std::string unit, Gating gating);

  // Folds another run of the same metric into this one.
  void merge(const Metric& other);
};

struct Case {
  std::string name;
  std::map<std::string, std::string> labels;
  std::vector<Metric> metrics;
  bool contaminated = false;
  std::vector<std::string> contaminated_reasons;
  // --trace: the worst sample of each of the case's CPUs (or the break), then threshold
  // crossings, each explained from the trace. Evidence only: the gate never judges it.
  std::vector<trace::SampleAnalysis> analysis;
  // --trace: every analysed sample of the case's threads, counted by cause (merged over runs).
  // Evidence too: compared between two traced results, never judged as a metric.
  std::optional<trace::CauseProfile> causes;

  Metric* find(const std::string& metric_name);
  const Metric* find(const std::string& metric_name) const;
};

using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

// What --trace recorded for a suite (JSON: "trace" on the suite; absent when it was not traced).
struct TraceRecord {
  std::string unavailable;  // why tracing was skipped ("" when it ran)
  int runs = 0;             // runs traced
  // The threshold samples were marked and analysed over (0: none, each new worst only), and
  // where it came from when rtgate chose it ("the baseline's p99"; "" when the user gave it).
  std::int64_t threshold_ns = 0;
  std::string threshold_from;
  std::uint64_t events = 0, lost = 0, markers = 0, crossings_not_analysed = 0;
  std::vector<std::string> missing_events;
  std::string break_reason;  // --break-us stopped the trace and the suite: the sample
  std::vector<trace::SampleAnalysis> analysis;  // samples of threads no case claims
  trace::LockContention locks;                  // --trace=locks
  std::string steal_source;  // where the analyses' host steal came from (cpu_steal.h); "" none
  // Per traced CPU, one value per run: time SCHED_OTHER tasks ran while an RT task there was
  // runnable (the fair server's or RT throttling's share; trace/cfs_while_rt.h).
  std::map<int, std::vector<double>> cfs_while_rt_runnable_ms;
  void merge(const TraceRecord& o);
};

// Folds `from` into `into`: per CPU and thread the worse of the two worst samples (and of the
// two guest worsts, by latency once host time is set aside), and the threshold crossings up to
// kMaxCrossings per CPU.
void merge_analyses(std::vector<trace::SampleAnalysis>& into,
                    const std::vector<trace::SampleAnalysis>& from);
inline constexpr std::size_t kMaxCrossings = 8;

// Where a suite's result came from when rtgate did not measure it (`rtgate import`): the tool,
// its version and each file's command line as the files record them, and what the import had to
// assume or could not carry. JSON: "imported" on the suite; absent on rtgate's own results.
struct ImportRecord {
  std::string tool;                   // "cyclictest", "rtla timerlat hist"
  std::string version;                // as the file records it; "" when it does not
  std::string format;                 // the importer that read it ("cyclictest-json")
  std::vector<std::string> files;     // one per run
  std::vector<std::string> commands;  // each run's command line; "" when not recorded
  std::vector<std::string> notes;
};

struct SuiteResult {
  std::string name;
  std::map<std::string, ParamValue> params;
  SuiteStatus status = SuiteStatus::kPassed;
  std::string reason;
  double duration_s = 0;
  int runs = 0;  // runs completed
  Hygiene hygiene;
  bool contaminated = false;
  std::vector<std::string> contaminated_reasons;
  std::vector<Case> cases;
  std::vector<load::LoadReport> loads;  // the --load that ran beside it, one entry per item and run
  std::optional<TraceRecord> trace;     // --trace
  std::optional<ImportRecord> imported;  // rtgate import

  // A result that ends with `status` and its reason and no cases (skipped, error).
  static SuiteResult ended(SuiteStatus status, std::string reason);

  Case* find(const std::string& case_name);
  const Case* find(const std::string& case_name) const;
  // Folds the cases of another run into this one (metrics merged by name).
  void merge_run(const SuiteResult& run);
  // Folds a later invocation's runs of the same suite into this one (run --until-decided): its
  // cases, run count, duration, hygiene and contamination, and its status when worse.
  void absorb(const SuiteResult& later);
};

// A suite's cases by name, for lookups across a whole suite: SuiteResult::find is a linear scan,
// so pairing every case of two suites by it would be quadratic. Finds what find() finds (the first
// case of a name); valid while the suite's cases are neither added nor moved.
class CaseIndex {
 public:
  explicit CaseIndex(const SuiteResult* suite);  // nullptr: an index that finds nothing
  const Case* find(const std::string& case_name) const;

 private:
  std::unordered_map<std::string_view, const Case*> by_name_;
};

// The run options a result was measured with (RunOptions as the runner saw them), so the gate
// can tell results measured differently apart. JSON: the top-level "run_options" object.
struct RunOptionsRecord {
  double duration_s = 0;
  int runs = 0;
  std::string cpus;  // as given to --cpus, in the kernel's list form; "" = every allowed CPU
  std::string load;  // the --load spec; "" = none
  double watchdog_s = 0;
  bool require_rt = false;
  // false for a result written before rtgate recorded its options: the fields above are unknown.
  bool recorded = false;
};

struct RunReport {
  std::string schema = kResultSchema;
  std::string tool_version;
  std::string started_at;   // RFC 3339, UTC
  std::string finished_at;  // RFC 3339, UTC
  bool complete = true;
  Environment environment;
  RunOptionsRecord options;
  std::vector<SuiteResult> suites;

  SuiteResult* find(const std::string& suite_name);
  const SuiteResult* find(const std::string& suite_name) const;
};

// Appends each string of `from` that `to` does not hold yet (reason lists).
void add_unique(std::vector<std::string>& to, const std::vector<std::string>& from);

std::string rfc3339_now();

}  // namespace rtgate
