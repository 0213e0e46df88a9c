// Reading "rtgate.result/1" documents back into a RunReport (the gate, compare, tests).
#include <charconv>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "exporters/json_exporter.h"
#include "exporters/json_number.h"
#include "exporters/trace_json.h"

namespace rtgate {
namespace {

using json = nlohmann::json;

const json& field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) throw JsonError(where + ": expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) throw JsonError(where + ": missing field '" + key + "'");
  return *it;
}

template <class T>
T get(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (auto t = json_number::as<T>(v)) return *std::move(t);
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (v.is_number()) throw JsonError(where + "." + key + ": " + v.dump() + " is out of range");
  }
  throw JsonError(where + "." + key + ": wrong type (" + v.type_name() + ")");
}

// Optional fields written by later versions or read leniently: absent, null, the wrong type or
// out of range is the fallback.
template <class T>
T get_or(const json& obj, const char* key, T fallback) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  return json_number::as<T>(*it).value_or(std::move(fallback));
}

// A list of finite numbers (samples).
std::vector<double> numbers(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (!v.is_array()) throw JsonError(where + "." + key + ": expected an array of numbers");
  std::vector<double> out;
  out.reserve(v.size());
  for (const json& x : v) {
    const auto d = json_number::as<double>(x);
    if (!d) throw JsonError(where + "." + key + ": a " + x.type_name() + " is not a finite number");
    out.push_back(*d);
  }
  return out;
}

std::uint64_t bucket_value(const json& v, const std::string& where) {
  const auto u = json_number::as<std::uint64_t>(v);
  if (!u) throw JsonError(where + ": bucket value " + v.dump() + " is not a count >= 0");
  return *u;
}

const json& array_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (!v.is_array()) throw JsonError(where + "." + key + ": expected an array");
  return v;
}

