// cyclictest --json (rt-tests 2.x) as a `cyclic` result: one case per thread (cpuN when each
// thread had a CPU of its own), wakeup_latency from its histogram (-h) or, without one, its
// count, min, avg and max alone (a summary-only metric: the gate judges the max only).
//
// The file records per thread only cycles, min, max, avg, cpu and the histogram; interval,
// priority, policy and distance come from its command line, with cyclictest's defaults (-i 1000,
// -d 500 but 0 under -h, -p 0 meaning SCHED_OTHER). Options that change what is measured and
// have no `cyclic` counterpart (-r, -x, -s, -c 1, --priospread, ...) become parameters of their
// own, so a gate against rtgate's cyclic lists them.
#include <algorithm>
#include <map>
#include <set>

#include "base/text/cpu_list.h"
#include "importers/importer.h"
#include "importers/rt_tests_json.h"
#include "importers/tool_histogram.h"
#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

using nlohmann::json;
using Arg = OptionSpec::Arg;

const std::vector<OptionSpec>& cyclictest_options() {
  static const std::vector<OptionSpec> specs = {{'a', "affinity", Arg::kOptional},
                                                {'A', "aligned", Arg::kRequired},
                                                {'b', "breaktrace", Arg::kRequired},
                                                {'c', "clock", Arg::kRequired},
                                                {0, "default-system", Arg::kNone},
                                                {'d', "distance", Arg::kRequired},
                                                {'D', "duration", Arg::kRequired},
                                                {'F', "fifo", Arg::kRequired},
                                                {'h', "histogram", Arg::kRequired},
                                                {'H', "histofall", Arg::kRequired},
                                                {0, "histfile", Arg::kRequired},
                                                {'i', "interval", Arg::kRequired},
                                                {0, "json", Arg::kRequired},
                                                {0, "laptop", Arg::kNone},
                                                {0, "latency", Arg::kRequired},
                                                {'l', "loops", Arg::kRequired},
                                                {0, "mainaffinity", Arg::kRequired},
                                                {'m', "mlockall", Arg::kNone},
                                                {'M', "refresh_on_max", Arg::kNone},
                                                {'N', "nsecs", Arg::kNone},
                                                {'o', "oscope", Arg::kRequired},
                                                {'p', "priority", Arg::kRequired},
                                                {0, "policy", Arg::kRequired},
                                                {0, "priospread", Arg::kNone},
                                                {'q', "quiet", Arg::kNone},
                                                {'r', "relative", Arg::kNone},
                                                {'R', "resolution", Arg::kNone},
                                                {0, "secaligned", Arg::kOptional},
                                                {'s', "system", Arg::kNone},
                                                {'S', "smp", Arg::kNone},
                                                {0, "spike", Arg::kRequired},
                                                {0, "spike-nodes", Arg::kRequired},
                                                {0, "smi", Arg::kNone},
                                                {'t', "threads", Arg::kOptional},
                                                {0, "tracemark", Arg::kNone},
                                                {'u', "unbuffered", Arg::kNone},
                                                {'v', "verbose", Arg::kNone},
                                                {0, "dbg_cyclictest", Arg::kNone},
                                                {'x', "posix_timers", Arg::kNone}};
  return specs;
}

std::int64_t int_option(const ToolOptions& o, const char* key, std::int64_t def,
                        const std::string& file) {
  const auto v = o.value(key);
  if (!v) return def;
  const auto n = parse_whole(*v);
  if (!n) throw ImportError(file + ": cmdline: --" + key + " " + *v + " is not a whole number");
  return *n;
}

bool detect(const ImportInput& in) {
  if (!is_rt_tests_json(in.json)) return false;
  const std::string p = rt_tests_program(*in.json);
  return p == "cyclictest" || (p.empty() && in.json->contains("resolution_in_ns"));
}

