#include "results/result_from_dom.h"

#include <charconv>

#include "results/json_dom.h"
#include "results/trace_json.h"

namespace rtgate::json_dom {
namespace {

// Lenient, as the rest of the environment: an entry that is not an object of strings is left
// out, and no more items are kept than any rtgate writes.
std::vector<ReadinessItem> readiness_from(const object& env) {
  constexpr std::size_t kMaxItems = 256;
  std::vector<ReadinessItem> out;
  each_entry(env, "readiness", [&](std::optional<object> o) {
    if (!o || out.size() == kMaxItems) return;
    out.push_back({.item = get_or<std::string>(*o, "item", ""),
                   .level = get_or<std::string>(*o, "level", ""),
                   .why = get_or<std::string>(*o, "why", ""),
                   .fix = get_or<std::string>(*o, "fix", ""),
                   .evidence = get_or<std::string>(*o, "evidence", "")});
  });
  return out;
}

Environment environment_from(std::optional<object> o) {
  Environment e;
  if (!o) return e;
  const object j = *o;
  e.hostname = get_or<std::string>(j, "hostname", "");
  e.kernel_release = get_or<std::string>(j, "kernel_release", "");
  e.kernel_version = get_or<std::string>(j, "kernel_version", "");
  e.machine = get_or<std::string>(j, "machine", "");
  e.preempt_model = get_or<std::string>(j, "preempt_model", "");
  e.realtime = get_or<bool>(j, "realtime", false);
  e.cmdline = get_or<std::string>(j, "cmdline", "");
  e.cpu_model = get_or<std::string>(j, "cpu_model", "");
  e.online_cpus = get_or<int>(j, "online_cpus", 0);
  e.online_cpu_list = get_or<std::string>(j, "online_cpu_list", "");
  e.isolated_cpus = get_or<std::string>(j, "isolated_cpus", "");
  e.nohz_full = get_or<std::string>(j, "nohz_full", "");
  e.rt_runtime_us = get_or<std::int64_t>(j, "rt_runtime_us", 0);
  e.rt_period_us = get_or<std::int64_t>(j, "rt_period_us", 0);
  e.rt_capable = get_or<bool>(j, "rt_capable", false);
  e.cpu_dma_latency_us = get_or<std::int64_t>(j, "cpu_dma_latency_us", -1);
  e.clocksource = get_or<std::string>(j, "clocksource", "");
  e.governors = get_or<std::string>(j, "governors", "");
  e.smt = get_or<std::string>(j, "smt", "");
  e.hypervisor = get_or<std::string>(j, "hypervisor", "");
  e.memory_total_kb = get_or<std::int64_t>(j, "memory_total_kb", 0);
  e.boot_id = get_or<std::string>(j, "boot_id", "");
  e.pid = get_or<std::int64_t>(j, "pid", 0);
  if (const auto extra = object_member(j, "extra")) {
    for (const auto [k, v] : *extra) {
      e.extra[std::string(k)] = as<std::string>(v).value_or(dump(v));
    }
  }
  e.readiness = readiness_from(j);
  return e;
}

// Absent in files written before rtgate recorded its options (recorded stays false); when
// present, every field is required and typed, as the writer always writes them all.
RunOptionsRecord run_options_from(object doc) {
  RunOptionsRecord o;
  const auto v = member(doc, "run_options");
  if (!v) return o;
  const std::string where = "run_options";
  const object j = object_of(*v, where);
  o.duration_s = get<double>(j, "duration_s", where);
  o.runs = get<int>(j, "runs", where);
  o.cpus = get<std::string>(j, "cpus", where);
  o.load = get<std::string>(j, "load", where);
  o.watchdog_s = get<double>(j, "watchdog_s", where);
  o.require_rt = get<bool>(j, "require_rt", where);
  o.recorded = true;
  return o;
}

// {"CPU": ms, ...}. Lenient like the rest of hygiene: an entry that is not "CPU": ms is left out.
std::map<int, double> cpu_ms_map(const object& o) {
  std::map<int, double> out;
  for (const auto [cpu, ms] : o) {
    int n = -1;
    const auto [end, ec] = std::from_chars(cpu.data(), cpu.data() + cpu.size(), n);
    const auto v = as<double>(ms);
    if (ec == std::errc() && end == cpu.data() + cpu.size() && n >= 0 && v) out[n] = *v;
  }
  return out;
}

Hygiene hygiene_from(std::optional<object> o) {
  Hygiene h;
  if (!o) return h;
  const object j = *o;
  each_entry(j, "foreign_rt_threads", [&](std::optional<object> entry) {
    if (!entry) {  // lenient: an entry that is not an object is empty
      h.foreign_rt_threads.emplace_back();
      return;
    }
    const object t = *entry;
    ForeignRtThread f;
    f.pid = get_or<pid_t>(t, "pid", 0);
    f.tid = get_or<pid_t>(t, "tid", 0);
    f.comm = get_or<std::string>(t, "comm", "");
    f.policy = get_or<std::string>(t, "policy", "");
    f.priority = get_or<int>(t, "priority", 0);
    f.cpus_allowed = get_or<std::string>(t, "cpus_allowed", "");
    f.kernel_thread = get_or<bool>(t, "kernel_thread", false);
    f.runtime_ns = get_or<std::uint64_t>(t, "runtime_ns", 0);
    h.foreign_rt_threads.push_back(std::move(f));
  });
  h.steal_ms = get_or<double>(j, "steal_ms", 0);
  if (const auto per_cpu = object_member(j, "steal_ms_per_cpu")) {
    h.steal_ms_per_cpu = cpu_ms_map(*per_cpu);
  }
  each_entry(j, "steal_ms_per_run", [&](std::optional<object> run) {
    h.steal_ms_per_run.push_back(run ? cpu_ms_map(*run) : std::map<int, double>{});
  });
  h.steal_source = get_or<std::string>(j, "steal_source", "");
  h.cfs_protection = get_or<std::string>(j, "cfs_protection", "");
  h.rt_throttled = get_or<std::int64_t>(j, "rt_throttled", -1);
  h.rt_throttled_source = get_or<std::string>(j, "rt_throttled_source", "");
  h.missed_periods = get_or<std::uint64_t>(j, "missed_periods", 0);
  return h;
}

}  // namespace

LatencySummary latency_summary_from(element v, const std::string& where) {
  const object s = object_of(v, where);
  LatencySummary r;
  LatencySummary::for_each_field([&](const char* key, auto field) {
    r.*field = get<std::remove_reference_t<decltype(r.*field)>>(s, key, where);
  });
  return r;
}

namespace {

using IndexedBuckets = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

// A histogram's non-empty buckets as (index, count): /3's "counts" (from bucket 0, a count for
// each non-empty bucket and -n for n empty ones), /2's "spans" ([first index, count, ...]) or
// /1's "buckets" ([lower_ns, upper_ns, count], each checked against the layout).
IndexedBuckets histogram_buckets(object h, const std::string& hw) {
  IndexedBuckets out;
  if (const auto counts = member(h, "counts")) {
    constexpr auto kBuckets = static_cast<std::int64_t>(LatencyHistogram::kBuckets);
    std::int64_t next = 0;
    for (element x : array_of(*counts, hw + ".counts")) {
      const auto v = as<std::int64_t>(x);
      if (!v && as<std::uint64_t>(x))
        throw JsonError(hw + ": a count past the layout's last bucket");
      if (!v || *v == 0) throw JsonError(hw + ".counts: " + dump(x) + " is not a count or a skip");
      if (*v < 0) {
        if (*v < -kBuckets) throw JsonError(hw + ": a skip past the layout's last bucket");
        next -= *v;
        continue;
      }
      if (next >= kBuckets) throw JsonError(hw + ": a count past the layout's last bucket");
      out.emplace_back(static_cast<std::uint32_t>(next++), static_cast<std::uint64_t>(*v));
    }
    return out;
  }
  if (const auto spans = member(h, "spans")) {
    for (element x : array_of(*spans, hw + ".spans")) {
      array span;
      if (x.get(span) != simdjson::SUCCESS || count_of(span) < 2)
        throw JsonError(hw + ": a span is not [first index, count, ...]");
      auto it = span.begin();
      const std::uint64_t first = bucket_value(*it, hw);
      if (first >= LatencyHistogram::kBuckets ||
          count_of(span) - 1 > LatencyHistogram::kBuckets - first)
        throw JsonError(hw + ": a span reaches past the layout's last bucket");
      std::uint64_t i = first;
      for (++it; it != span.end(); ++it) {
        out.emplace_back(static_cast<std::uint32_t>(i++), bucket_value(*it, hw));
      }
    }
    return out;
  }
  for (element x : array_field(h, "buckets", hw)) {
    array b;
    if (x.get(b) != simdjson::SUCCESS || count_of(b) != 3)
      throw JsonError(hw + ": a bucket is not [lower, upper, count]");
    auto it = b.begin();
    const std::uint64_t lower = bucket_value(*it, hw);
    const std::uint64_t upper = bucket_value(*++it, hw);
    const std::uint64_t count = bucket_value(*++it, hw);
    const auto i = LatencyHistogram::index_of(lower, upper);
    if (!i) {
      throw JsonError(hw + ": buckets do not match the log-linear layout, the count or [min, max]");
    }
    out.emplace_back(static_cast<std::uint32_t>(*i), count);
  }
  return out;
}

}  // namespace

// Per-run summaries: /2's columns ({"count": [...], ...}, every column as long as "count") or
// /1's array of summary objects.
std::vector<LatencySummary> runs_from(element runs, const std::string& where) {
  std::vector<LatencySummary> out;
  if (array a; runs.get(a) == simdjson::SUCCESS) {
    std::size_t i = 0;
    for (element r : a) {
      out.push_back(latency_summary_from(r, where + "[" + std::to_string(i++) + "]"));
    }
    return out;
  }
  object cols;
  if (runs.get(cols) != simdjson::SUCCESS)
    throw JsonError(where + ": expected columns or an array of summaries");
  return summary_columns(cols, where, true);
}

namespace {

Metric metric_from(element v, const std::string& where, Encoding enc) {
  const object j = object_of(v, where);
  Metric m;
  m.name = get<std::string>(j, "name", where);
  const auto kind = metric_kind_from(get<std::string>(j, "kind", where));
  if (!kind) throw JsonError(where + ".kind: unknown metric kind");
  m.kind = *kind;
  m.unit = get<std::string>(j, "unit", where);
  const auto better = better_from(get<std::string>(j, "better", where));
  if (!better) throw JsonError(where + ".better: expected lower or higher");
  m.better = *better;
  m.samples = numbers(j, "samples", where);
  m.gating = gating_from(get_or<std::string>(j, "gating", ""), m.unit, where);
  if (const auto u = member(j, "unknown_quantiles")) {
    m.unknown_quantiles = quantile_names(*u, where + ".unknown_quantiles");
  }
  if (m.kind == MetricKind::kLatency && get_or<bool>(j, "summary_only", false)) {
    finish_summary_only(m, {}, false, field(j, "runs", where), where + ".runs");
    return m;
  }
  if (m.kind == MetricKind::kLatency) {
    const std::string hw = where + ".histogram";
    const std::string sw = where + ".summary";
    const object h = object_of(field(j, "histogram", where), hw);
    const object s = object_of(field(j, "summary", where), sw);
    LatencyHistogram hist = LatencyHistogram::empty_compact();
    if (!hist.restore_indexed(histogram_buckets(h, hw), get<std::uint64_t>(s, "count", sw),
                              get<std::uint64_t>(s, "min", sw), get<std::uint64_t>(s, "max", sw),
                              get<double>(s, "mean", sw), get<double>(s, "stddev", sw),
                              get<std::uint64_t>(s, "overflow", sw))) {
      throw JsonError(hw + ": buckets do not match the log-linear layout, the count or [min, max]");
    }
    // Per-run summaries: absent in files written before they existed, which the gate then
    // judges on pooled samples alone; absent since /3, the one run is the metric's summary.
    if (const auto runs = member(j, "runs")) {
      m.runs = runs_from(*runs, where + ".runs");
    } else if (enc.one_run_when_absent) {
      m.runs = {LatencySummary::of(hist)};
    }
    m.histogram = std::move(hist);
  }
  return m;
}

ParamValue param_from(element v) {
  if (const auto b = as<bool>(v)) return *b;
  if (const auto i = as<std::int64_t>(v)) return *i;
  if (const auto d = as<double>(v)) return *d;
  if (auto s = as<std::string>(v)) return *std::move(s);
  return dump(v);
}

// /3's histogram layout, once a document: a file of another layout would be misread.
void check_layout(object doc) {
  const auto layout = object_member(doc, "histogram_layout");
  if (!layout) return;
  const std::string where = "histogram_layout";
  if (get<std::string>(*layout, "layout", where) != "log-linear" ||
      get<int>(*layout, "sub_bucket_bits", where) != LatencyHistogram::kSubBits) {
    throw JsonError(where + ": not this build's histogram layout (log-linear, " +
                    std::to_string(LatencyHistogram::kSubBits) + " sub-bucket bits)");
  }
}

}  // namespace

Case case_from(element v, const std::string& cw, Encoding enc) {
  const object j = object_of(v, cw);
  Case c;
  c.name = get<std::string>(j, "name", cw);
  c.labels = get_or<std::map<std::string, std::string>>(j, "labels", {});
  c.contaminated = get_or<bool>(j, "contaminated", false);
  c.contaminated_reasons = get_or<std::vector<std::string>>(j, "contaminated_reasons", {});
  std::size_t k = 0;
  for (element m : array_field(j, "metrics", cw)) {
    c.metrics.push_back(metric_from(m, cw + ".metrics[" + std::to_string(k++) + "]", enc));
  }
  if (const auto a = member(j, "analysis")) c.analysis = analyses_from(as_nlohmann(*a));
  if (const auto p = member(j, "causes")) c.causes = cause_profile_from(as_nlohmann(*p));
  return c;
}

SuiteResult suite_from(element v, const std::string& where, const ReadOptions& options) {
  const object j = object_of(v, where);
  SuiteResult s;
  s.name = get<std::string>(j, "name", where);
  if (const auto params = object_member(j, "params")) {
    for (const auto [k, p] : *params) s.params[std::string(k)] = param_from(p);
  }
  const auto status = suite_status_from(get<std::string>(j, "status", where));
  if (!status) throw JsonError(where + ".status: expected passed|failed|skipped|error");
  s.status = *status;
  s.reason = get_or<std::string>(j, "reason", "");
  s.duration_s = get_or<double>(j, "duration_s", 0);
  s.runs = get_or<int>(j, "runs", 0);
  s.hygiene = hygiene_from(object_member(j, "hygiene"));
  s.contaminated = get_or<bool>(j, "contaminated", false);
  s.contaminated_reasons = get_or<std::vector<std::string>>(j, "contaminated_reasons", {});
  each_entry(j, "load", [&](std::optional<object> entry) {
    if (!entry) {  // lenient: an entry that is not an object is empty
      s.loads.emplace_back();
      return;
    }
    const object o = *entry;
    s.loads.push_back({.kind = get_or<std::string>(o, "kind", ""),
                       .spec = get_or<std::string>(o, "spec", ""),
                       .instances = get_or<int>(o, "instances", 0),
                       .seconds = get_or<double>(o, "seconds", 0),
                       .ops = get_or<std::uint64_t>(o, "ops", 0),
                       .unit = get_or<std::string>(o, "unit", ""),
                       .ops_per_s = get_or<double>(o, "ops_per_s", 0),
                       .note = get_or<std::string>(o, "note", "")});
  });
  array_field(j, "cases", where);  // required; read by the Reader, piece by piece
  // Read in either mode: the gate and the history compare who measured (comparability.h).
  if (const auto imp = object_member(j, "imported")) {
    const std::string iw = where + ".imported";
    s.imported = ImportRecord{.tool = get_or<std::string>(*imp, "tool", ""),
                              .version = get_or<std::string>(*imp, "version", ""),
                              .format = get_or<std::string>(*imp, "format", ""),
                              .files = get_or<std::vector<std::string>>(*imp, "files", {}),
                              .commands = get_or<std::vector<std::string>>(*imp, "commands", {}),
                              .notes = get_or<std::vector<std::string>>(*imp, "notes", {})};
  }
  if (options.history_only) return s;
  if (const auto t = member(j, "trace")) s.trace = trace_record_from(as_nlohmann(*t));
  return s;
}

Encoding encoding_of(const std::string& schema) {
  if (schema == kResultSchema) return {.one_run_when_absent = true};
  if (schema == kResultSchemaV2 || schema == kResultSchemaV1) return {};
  throw JsonError("unsupported schema '" + schema + "' (expected " + kResultSchema + ", " +
                  kResultSchemaV2 + " or " + kResultSchemaV1 + ")");
}

RunReport report_from_element(element root) {
  object doc;
  if (root.get(doc) != simdjson::SUCCESS)
    throw JsonError("not a result document (expected a JSON object)");
  RunReport r;
  encoding_of(get_or<std::string>(doc, "schema", ""));
  check_layout(doc);
  // /1, /2 and /3 encode the same data: the report is the model, whichever encoding it came from.
  r.schema = kResultSchema;
  const auto tool = object_member(doc, "tool");
  r.tool_version = tool ? get_or<std::string>(*tool, "version", "") : "";
  r.started_at = get_or<std::string>(doc, "started_at", "");
  r.finished_at = get_or<std::string>(doc, "finished_at", "");
  r.complete = get<bool>(doc, "complete", "document");
  r.options = run_options_from(doc);
  r.environment = environment_from(object_member(doc, "environment"));
  array_field(doc, "suites", "document");  // required
  return r;
}

}  // namespace rtgate::json_dom
