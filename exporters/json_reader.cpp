// Reading result documents ("rtgate.result/1" and "/2") back into a RunReport (the gate, compare,
// export, the tests). The text is parsed by simdjson's DOM parser, which at lab scale (10,000
// cases, tens of MB) is several times faster than nlohmann's and holds the document in a flat
// tape instead of a tree of allocations; the trace evidence, small and optional, is handed to
// trace_json.cpp as nlohmann values.
#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstring>
#include <type_traits>

#include "exporters/json_exporter.h"
#include "exporters/trace_json.h"

namespace rtgate {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

std::string dump(element v) { return simdjson::minify(v); }

const char* type_name(element v) {
  switch (v.type()) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
    default:
      return "number";
  }
}

// The checked conversions of json_number.h, for simdjson values: an integer type takes only a
// JSON integer within its range, a double only a finite number, a string only a string.
template <class T>
std::optional<T> as(element v) {
  if constexpr (std::same_as<T, bool>) {
    bool b = false;
    if (v.get(b) != simdjson::SUCCESS) return std::nullopt;
    return b;
  } else if constexpr (std::integral<T>) {
    if (v.type() == element_type::UINT64) {
      const std::uint64_t u = v.get_uint64().value_unsafe();
      if (std::cmp_greater(u, std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(u);
    }
    if (v.type() == element_type::INT64) {
      const std::int64_t i = v.get_int64().value_unsafe();
      if (!std::in_range<T>(i)) return std::nullopt;
      return static_cast<T>(i);
    }
    return std::nullopt;
  } else if constexpr (std::floating_point<T>) {
    double d = 0;
    if (v.get(d) != simdjson::SUCCESS || !std::isfinite(d)) return std::nullopt;
    return static_cast<T>(d);
  } else if constexpr (std::same_as<T, std::string>) {
    std::string_view s;
    if (v.get(s) != simdjson::SUCCESS) return std::nullopt;
    return std::string(s);
  } else if constexpr (std::same_as<T, std::vector<std::string>>) {
    array a;
    if (v.get(a) != simdjson::SUCCESS) return std::nullopt;
    T out;
    for (element x : a) {
      auto s = as<std::string>(x);
      if (!s) return std::nullopt;
      out.push_back(std::move(*s));
    }
    return out;
  } else {
    static_assert(std::same_as<T, std::map<std::string, std::string>>);
    object o;
    if (v.get(o) != simdjson::SUCCESS) return std::nullopt;
    T out;
    for (const auto [k, x] : o) {
      auto s = as<std::string>(x);
      if (!s) return std::nullopt;
      out[std::string(k)] = std::move(*s);
    }
    return out;
  }
}

object object_of(element v, const std::string& where) {
  object o;
  if (v.get(o) != simdjson::SUCCESS) throw JsonError(where + ": expected an object");
  return o;
}

std::optional<element> member(object obj, std::string_view key) {
  element v;
  if (obj.at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

// An optional object member: absent or of another type is nullopt.
std::optional<object> object_member(object obj, std::string_view key) {
  object o;
  const auto v = member(obj, key);
  if (!v || v->get(o) != simdjson::SUCCESS) return std::nullopt;
  return o;
}

element field(object obj, const char* key, const std::string& where) {
  const auto v = member(obj, key);
  if (!v) throw JsonError(where + ": missing field '" + key + "'");
  return *v;
}

template <class T>
T get(object obj, const char* key, const std::string& where) {
  const element v = field(obj, key, where);
  if (auto t = as<T>(v)) return *std::move(t);
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (v.is_number()) throw JsonError(where + "." + key + ": " + dump(v) + " is out of range");
  }
  throw JsonError(where + "." + key + ": wrong type (" + type_name(v) + ")");
}

// Optional fields written by later versions or read leniently: absent, null, the wrong type or
// out of range is the fallback.
template <class T>
T get_or(object obj, const char* key, T fallback) {
  const auto v = member(obj, key);
  if (!v || v->is_null()) return fallback;
  return as<T>(*v).value_or(std::move(fallback));
}

array array_of(element v, const std::string& what) {
  array a;
  if (v.get(a) != simdjson::SUCCESS) throw JsonError(what + ": expected an array");
  return a;
}

array array_field(object obj, const char* key, const std::string& where) {
  return array_of(field(obj, key, where), where + "." + key);
}

// The number of elements (array::size() saturates at 2^24 - 1).
std::size_t count_of(array a) {
  const std::size_t n = a.size();
  if (n < 0xFFFFFF) return n;
  std::size_t k = 0;
  for ([[maybe_unused]] element x : a) ++k;
  return k;
}

// A list of finite numbers (samples).
std::vector<double> numbers(object obj, const char* key, const std::string& where) {
  const element v = field(obj, key, where);
  array a;
  if (v.get(a) != simdjson::SUCCESS)
    throw JsonError(where + "." + key + ": expected an array of numbers");
  std::vector<double> out;
  out.reserve(count_of(a));
  for (element x : a) {
    const auto d = as<double>(x);
    if (!d) throw JsonError(where + "." + key + ": a " + type_name(x) + " is not a finite number");
    out.push_back(*d);
  }
  return out;
}

std::uint64_t bucket_value(element v, const std::string& where) {
  const auto u = as<std::uint64_t>(v);
  if (!u) throw JsonError(where + ": bucket value " + dump(v) + " is not a count >= 0");
  return *u;
}

// Trace evidence is read by trace_json.cpp from nlohmann values; it is small and optional, so
// the subtree is handed over as text.
nlohmann::json as_nlohmann(element v) { return nlohmann::json::parse(dump(v)); }

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
  if (const auto extra = object_member(j, "extra")) {
    for (const auto [k, v] : *extra) {
      e.extra[std::string(k)] = as<std::string>(v).value_or(dump(v));
    }
  }
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

// Each element of the array `key` (absent or not an array: none), read leniently: an element
// that is not an object comes as nullopt.
template <class F>
void each_entry(object j, std::string_view key, F&& f) {
  array a;
  if (const auto v = member(j, key); !v || v->get(a) != simdjson::SUCCESS) return;
  for (element x : a) {
    object o;
    if (x.get(o) == simdjson::SUCCESS) {
      f(std::optional<object>(o));
    } else {
      f(std::optional<object>());
    }
  }
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
    // Lenient like the rest of hygiene: an entry that is not "CPU": ms is left out.
    for (const auto [cpu, ms] : *per_cpu) {
      int n = -1;
      const auto [end, ec] = std::from_chars(cpu.data(), cpu.data() + cpu.size(), n);
      const auto v = as<double>(ms);
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

LatencySummary latency_summary_from(element v, const std::string& where) {
  const object s = object_of(v, where);
  LatencySummary r;
  LatencySummary::for_each_field([&](const char* key, auto field) {
    r.*field = get<std::remove_reference_t<decltype(r.*field)>>(s, key, where);
  });
  return r;
}

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
  const std::size_t n = count_of(array_field(cols, "count", where));
  out.resize(n);
  const auto column = [&](const char* key, auto field) {
    const array c = array_field(cols, key, where);
    if (count_of(c) != n) throw JsonError(where + "." + key + ": not one value per run");
    std::size_t i = 0;
    for (element x : c) {
      using T = std::remove_reference_t<decltype(out[i].*field)>;
      const auto v = as<T>(x);
      if (!v) throw JsonError(where + "." + key + ": " + dump(x) + " is not a valid value");
      out[i++].*field = *v;
    }
  };
  LatencySummary::for_each_field(column);
  return out;
}

// What a document's schema changes in how its metrics read.
struct Encoding {
  // /3 leaves out the per-run summaries of a metric with one run, which is its summary; before
  // /3, absent per-run summaries are a file written before they existed.
  bool one_run_when_absent = false;
};

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
  return c;
}

// A suite's own fields (its cases are the Reader's).
SuiteResult suite_from(element v, const std::string& where) {
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
  if (const auto t = member(j, "trace")) s.trace = trace_record_from(as_nlohmann(*t));
  return s;
}

Encoding encoding_of(const std::string& schema) {
  if (schema == kResultSchema) return {.one_run_when_absent = true};
  if (schema == kResultSchemaV2 || schema == kResultSchemaV1) return {};
  throw JsonError("unsupported schema '" + schema + "' (expected " + kResultSchema + ", " +
                  kResultSchemaV2 + " or " + kResultSchemaV1 + ")");
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

// The document's own fields (its suites are the Reader's).
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

// A whole document as one DOM costs its tape (16 bytes a number) and structural index on top
// of the text: about 6 times the text at 10,000 cases. So the document's top level and each
// suite's are walked with simdjson's On-Demand parser, and each piece (a case; a suite's or the
// document's other fields, with "cases" or "suites" left empty) is parsed as a DOM of its own by
// one reused parser. Every byte still goes through a DOM parse, so validation is unchanged.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

  RunReport read(simdjson::ondemand::document& doc) {
    simdjson::ondemand::json_type type{};
    check(doc.type().get(type));
    if (type != simdjson::ondemand::json_type::object)
      throw JsonError("not a result document (expected a JSON object)");
    // The schema first, wherever it is (the writer puts it first): it says how metrics read, and
    // a document of another kind is named as such rather than by a field its suites lack.
    std::string_view schema;
    simdjson::ondemand::value schema_value;
    if (const auto err = doc.find_field_unordered("schema").get(schema_value)) {
      if (err != simdjson::NO_SUCH_FIELD) check(err);
    } else if (const auto e = schema_value.get_string().get(schema); e != simdjson::SUCCESS) {
      if (e != simdjson::INCORRECT_TYPE) check(e);
      schema = {};
    }
    enc_ = encoding_of(std::string(schema));
    doc.rewind();
    simdjson::ondemand::object top;
    check(doc.get_object().get(top));
    std::vector<SuiteResult> suites;
    Rest rest =
        walk(top, "suites", "document.suites", [&](simdjson::ondemand::value v, std::size_t i) {
          suites.push_back(suite(v, "suites[" + std::to_string(i) + "]"));
        });
    // Iterated to its end, the document has no current location unless something follows it.
    if (const char* after = nullptr; doc.current_location().get(after) == simdjson::SUCCESS) {
      throw JsonError(what_ + " is not valid JSON (content after the document)");
    }
    RunReport r = report_from_element(whole(rest.close()));
    r.suites = std::move(suites);
    return r;
  }

 private:
  // A JSON object's text, built from raw member texts.
  struct Rest {
    std::string text = "{";
    void add(std::string_view key, std::string_view raw) {
      if (text.size() > 1) text += ',';
      text += nlohmann::json(std::string(key)).dump();
      text += ':';
      text += raw;
    }
    const std::string& close() { return text += '}'; }
  };

  void check(simdjson::error_code e) const {
    if (e != simdjson::SUCCESS) {
      throw JsonError(what_ + " is not valid JSON (" + simdjson::error_message(e) + ")");
    }
  }

  simdjson::ondemand::array array_value(simdjson::ondemand::value v, const std::string& what) {
    simdjson::ondemand::json_type type{};
    check(v.type().get(type));
    if (type != simdjson::ondemand::json_type::array) throw JsonError(what + ": expected an array");
    simdjson::ondemand::array a;
    check(v.get_array().get(a));
    return a;
  }

  std::string_view raw_of(simdjson::ondemand::value v) {
    std::string_view raw;
    check(simdjson::to_json_string(v).get(raw));
    return raw;
  }

  // A piece inside the padded input: the input's padding lies behind it, so no copy.
  element piece(std::string_view raw) {
    element e;
    check(dom_.parse(raw.data(), raw.size(), false).get(e));
    return e;
  }
  element whole(const std::string& text) {
    element e;
    check(dom_.parse(text).get(e));
    return e;
  }

  // An object's members: the first array named `streamed`, element by element through
  // each(value, index); every other member into the returned Rest, with `streamed` as [].
  template <class Each>
  Rest walk(simdjson::ondemand::object o, std::string_view streamed, const std::string& what,
            Each&& each) {
    Rest rest;
    bool seen = false;
    for (auto f : o) {
      simdjson::ondemand::field field;
      check(std::move(f).get(field));
      std::string_view key;
      check(field.unescaped_key().get(key));
      if (key != streamed || seen) {
        rest.add(key, raw_of(field.value()));
        continue;
      }
      seen = true;
      rest.add(key, "[]");
      std::size_t i = 0;
      for (auto x : array_value(field.value(), what)) {
        simdjson::ondemand::value v;
        check(std::move(x).get(v));
        each(v, i++);
      }
    }
    return rest;
  }

  SuiteResult suite(simdjson::ondemand::value v, const std::string& where) {
    simdjson::ondemand::json_type type{};
    check(v.type().get(type));
    if (type != simdjson::ondemand::json_type::object)
      throw JsonError(where + ": expected an object");
    simdjson::ondemand::object o;
    check(v.get_object().get(o));
    std::vector<Case> cases;
    Rest rest = walk(o, "cases", where + ".cases", [&](simdjson::ondemand::value c, std::size_t i) {
      cases.push_back(
          case_from(piece(raw_of(c)), where + ".cases[" + std::to_string(i) + "]", enc_));
    });
    SuiteResult s = suite_from(whole(rest.close()), where);
    s.cases = std::move(cases);
    return s;
  }

  std::string what_;
  Encoding enc_;
  simdjson::dom::parser dom_;
};

// Parses `len` bytes at `data`, followed by `capacity - len` >= SIMDJSON_PADDING readable bytes.
// `what` names the input in the error.
RunReport parse_padded(const char* data, std::size_t len, std::size_t capacity,
                       const std::string& what) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (const auto err = parser.iterate(data, len, capacity).get(doc)) {
    throw JsonError(what + " is not valid JSON (" + simdjson::error_message(err) + ")");
  }
  return Reader(what).read(doc);
}

}  // namespace

RunReport report_from_text(std::string_view text) {
  const simdjson::padded_string padded(text);
  return parse_padded(padded.data(), padded.size(), padded.size() + simdjson::SIMDJSON_PADDING,
                      "the document");
}

RunReport report_from_json(const nlohmann::json& doc) { return report_from_text(doc.dump()); }

RunReport read_report_file(const std::string& path) {
  // Read whole with read(2), into a buffer with simdjson's padding behind it (no second copy);
  // pipes and process substitutions work as well as regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw JsonError("cannot read '" + path + "': " + std::strerror(errno));
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    // Its size and one byte more (to see the end without growing), and the padding behind.
    const auto size = static_cast<std::size_t>(st.st_size) + 1;
    text.reserve(size + simdjson::SIMDJSON_PADDING);
    text.resize(size);
  }
  std::size_t len = 0;
  for (;;) {
    if (len == text.size()) text.resize(std::max<std::size_t>(text.size() * 2, 65536));
    const ssize_t n = ::read(fd, text.data() + len, text.size() - len);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw JsonError("cannot read '" + path + "': " + std::strerror(e));
    }
    len += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(len + simdjson::SIMDJSON_PADDING);
  return parse_padded(text.data(), len, text.size(), "'" + path + "'");
}

}  // namespace rtgate