Environment environment_from(const json& j) {
  Environment e;
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
  if (const auto it = j.find("extra"); it != j.end() && it->is_object()) {
    for (const auto& [k, v] : it->items())
      e.extra[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  return e;
}

// Absent in files written before rtgate recorded its options (recorded stays false); when
// present, every field is required and typed, as the writer always writes them all.
RunOptionsRecord run_options_from(const json& doc) {
  RunOptionsRecord o;
  const auto it = doc.find("run_options");
  if (it == doc.end()) return o;
  const std::string where = "run_options";
  if (!it->is_object()) throw JsonError(where + ": expected an object");
  o.duration_s = get<double>(*it, "duration_s", where);
  o.runs = get<int>(*it, "runs", where);
  o.cpus = get<std::string>(*it, "cpus", where);
  o.load = get<std::string>(*it, "load", where);
  o.watchdog_s = get<double>(*it, "watchdog_s", where);
  o.require_rt = get<bool>(*it, "require_rt", where);
  o.recorded = true;
  return o;
}

Hygiene hygiene_from(const json& j) {
  Hygiene h;
  if (!j.is_object()) return h;
  if (const auto it = j.find("foreign_rt_threads"); it != j.end() && it->is_array()) {
    for (const json& t : *it) {
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
    }
  }
  h.steal_ms = get_or<double>(j, "steal_ms", 0);
  if (const auto it = j.find("steal_ms_per_cpu"); it != j.end() && it->is_object()) {
    // Lenient like the rest of hygiene: an entry that is not "CPU": ms is left out.
    for (const auto& [cpu, ms] : it->items()) {
      int n = -1;
      const auto [end, ec] = std::from_chars(cpu.data(), cpu.data() + cpu.size(), n);
      const auto v = json_number::as<double>(ms);
      if (ec == std::errc() && end == cpu.data() + cpu.size() && n >= 0 && v) {
        h.steal_ms_per_cpu[n] = *v;
      }
    }
  }
  h.rt_throttled = get_or<std::int64_t>(j, "rt_throttled", -1);
  h.rt_throttled_source = get_or<std::string>(j, "rt_throttled_source", "");
  h.missed_periods = get_or<std::uint64_t>(j, "missed_periods", 0);
  return h;
}

LatencySummary latency_summary_from(const json& s, const std::string& where) {
  if (!s.is_object()) throw JsonError(where + ": expected an object");
  LatencySummary r;
  LatencySummary::for_each_field([&](const char* key, auto field) {
    r.*field = get<std::remove_reference_t<decltype(r.*field)>>(s, key, where);
  });
  return r;
}

// A histogram's non-empty buckets as (index, count): /2's "spans" ([first index, count, ...]) or
// /1's "buckets" ([lower_ns, upper_ns, count], each checked against the layout).
std::vector<std::pair<std::uint32_t, std::uint64_t>> histogram_buckets(const json& h,
                                                                       const std::string& hw) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  if (h.is_object() && h.contains("spans")) {
    for (const json& span : array_field(h, "spans", hw)) {
      if (!span.is_array() || span.size() < 2)
        throw JsonError(hw + ": a span is not [first index, count, ...]");
      const std::uint64_t first = bucket_value(span[0], hw);
      if (first >= LatencyHistogram::kBuckets ||
          span.size() - 1 > LatencyHistogram::kBuckets - first)
        throw JsonError(hw + ": a span reaches past the layout's last bucket");
      for (std::size_t k = 1; k < span.size(); ++k) {
        out.emplace_back(static_cast<std::uint32_t>(first + k - 1), bucket_value(span[k], hw));
      }
    }
    return out;
  }
  for (const json& b : array_field(h, "buckets", hw)) {
    if (!b.is_array() || b.size() != 3)
      throw JsonError(hw + ": a bucket is not [lower, upper, count]");
    const auto i = LatencyHistogram::index_of(bucket_value(b[0], hw), bucket_value(b[1], hw));
    if (!i) {
      throw JsonError(hw + ": buckets do not match the log-linear layout, the count or [min, max]");
    }
    out.emplace_back(static_cast<std::uint32_t>(*i), bucket_value(b[2], hw));
  }
  return out;
}

// Per-run summaries: /2's columns ({"count": [...], ...}, every column as long as "count") or
// /1's array of summary objects.
std::vector<LatencySummary> runs_from(const json& runs, const std::string& where) {
  std::vector<LatencySummary> out;
  if (runs.is_array()) {
    std::size_t i = 0;
    for (const json& r : runs) {
      out.push_back(latency_summary_from(r, where + "[" + std::to_string(i++) + "]"));
    }
    return out;
  }
  if (!runs.is_object()) throw JsonError(where + ": expected columns or an array of summaries");
  const std::size_t n = array_field(runs, "count", where).size();
  out.resize(n);
  const auto column = [&](const char* key, auto field) {
    const json& c = array_field(runs, key, where);
    if (c.size() != n) throw JsonError(where + "." + key + ": not one value per run");
    for (std::size_t i = 0; i < n; ++i) {
      using T = std::remove_reference_t<decltype(out[i].*field)>;
      const auto v = json_number::as<T>(c[i]);
      if (!v) throw JsonError(where + "." + key + ": " + c[i].dump() + " is not a valid value");
      out[i].*field = *v;
    }
  };
  LatencySummary::for_each_field(column);
  return out;
}

Metric metric_from(const json& j, const std::string& where) {
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
  if (m.kind == MetricKind::kLatency) {
    const std::string hw = where + ".histogram";
    const json& h = field(j, "histogram", where);
    const json& s = field(j, "summary", where);
    const std::string sw = where + ".summary";
    LatencyHistogram hist = LatencyHistogram::empty_compact();
    if (!hist.restore_indexed(histogram_buckets(h, hw), get<std::uint64_t>(s, "count", sw),
                              get<std::uint64_t>(s, "min", sw), get<std::uint64_t>(s, "max", sw),
                              get<double>(s, "mean", sw), get<double>(s, "stddev", sw),
                              get<std::uint64_t>(s, "overflow", sw))) {
      throw JsonError(hw + ": buckets do not match the log-linear layout, the count or [min, max]");
    }
    m.histogram = std::move(hist);
    // Per-run summaries: absent in files written before they existed, which the gate then
    // judges on pooled samples alone.
    if (j.contains("runs")) m.runs = runs_from(j["runs"], where + ".runs");
  }
  return m;
}

ParamValue param_from(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (const auto i = json_number::as<std::int64_t>(v)) return *i;
  if (const auto d = json_number::as<double>(v)) return *d;
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

SuiteResult suite_from(const json& j, const std::string& where) {
  SuiteResult s;
  s.name = get<std::string>(j, "name", where);
  if (const auto it = j.find("params"); it != j.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) s.params[k] = param_from(v);
  }
  const auto status = suite_status_from(get<std::string>(j, "status", where));
  if (!status) throw JsonError(where + ".status: expected passed|failed|skipped|error");
  s.status = *status;
  s.reason = get_or<std::string>(j, "reason", "");
  s.duration_s = get_or<double>(j, "duration_s", 0);
  s.runs = get_or<int>(j, "runs", 0);
  s.hygiene = hygiene_from(j.value("hygiene", json::object()));
  s.contaminated = get_or<bool>(j, "contaminated", false);
  s.contaminated_reasons = get_or<std::vector<std::string>>(j, "contaminated_reasons", {});
  if (const auto it = j.find("load"); it != j.end() && it->is_array()) {
    for (const json& l : *it) {
      s.loads.push_back({.kind = get_or<std::string>(l, "kind", ""),
                         .spec = get_or<std::string>(l, "spec", ""),
                         .instances = get_or<int>(l, "instances", 0),
                         .seconds = get_or<double>(l, "seconds", 0),
                         .ops = get_or<std::uint64_t>(l, "ops", 0),
                         .unit = get_or<std::string>(l, "unit", ""),
                         .ops_per_s = get_or<double>(l, "ops_per_s", 0),
                         .note = get_or<std::string>(l, "note", "")});
    }
  }
  const json& cases = array_field(j, "cases", where);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string cw = where + ".cases[" + std::to_string(i) + "]";
    Case c;
    c.name = get<std::string>(cases[i], "name", cw);
    c.labels = get_or<std::map<std::string, std::string>>(cases[i], "labels", {});
    c.contaminated = get_or<bool>(cases[i], "contaminated", false);
    c.contaminated_reasons = get_or<std::vector<std::string>>(cases[i], "contaminated_reasons", {});
    const json& metrics = array_field(cases[i], "metrics", cw);
    for (std::size_t k = 0; k < metrics.size(); ++k) {
      c.metrics.push_back(metric_from(metrics[k], cw + ".metrics[" + std::to_string(k) + "]"));
    }
    if (const auto a = cases[i].find("analysis"); a != cases[i].end())
      c.analysis = analyses_from(*a);
    s.cases.push_back(std::move(c));
  }
  if (const auto t = j.find("trace"); t != j.end()) s.trace = trace_record_from(*t);
  return s;
}

}  // namespace

