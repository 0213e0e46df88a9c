// signaltest --json (rt-tests 2.x) as a `signaltest` result: one case per thread of the signal
// chain, wakeup_latency summary-only (signaltest keeps no histogram: count, min, avg, max).
#include <map>

#include "importers/importer.h"
#include "importers/rt_tests_json.h"
#include "importers/tool_histogram.h"
#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

using nlohmann::json;
using Arg = OptionSpec::Arg;

const std::vector<OptionSpec>& signaltest_options() {
  static const std::vector<OptionSpec> specs = {
      {'a', "affinity", Arg::kOptional}, {'b', "breaktrace", Arg::kRequired},
      {'D', "duration", Arg::kRequired}, {'h', "help", Arg::kNone},
      {0, "json", Arg::kRequired},       {'l', "loops", Arg::kRequired},
      {'m', "mlockall", Arg::kNone},     {'p', "prio", Arg::kRequired},
      {'q', "quiet", Arg::kNone},        {'t', "threads", Arg::kRequired},
      {'v', "verbose", Arg::kNone}};
  return specs;
}

bool detect(const ImportInput& in) {
  return is_rt_tests_json(in.json) && rt_tests_program(*in.json) == "signaltest";
}

RunReport parse(const ImportInput& in) {
  const json& j = *in.json;
  const RtTestsHeader h = read_rt_tests_header(j, in.name);
  const ToolOptions o(h.args, signaltest_options());
  std::optional<double> duration;
  if (const auto d = o.value("duration")) {
    duration = parse_tool_duration(*d);
    if (!duration) throw ImportError(in.name + ": cmdline: -D " + *d + " is not a duration");
  }
  RunReport r = rt_tests_report(h, in, "signaltest", "signaltest-json", duration);
  SuiteResult& s = r.suites.front();
  const auto prio = parse_whole(o.value("prio").value_or("0"));
  if (!prio) throw ImportError(in.name + ": cmdline: -p is not a number");
  s.params["priority"] = static_cast<std::int64_t>(*prio);
  if (o.has("affinity")) s.params["affinity"] = o.value("affinity").value_or("per thread");
  if (!o.has("mlockall")) r.environment.extra["mlockall"] = "signaltest ran without -m";
  const std::map<std::uint64_t, const json*> by_index = threads_by_index(j, in.name, "thread");
  s.params["threads"] = static_cast<std::int64_t>(by_index.size());
  for (const auto& [i, t] : by_index) {
    const std::string w = in.name + ": thread." + std::to_string(i);
    Case k;
    k.name = "thread" + std::to_string(i);
    if (const json* cpu = optional_member(*t, "cpu")) {
      k.labels["cpu"] = std::to_string(integer(*cpu, w + ".cpu"));
    }
    k.labels["thread_class"] = *prio > 0 ? "rt" : "nonrt";
    k.metrics.push_back(summary_metric(
        "wakeup_latency", whole(member(*t, "cycles", w), w + ".cycles"),
        whole(member(*t, "min", w), w + ".min"), number(member(*t, "avg", w), w + ".avg"),
        whole(member(*t, "max", w), w + ".max"), 1000, w));
    s.cases.push_back(std::move(k));
  }
  s.imported->notes.push_back(
      "signaltest keeps no histogram: wakeup_latency has count, min, mean and max only; the "
      "gate judges its max, not its quantiles");
  return r;
}

}  // namespace
}  // namespace rtgate::importers

RTGATE_IMPORTER({.name = "signaltest-json",
                 .description = "signaltest --json (rt-tests 2.x): min, avg and max only",
                 .detect = &rtgate::importers::detect,
                 .parse = &rtgate::importers::parse});
