#include <algorithm>
#include <cmath>
#include <type_traits>

#include "base/io/output_file.h"
#include "results/board_class.h"
#include "results/gzip_codec.h"
#include "results/json_stream.h"
#include "results/result_json.h"
#include "results/trace_json.h"

namespace rtgate {
namespace {

using ojson = nlohmann::ordered_json;

ojson environment_json(const Environment& e) {
  ojson j;
  j["hostname"] = e.hostname;
  j["kernel_release"] = e.kernel_release;
  j["kernel_version"] = e.kernel_version;
  j["machine"] = e.machine;
  j["preempt_model"] = e.preempt_model;
  j["realtime"] = e.realtime;
  j["cmdline"] = e.cmdline;
  j["cpu_model"] = e.cpu_model;
  j["online_cpus"] = e.online_cpus;
  j["online_cpu_list"] = e.online_cpu_list;
  j["isolated_cpus"] = e.isolated_cpus;
  j["nohz_full"] = e.nohz_full;
  j["rt_runtime_us"] = e.rt_runtime_us;
  j["rt_period_us"] = e.rt_period_us;
  j["rt_capable"] = e.rt_capable;
  j["cpu_dma_latency_us"] = e.cpu_dma_latency_us;
  j["clocksource"] = e.clocksource;
  j["governors"] = e.governors;
  j["smt"] = e.smt;
  j["hypervisor"] = e.hypervisor;
  // Derived from the facts above (board_class.h), written for readers of the JSON; read back,
  // it is derived again.
  j["board_class"] = to_string(board_class(e));
  j["memory_total_kb"] = e.memory_total_kb;
  j["boot_id"] = e.boot_id;
  j["pid"] = e.pid;
  for (const auto& [k, v] : e.extra) j["extra"][k] = v;
  if (!e.readiness.empty()) {
    j["readiness"] = ojson::array();
    for (const ReadinessItem& r : e.readiness) {
      j["readiness"].push_back({{"item", r.item},
                                {"level", r.level},
                                {"why", r.why},
                                {"fix", r.fix},
                                {"evidence", r.evidence}});
    }
  }
  return j;
}

ojson run_options_json(const RunOptionsRecord& o) {
  return {{"duration_s", o.duration_s},
          {"runs", o.runs},
          {"cpus", o.cpus},
          {"load", o.load},
          {"watchdog_s", o.watchdog_s},
          {"require_rt", o.require_rt}};
}

ojson hygiene_json(const Hygiene& h) {
  ojson j;
  j["foreign_rt_threads"] = ojson::array();
  for (const ForeignRtThread& t : h.foreign_rt_threads) {
    j["foreign_rt_threads"].push_back({{"pid", t.pid},
                                       {"tid", t.tid},
                                       {"comm", t.comm},
                                       {"policy", t.policy},
                                       {"priority", t.priority},
                                       {"cpus_allowed", t.cpus_allowed},
                                       {"kernel_thread", t.kernel_thread},
                                       {"runtime_ns", t.runtime_ns}});
  }
  j["steal_ms"] = h.steal_ms;
  j["steal_ms_per_cpu"] = ojson::object();
  for (const auto& [cpu, ms] : h.steal_ms_per_cpu) j["steal_ms_per_cpu"][std::to_string(cpu)] = ms;
  j["steal_ms_per_run"] = ojson::array();
  for (const auto& run : h.steal_ms_per_run) {
    ojson per_cpu = ojson::object();
    for (const auto& [cpu, ms] : run) per_cpu[std::to_string(cpu)] = ms;
    j["steal_ms_per_run"].push_back(std::move(per_cpu));
  }
  j["steal_source"] = h.steal_source;
  j["cfs_protection"] = h.cfs_protection;
  j["rt_throttled"] = h.rt_throttled;
  j["rt_throttled_source"] = h.rt_throttled_source;
  j["missed_periods"] = h.missed_periods;
  return j;
}

ojson param_json(const ParamValue& v) {
  return std::visit([](const auto& x) { return ojson(x); }, v);
}

ojson latency_summary_json(const LatencySummary& s) {
  ojson j = ojson::object();
  LatencySummary::for_each_field([&](const char* key, auto field) { j[key] = s.*field; });
  return j;
}

// Per-run summaries as columns: {"count": [run1, run2, ...], "min": [...], ...}.
ojson runs_json(const std::vector<LatencySummary>& runs) {
  ojson j = ojson::object();
  LatencySummary::for_each_field([&](const char* key, auto field) {
    ojson c = ojson::array();
    for (const LatencySummary& r : runs) c.push_back(r.*field);
    j[key] = std::move(c);
  });
  return j;
}

// The histogram's buckets from the first: a count for each non-empty bucket, and -n for n empty
// buckets in a row ([-154, 3, 1, -4, 2]: buckets 154 and 155 hold 3 and 1, 160 holds 2). The
// trailing empty buckets are not written.
ojson counts_json(const LatencyHistogram& h) {
  ojson counts = ojson::array();
  std::size_t next = 0;
  h.for_each_bucket([&](std::size_t i, std::uint64_t c) {
    if (i > next) counts.push_back(-static_cast<std::int64_t>(i - next));
    counts.push_back(c);
    next = i + 1;
  });
  return counts;
}

// Equal counts, quantiles and extremes, and mean and stddev equal up to the rounding of a
// histogram restored from a file (its integer sums are rebuilt from the two doubles): a result
// read and written again still leaves its one-run summaries out.
bool same_summary(const LatencySummary& a, const LatencySummary& b) {
  bool same = true;
  LatencySummary::for_each_field([&](const char*, auto field) {
    const auto x = a.*field, y = b.*field;
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      same = same && std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
    } else {
      same = same && x == y;
    }
  });
  return same;
}

// A summary-only latency metric's figures (report.h): count, min, mean and max, the only ones
// known; its quantiles and stddev are not written rather than written as 0.
ojson known_summary_json(const LatencySummary& s) {
  return {{"count", s.count}, {"min", s.min}, {"mean", s.mean}, {"max", s.max}};
}

LatencySummary pooled_known(const std::vector<LatencySummary>& runs) {
  LatencySummary out;
  double weighted = 0;
  for (const LatencySummary& r : runs) {
    if (r.count == 0) continue;
    out.min = out.count == 0 ? r.min : std::min(out.min, r.min);
    out.max = std::max(out.max, r.max);
    out.count += r.count;
    weighted += r.mean * static_cast<double>(r.count);
  }
  out.mean = out.count > 0 ? weighted / static_cast<double>(out.count) : 0;
  return out;
}

ojson metric_json(const Metric& m) {
  ojson j;
  j["name"] = m.name;
  j["kind"] = to_string(m.kind);
  j["unit"] = m.unit;
  j["better"] = to_string(m.better);
  if (m.kind == MetricKind::kCount) {
    j["gating"] = m.gating == Metric::Gating::kEventRate ? "event_rate" : "reported";
  }
  if (m.summary_only) {
    // Before "runs": the history reader learns the columns to expect before it reaches them.
    j["summary_only"] = true;
    j["summary"] = known_summary_json(pooled_known(m.runs));
    ojson cols = ojson::object();
    for (const char* key : {"count", "min", "mean", "max"}) cols[key] = ojson::array();
    for (const LatencySummary& r : m.runs) {
      cols["count"].push_back(r.count);
      cols["min"].push_back(r.min);
      cols["mean"].push_back(r.mean);
      cols["max"].push_back(r.max);
    }
    j["runs"] = std::move(cols);
  } else if (m.histogram) {
    const LatencySummary pooled = LatencySummary::of(*m.histogram);
    j["summary"] = latency_summary_json(pooled);
    // One run whose summary is the metric's (every one-run result): the reader restores it.
    if (m.runs.size() != 1 || !same_summary(m.runs[0], pooled)) j["runs"] = runs_json(m.runs);
  } else {
    const SampleSummary s = SampleSummary::of(m.samples);
    j["summary"] = {{"n", s.n},   {"hmean", s.hmean}, {"amean", s.amean}, {"stddev", s.stddev},
                    {"cv", s.cv}, {"min", s.min},     {"max", s.max}};
  }
  j["samples"] = m.samples;
  if (m.histogram) {
    j["histogram"] = {{"counts", counts_json(*m.histogram)}};
  }
  if (!m.unknown_quantiles.empty()) j["unknown_quantiles"] = m.unknown_quantiles;
  return j;
}

ojson case_json(const Case& c) {
  ojson j;
  j["name"] = c.name;
  j["labels"] = ojson::object();
  for (const auto& [k, v] : c.labels) j["labels"][k] = v;
  j["contaminated"] = c.contaminated;
  j["contaminated_reasons"] = c.contaminated_reasons;
  j["metrics"] = ojson::array();
  for (const Metric& m : c.metrics) j["metrics"].push_back(metric_json(m));
  if (!c.analysis.empty()) j["analysis"] = analyses_json(c.analysis);
  if (c.causes) j["causes"] = cause_profile_json(*c.causes);
  return j;
}

// Without its cases, "cases" is an empty array for to_json_text to fill.
ojson suite_json(const SuiteResult& s, bool with_cases = true) {
  ojson j;
  j["name"] = s.name;
  j["params"] = ojson::object();
  for (const auto& [k, v] : s.params) j["params"][k] = param_json(v);
  j["status"] = to_string(s.status);
  j["reason"] = s.reason;
  j["duration_s"] = s.duration_s;
  j["runs"] = s.runs;
  j["hygiene"] = hygiene_json(s.hygiene);
  j["contaminated"] = s.contaminated;
  j["contaminated_reasons"] = s.contaminated_reasons;
  j["cases"] = ojson::array();
  if (with_cases) {
    for (const Case& c : s.cases) j["cases"].push_back(case_json(c));
  }
  j["load"] = ojson::array();
  for (const load::LoadReport& l : s.loads) {
    j["load"].push_back({{"kind", l.kind},
                         {"spec", l.spec},
                         {"instances", l.instances},
                         {"seconds", l.seconds},
                         {"ops", l.ops},
                         {"unit", l.unit},
                         {"ops_per_s", l.ops_per_s},
                         {"note", l.note}});
  }
  if (s.trace) j["trace"] = trace_record_json(*s.trace);
  if (s.imported) {
    j["imported"] = {{"tool", s.imported->tool},         {"version", s.imported->version},
                     {"format", s.imported->format},     {"files", s.imported->files},
                     {"commands", s.imported->commands}, {"notes", s.imported->notes}};
  }
  return j;
}

// The document without its suites ("suites" is an empty array, last).
ojson to_json_header(const RunReport& report) {
  ojson j;
  j["schema"] = kResultSchema;  // the encoding written, whatever the report was read from
  j["tool"] = {{"name", "rtgate"}, {"version", report.tool_version}};
  j["started_at"] = report.started_at;
  j["finished_at"] = report.finished_at;
  j["complete"] = report.complete;
  // Only what was recorded: a report read from an older file and written again must not claim
  // options it never had.
  if (report.options.recorded) j["run_options"] = run_options_json(report.options);
  j["environment"] = environment_json(report.environment);
  // The layout every histogram's counts index (once a document since /3).
  j["histogram_layout"] = {{"layout", "log-linear"},
                           {"sub_bucket_bits", LatencyHistogram::kSubBits},
                           {"range_ns", {0, LatencyHistogram::kRangeEnd}}};
  j["suites"] = ojson::array();
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const RunReport& report) {
  ojson j = to_json_header(report);
  for (const SuiteResult& s : report.suites) j["suites"].push_back(suite_json(s));
  return j;
}

// Compact: at lab scale indentation would be most of the file; `jq .` shows it indented.
// Written a case at a time: the whole document as one nlohmann tree takes several times the
// text's memory. The text is what to_json(report).dump() writes, byte for byte.
namespace {

void put_json_text(const RunReport& report, const json_stream::Put& put) {
  using json_stream::put_object;
  put_object(to_json_header(report), "suites", -1, 0, put, [&](const auto& next_suite) {
    for (const SuiteResult& s : report.suites) {
      next_suite();
      put_object(suite_json(s, /*with_cases=*/false), "cases", -1, 0, put,
                 [&](const auto& next_case) {
                   for (const Case& c : s.cases) {
                     next_case();
                     put(json_stream::dump_valid(case_json(c)));
                   }
                 });
    }
  });
  put("\n");
}

}  // namespace

std::string to_json_text(const RunReport& report) {
  std::string out;
  put_json_text(report, [&out](const std::string& piece) { out += piece; });
  return out;
}

std::string write_result_file(const std::string& path, const RunReport& report) {
  if (!gz::wants_gzip(path)) return write_output(path, to_json_text(report));
  // Compressed as it is written: the text is never held whole.
  gz::Compressor gzip;
  put_json_text(report, [&gzip](const std::string& piece) { gzip.add(piece); });
  return write_output(path, gzip.finish());
}

}  // namespace rtgate
