// The sender/receiver tools of rt-tests 2.x --json (pmqtest, ptsematest, sigwaittest,
// svsematest; one format): a result named after the tool, one case per sender/receiver pair,
// wakeup_latency summary-only (they keep no histogram: the sender's sample count and the
// receiver's min, avg and max), and pmqtest's receive timeouts as a count.
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

constexpr const char* kTools[] = {"pmqtest", "ptsematest", "sigwaittest", "svsematest"};

const std::vector<OptionSpec>& pair_options() {
  // The union of the four tools' options; -f takes a value in pmqtest and optionally one
  // (fork) in sigwaittest and svsematest.
  static const std::vector<OptionSpec> specs = {
      {'a', "affinity", Arg::kOptional}, {'b', "breaktrace", Arg::kRequired},
      {'d', "distance", Arg::kRequired}, {'D', "duration", Arg::kRequired},
      {'f', "", Arg::kOptional},         {0, "forcetimeout", Arg::kRequired},
      {0, "fork", Arg::kOptional},       {'h', "help", Arg::kNone},
      {'i', "interval", Arg::kRequired}, {0, "json", Arg::kRequired},
      {'l', "loops", Arg::kRequired},    {'p', "prio", Arg::kRequired},
      {'q', "quiet", Arg::kNone},        {'S', "smp", Arg::kNone},
      {'t', "threads", Arg::kOptional},  {'T', "timeout", Arg::kRequired}};
  return specs;
}

bool is_pair_layout(const json& j) {
  const json* t = optional_member(j, "thread");
  if (t == nullptr || !t->is_object() || t->empty()) return false;
  const json& first = t->begin().value();
  return first.is_object() && first.contains("sender") && first.contains("receiver");
}

bool detect(const ImportInput& in) {
  if (!is_rt_tests_json(in.json)) return false;
  const std::string p = rt_tests_program(*in.json);
  for (const char* t : kTools) {
    if (p == t) return true;
  }
  return p.empty() && is_pair_layout(*in.json);
}

std::int64_t whole_option(const ToolOptions& o, const char* key, std::int64_t def,
                          const std::string& file) {
  const auto v = o.value(key);
  if (!v) return def;
  const auto n = parse_whole(*v);
  if (!n) throw ImportError(file + ": cmdline: --" + key + " " + *v + " is not a number");
  return *n;
}

RunReport parse(const ImportInput& in) {
  const json& j = *in.json;
  const RtTestsHeader h = read_rt_tests_header(j, in.name);
  const std::string tool = h.program.empty() ? "ipc-pair" : h.program;
  const ToolOptions o(h.args, pair_options());
  std::optional<double> duration;
  if (const auto d = o.value("duration")) {
    duration = parse_tool_duration(*d);
    if (!duration) throw ImportError(in.name + ": cmdline: -D " + *d + " is not a duration");
  }
  RunReport r = rt_tests_report(h, in, tool, "ipc-pair-json", duration);
  SuiteResult& s = r.suites.front();
  s.params["priority"] = whole_option(o, "prio", 0, in.name);
  s.params["interval_us"] = whole_option(o, "interval", 1000, in.name);
  s.params["distance_us"] = whole_option(o, "distance", 500, in.name);
  if (o.has("smp")) s.params["smp"] = true;
  if (o.has("timeout")) s.params["timeout_s"] = whole_option(o, "timeout", 0, in.name);
  if (o.has("fork") || (tool != "pmqtest" && o.has("f"))) s.params["fork"] = true;
  const std::map<std::uint64_t, const json*> by_index = threads_by_index(j, in.name, "pair");
  std::vector<int> receivers;
  for (const auto& [i, t] : by_index) {
    const std::string w = in.name + ": thread." + std::to_string(i);
    const json& snd = object(member(*t, "sender", w), w + ".sender");
    const json& rcv = object(member(*t, "receiver", w), w + ".receiver");
    const std::int64_t scpu = integer(member(snd, "cpu", w + ".sender"), w + ".sender.cpu");
    const std::int64_t rcpu = integer(member(rcv, "cpu", w + ".receiver"), w + ".receiver.cpu");
    if (rcpu >= 0 && rcpu < 1 << 20) receivers.push_back(static_cast<int>(rcpu));
    Case k;
    k.name = "pair" + std::to_string(i);
    k.labels = {
        {"sender_cpu", std::to_string(scpu)},
        {"receiver_cpu", std::to_string(rcpu)},
        {"thread_class", std::get<std::int64_t>(s.params["priority"]) > 0 ? "rt" : "nonrt"}};
    k.metrics.push_back(summary_metric(
        "wakeup_latency", whole(member(snd, "samples", w + ".sender"), w + ".sender.samples"),
        whole(member(rcv, "min", w + ".receiver"), w + ".receiver.min"),
        number(member(rcv, "avg", w + ".receiver"), w + ".receiver.avg"),
        whole(member(rcv, "max", w + ".receiver"), w + ".receiver.max"), 1000, w));
    if (const json* to = optional_member(rcv, "timeoutcount")) {
      k.metrics.push_back(
          Metric::count("timeouts", static_cast<double>(whole(*to, w + ".receiver.timeoutcount")),
                        "events", Metric::Gating::kEventRate));
    }
    s.cases.push_back(std::move(k));
  }
  s.params["receiver_cpus"] = text::format_cpu_list(receivers);
  s.imported->notes.push_back(
      tool +
      " keeps no histogram: wakeup_latency has count (the sender's samples), min, mean "
      "and max only; the gate judges its max, not its quantiles");
  return r;
}

}  // namespace
}  // namespace rtgate::importers

RTGATE_IMPORTER({.name = "ipc-pair-json",
                 .description = "pmqtest, ptsematest, sigwaittest, svsematest --json (rt-tests "
                                "2.x): min, avg and max only",
                 .detect = &rtgate::importers::detect,
                 .parse = &rtgate::importers::parse});
