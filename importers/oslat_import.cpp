// oslat --json (rt-tests 2.x) as an `oslat` result: one case per measured CPU, loop_latency the
// time one busy-loop iteration took (what the OS stole from it shows as a long one), from its
// histogram of 1 us buckets.
//
// oslat counts an iteration of i..i+1 us in the bucket it prints as i+1 us, and its min and max
// likewise, so the imported values are up to 1 us above the measured ones. Its last bucket
// (--bucket-size, 32 by default) holds every longer iteration too: when the max lies beyond the
// last bucket, that bucket's samples are known only to lie between it and the max (treated as
// overflow, tool_histogram.h). With -B the first bucket also holds every shorter iteration.
#include <map>

#include "base/text/cpu_list.h"
#include "importers/importer.h"
#include "importers/rt_tests_json.h"
#include "importers/tool_histogram.h"
#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

using nlohmann::json;
using Arg = OptionSpec::Arg;

const std::vector<OptionSpec>& oslat_options() {
  static const std::vector<OptionSpec> specs = {{'b', "bucket-size", Arg::kRequired},
                                                {'B', "bias", Arg::kNone},
                                                {'c', "cpu-list", Arg::kRequired},
                                                {'C', "cpu-main-thread", Arg::kRequired},
                                                {'D', "duration", Arg::kRequired},
                                                {0, "json", Arg::kRequired},
                                                {'f', "rtprio", Arg::kRequired},
                                                {'m', "workload-mem", Arg::kRequired},
                                                {'q', "quiet", Arg::kNone},
                                                {'s', "single-preheat", Arg::kNone},
                                                {'T', "trace-threshold", Arg::kRequired},
                                                {'v', "version", Arg::kNone},
                                                {'w', "workload", Arg::kRequired},
                                                {'z', "zero-omit", Arg::kNone}};
  return specs;
}

bool detect(const ImportInput& in) {
  if (!is_rt_tests_json(in.json)) return false;
  const std::string p = rt_tests_program(*in.json);
  if (p == "oslat") return true;
  if (!p.empty()) return false;
  const json* t = optional_member(*in.json, "thread");
  if (t == nullptr || !t->is_object() || t->empty()) return false;
  const json& first = t->begin().value();
  return first.is_object() && first.contains("freq");
}

RunReport parse(const ImportInput& in) {
  const json& j = *in.json;
  const RtTestsHeader h = read_rt_tests_header(j, in.name);
  const ToolOptions o(h.args, oslat_options());
  std::optional<double> duration;
  if (const auto d = o.value("duration")) {
    duration = parse_tool_duration(*d);
    if (!duration) throw ImportError(in.name + ": cmdline: -D " + *d + " is not a duration");
  }
  RunReport r = rt_tests_report(h, in, "oslat", "oslat-json", duration);
  SuiteResult& s = r.suites.front();
  const auto whole_option = [&](const char* key, std::int64_t def) -> std::int64_t {
    const auto v = o.value(key);
    if (!v) return def;
    const auto n = parse_whole(*v);
    if (!n) throw ImportError(in.name + ": cmdline: --" + key + " " + *v + " is not a number");
    return *n;
  };
  // Named as rtgate's oslat suite names them where they mean the same; the histogram's shape
  // (-b, -B) is how oslat counted, not what it measured.
  const std::int64_t rtprio = whole_option("rtprio", 0);
  s.params["policy"] = std::string(rtprio > 0 ? "fifo" : "other");
  if (rtprio > 0) s.params["priority"] = rtprio;
  if (o.value("workload").value_or("no") != "no") {
    s.params["workload"] = *o.value("workload");
    s.params["workload_mem"] = o.value("workload-mem").value_or("default");
  }
  if (o.has("single-preheat")) s.params["single_preheat"] = true;

  const std::map<std::uint64_t, const json*> by_index = threads_by_index(j, in.name, "thread");
  std::vector<int> cpus;
  for (const auto& [i, t] : by_index) {
    const std::string w = in.name + ": thread." + std::to_string(i);
    const std::int64_t cpu = integer(member(*t, "cpu", w), w + ".cpu");
    ToolHistogram th{.min = whole(member(*t, "min", w), w + ".min"),
                     .max = whole(member(*t, "max", w), w + ".max"),
                     .mean = number(member(*t, "avg", w), w + ".avg"),
                     .unit_ns = 1000};
    for (const auto& [key, n] : object(member(*t, "histogram", w), w + ".histogram").items()) {
      const auto v = parse_whole(key);
      if (!v) throw ImportError(w + ".histogram: bucket '" + key + "' is not a number");
      const std::uint64_t c = whole(n, w + ".histogram." + key);
      if (c > UINT64_MAX / 2 - th.count) throw ImportError(w + ".histogram: counts too large");
      th.buckets[static_cast<std::uint64_t>(*v)] += c;
      th.count += c;
    }
    if (!th.buckets.empty() && th.max > th.buckets.rbegin()->first) {
      // The last bucket, which the max is beyond, holds every longer iteration.
      th.overflow = th.buckets.rbegin()->second;
      th.buckets.erase(std::prev(th.buckets.end()));
    }
    Case k;
    k.name = "cpu" + std::to_string(cpu);
    k.labels["cpu"] = std::to_string(cpu);
    k.labels["thread_class"] = rtprio > 0 ? "rt" : "nonrt";
    k.metrics.push_back(histogram_metric("loop_latency", th, w));
    s.cases.push_back(std::move(k));
    if (cpu >= 0 && cpu < 1 << 20) cpus.push_back(static_cast<int>(cpu));
  }
  s.params["cpus"] = text::format_cpu_list(cpus);
  s.imported->notes.push_back(
      "oslat rounds each iteration up to a whole microsecond: the imported values are up to "
      "1 us above the measured ones");
  return r;
}

}  // namespace
}  // namespace rtgate::importers

RTGATE_IMPORTER({.name = "oslat-json",
                 .description = "oslat --json (rt-tests 2.x)",
                 .detect = &rtgate::importers::detect,
                 .parse = &rtgate::importers::parse});
