// pi_stress --json (rt-tests 2.x) as a `pi_stress` result: the file records only the total of
// inversions over every group and the return code (non-zero when pi_stress saw a deadlock or
// failed), so one case "all" with inversions per second over the run's duration, and the suite
// failed when the return code says so.
#include "importers/importer.h"
#include "importers/rt_tests_json.h"
#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

using nlohmann::json;
using Arg = OptionSpec::Arg;

const std::vector<OptionSpec>& pi_stress_options() {
  static const std::vector<OptionSpec> specs = {
      {'d', "debug", Arg::kNone},          {'D', "duration", Arg::kRequired},
      {'g', "groups", Arg::kRequired},     {'h', "help", Arg::kNone},
      {'i', "inversions", Arg::kRequired}, {0, "json", Arg::kRequired},
      {'m', "mlockall", Arg::kNone},       {'p', "prompt", Arg::kNone},
      {'q', "quiet", Arg::kNone},          {'r', "rr", Arg::kNone},
      {'s', "sched", Arg::kRequired},      {'u', "uniprocessor", Arg::kNone},
      {'v', "verbose", Arg::kNone},        {'V', "version", Arg::kNone}};
  return specs;
}

bool detect(const ImportInput& in) {
  if (!is_rt_tests_json(in.json)) return false;
  const std::string p = rt_tests_program(*in.json);
  return p == "pi_stress" || (p.empty() && in.json->contains("inversion"));
}

RunReport parse(const ImportInput& in) {
  const json& j = *in.json;
  const RtTestsHeader h = read_rt_tests_header(j, in.name);
  const ToolOptions o(h.args, pi_stress_options());
  std::optional<double> duration;
  if (const auto d = o.value("duration")) {
    duration = parse_tool_duration(*d);
    if (!duration) throw ImportError(in.name + ": cmdline: -D " + *d + " is not a duration");
  }
  RunReport r = rt_tests_report(h, in, "pi_stress", "pi_stress-json", duration);
  SuiteResult& s = r.suites.front();
  if (const auto g = o.value("groups")) {
    const auto n = parse_whole(*g);
    if (!n) throw ImportError(in.name + ": cmdline: --groups " + *g + " is not a number");
    s.params["groups"] = static_cast<std::int64_t>(*n);
  } else {
    s.params["groups"] = std::string("default");
  }
  s.params["policy"] = std::string(o.has("rr") ? "rr" : "fifo");
  if (o.has("uniprocessor")) s.params["uniprocessor"] = true;
  if (o.has("sched")) s.params["sched"] = *o.value("sched");
  if (o.has("inversions")) s.params["inversions"] = *o.value("inversions");
  if (!o.has("mlockall")) r.environment.extra["mlockall"] = "pi_stress ran without -m";
  const std::uint64_t inversions = whole(member(j, "inversion", in.name), in.name + ": inversion");
  // The wall time between the file's start and end (1 s resolution) is what the inversions
  // took; -D alone would miss pi_stress's start-up and a run ended early.
  const double seconds = h.wall_s > 0 ? h.wall_s : duration.value_or(0);
  Case k;
  k.name = "all";
  k.metrics.push_back(Metric::count("inversions_total", static_cast<double>(inversions),
                                    "inversions", Metric::Gating::kReported));
  if (seconds > 0) {
    k.metrics.push_back(Metric::throughput("inversions", "inversions/s",
                                           static_cast<double>(inversions) / seconds));
  } else {
    s.imported->notes.push_back(
        "no duration (neither start and end times nor -D): no inversions per second");
  }
  s.cases.push_back(std::move(k));
  s.imported->notes.push_back(
      "pi_stress records only the total of inversions over all groups and its return code: no "
      "per-group figures, no latency");
  return r;
}

}  // namespace
}  // namespace rtgate::importers

RTGATE_IMPORTER({.name = "pi_stress-json",
                 .description = "pi_stress --json (rt-tests 2.x): inversions and return code",
                 .detect = &rtgate::importers::detect,
                 .parse = &rtgate::importers::parse});