RunReport report_from_json(const json& doc) {
  if (!doc.is_object()) throw JsonError("not a result document (expected a JSON object)");
  RunReport r;
  const auto schema = get_or<std::string>(doc, "schema", "");
  if (schema != kResultSchema && schema != kResultSchemaV1) {
    throw JsonError("unsupported schema '" + schema + "' (expected " + kResultSchema + " or " +
                    kResultSchemaV1 + ")");
  }
  // /1 and /2 encode the same data: the report is the model, whichever encoding it came from.
  r.schema = kResultSchema;
  r.tool_version = doc.contains("tool") ? get_or<std::string>(doc["tool"], "version", "") : "";
  r.started_at = get_or<std::string>(doc, "started_at", "");
  r.finished_at = get_or<std::string>(doc, "finished_at", "");
  r.complete = get<bool>(doc, "complete", "document");
  r.options = run_options_from(doc);
  r.environment = environment_from(doc.value("environment", json::object()));
  const json& suites = array_field(doc, "suites", "document");
  for (std::size_t i = 0; i < suites.size(); ++i) {
    r.suites.push_back(suite_from(suites[i], "suites[" + std::to_string(i) + "]"));
  }
  return r;
}

RunReport read_report_file(const std::string& path) {
  // The whole file first, then the parse from memory: nlohmann's stream adapter reads a
  // character at a time through the streambuf, which made it most of a large result's load time.
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JsonError("cannot read '" + path + "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();  // one block copy; an empty file (or a directory) reads as ""
  if (in.bad()) throw JsonError("cannot read '" + path + "'");
  std::string text = std::move(buffer).str();
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw JsonError("'" + path + "' is not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  text = std::string();  // the document holds it all now
  return report_from_json(doc);
}

}  // namespace rtgate