// The parameters `cyclic` has, then the options it has no counterpart of (non-default only).
std::map<std::string, ParamValue> params_of(const ToolOptions& o, const std::vector<int>& cpus,
                                            bool histogram, const std::string& file) {
  std::map<std::string, ParamValue> p;
  const std::int64_t prio = int_option(o, "priority", 0, file);
  std::string policy = o.value("policy").value_or(prio > 0 ? "fifo" : "other");
  if (policy == "normal") policy = "other";
  p["interval_us"] = int_option(o, "interval", 1000, file);
  p["priority"] = prio;
  p["policy"] = policy;
  p["distance_us"] = histogram ? 0 : int_option(o, "distance", 500, file);
  if (!cpus.empty()) p["cpus"] = text::format_cpu_list(cpus);
  if (o.has("relative")) p["relative"] = true;
  if (o.has("posix_timers")) p["posix_timers"] = true;
  if (o.has("system")) p["system_calls"] = true;
  if (int_option(o, "clock", 0, file) != 0) p["clock"] = std::string("realtime");
  if (o.has("priospread")) p["priospread"] = true;
  if (o.has("aligned")) p["aligned_us"] = int_option(o, "aligned", 0, file);
  if (o.has("secaligned")) p["secaligned"] = true;
  if (o.has("breaktrace")) p["breaktrace_us"] = int_option(o, "breaktrace", 0, file);
  if (o.has("laptop")) p["laptop"] = true;
  if (o.has("default-system")) p["default_system"] = true;
  if (int_option(o, "latency", 0, file) != 0)
    p["latency_target_us"] = int_option(o, "latency", 0, file);
  return p;
}

// How a file's threads become cases.
struct ThreadCases {
  std::string file;
  bool own_cpus = false;   // every thread on a CPU of its own: cases are named by CPU
  bool rt = false;         // SCHED_FIFO or SCHED_RR threads
  bool histogram = false;  // -h: latencies as histograms, else the summary only
  std::uint64_t unit_ns = 1000;
  std::int64_t interval_us = 0, distance_us = 0;
};

// Thread `i`'s case: its wakeup latency as a histogram (-h) or as its summary.
Case thread_case(std::uint64_t i, const json& t, const ThreadCases& how) {
  const std::string w = how.file + ": thread." + std::to_string(i);
  const std::uint64_t cycles = whole(member(t, "cycles", w), w + ".cycles");
  const std::uint64_t min = whole(member(t, "min", w), w + ".min");
  const std::uint64_t max = whole(member(t, "max", w), w + ".max");
  const double avg = number(member(t, "avg", w), w + ".avg");
  const json* cpu = optional_member(t, "cpu");
  const std::int64_t c = cpu != nullptr ? integer(*cpu, w + ".cpu") : -1;
  Case k;
  k.name = how.own_cpus ? "cpu" + std::to_string(c) : "thread" + std::to_string(i);
  if (c >= 0) k.labels["cpu"] = std::to_string(c);
  k.labels["thread_class"] = how.rt ? "rt" : "nonrt";
  k.labels["period_us"] =
      std::to_string(how.interval_us + static_cast<std::int64_t>(i) * how.distance_us);
  if (how.histogram) {
    ToolHistogram th{.count = cycles, .min = min, .max = max, .mean = avg, .unit_ns = how.unit_ns};
    std::uint64_t in_buckets = 0;
    if (const json* hist = optional_member(t, "histogram")) {
      for (const auto& [key, n] : hist->items()) {
        const auto v = parse_whole(key);
        if (!v) throw ImportError(w + ".histogram: bucket '" + key + "' is not a number");
        const std::uint64_t c2 = whole(n, w + ".histogram." + key);
        // Checked before adding: a count near 2^64 would wrap the sum past the check.
        if (c2 > cycles - in_buckets) {
          throw ImportError(w + ": the histogram holds more samples than its " +
                            std::to_string(cycles) + " cycles");
        }
        th.buckets[static_cast<std::uint64_t>(*v)] += c2;
        in_buckets += c2;
      }
    }
    th.overflow = cycles - in_buckets;
    k.metrics.push_back(histogram_metric("wakeup_latency", th, w));
  } else {
    k.metrics.push_back(summary_metric("wakeup_latency", cycles, min, avg, max, how.unit_ns, w));
  }
  return k;
}

RunReport parse(const ImportInput& in) {
  const json& j = *in.json;
  const RtTestsHeader h = read_rt_tests_header(j, in.name);
  const ToolOptions o(h.args, cyclictest_options());
  std::optional<double> duration;
  if (const auto d = o.value("duration")) {
    duration = parse_tool_duration(*d);
    if (!duration) throw ImportError(in.name + ": cmdline: -D " + *d + " is not a duration");
  }
  const std::uint64_t unit_ns =
      optional_member(j, "resolution_in_ns") &&
              integer(*optional_member(j, "resolution_in_ns"), in.name + ": resolution_in_ns") != 0
          ? 1
          : 1000;
  const std::map<std::uint64_t, const json*> by_index = threads_by_index(j, in.name, "thread");
  bool any_histogram = false;
  std::vector<int> cpus;
  std::map<int, int> per_cpu;
  for (const auto& [i, t] : by_index) {
    const std::string w = in.name + ": thread." + std::to_string(i);
    const json* hist = optional_member(*t, "histogram");
    if (hist != nullptr && !object(*hist, w + ".histogram").empty()) any_histogram = true;
    const json* cpu = optional_member(*t, "cpu");
    const std::int64_t c = cpu != nullptr ? integer(*cpu, w + ".cpu") : -1;
    if (c >= 0 && c < 1 << 20) {
      cpus.push_back(static_cast<int>(c));
      ++per_cpu[static_cast<int>(c)];
    }
  }
  // -h with every sample beyond its range leaves an empty histogram: the command line tells.
  const bool histogram = any_histogram || o.has("histogram") || o.has("histofall");
  const bool own_cpus =
      cpus.size() == by_index.size() &&
      std::all_of(per_cpu.begin(), per_cpu.end(), [](const auto& e) { return e.second == 1; });
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());

  RunReport r = rt_tests_report(h, in, "cyclic", "cyclictest-json", duration);
  SuiteResult& s = r.suites.front();
  s.params = params_of(o, own_cpus ? cpus : std::vector<int>{}, histogram, in.name);
  if (!o.has("mlockall")) r.environment.extra["mlockall"] = "cyclictest ran without -m";
  // cyclictest holds /dev/cpu_dma_latency at --latency (0) unless --laptop or
  // --default-system; the file does not record whether it could, so the request is taken.
  if (!o.has("laptop") && !o.has("default-system")) {
    r.environment.extra["cpu_dma_latency_hold"] =
        std::to_string(int_option(o, "latency", 0, in.name)) + " us";
    s.imported->notes.push_back(
        "cpu_dma_latency: cyclictest requests the hold; the file does not record that it held");
  }
  const std::int64_t interval = std::get<std::int64_t>(s.params["interval_us"]);
  const std::int64_t distance = std::get<std::int64_t>(s.params["distance_us"]);
  const bool rt = std::get<std::string>(s.params["policy"]) == "fifo" ||
                  std::get<std::string>(s.params["policy"]) == "rr";
  const ThreadCases how{.file = in.name,
                        .own_cpus = own_cpus,
                        .rt = rt,
                        .histogram = histogram,
                        .unit_ns = unit_ns,
                        .interval_us = interval,
                        .distance_us = distance};
  for (const auto& [i, t] : by_index) s.cases.push_back(thread_case(i, *t, how));
  if (!histogram) {
    s.imported->notes.push_back(
        "no histogram (cyclictest without -h): wakeup_latency has count, min, mean and max "
        "only; the gate judges its max, not its quantiles");
  }
  if (unit_ns == 1000) {
    s.imported->notes.push_back(
        "cyclictest truncates latencies to whole microseconds: the imported values are up to "
        "1 us below the measured ones");
  }
  return r;
}

}  // namespace
}  // namespace rtgate::importers

RTGATE_IMPORTER({.name = "cyclictest-json",
                 .description = "cyclictest --json (rt-tests 2.x), with or without -h",
                 .detect = &rtgate::importers::detect,
                 .parse = &rtgate::importers::parse});
