// `rtla timerlat hist` text output as a `timerlat` result: one case per CPU column group,
// irq_latency, thread_latency and (rtla -u) user_latency from rtla's histogram.
//
// rtla prints a header ("# RTLA timerlat histogram", the time unit, the duration), a column line
// ("Index IRQ-000 Thr-000 ..."), one line per non-empty bucket (its lower edge, then a count per
// column), then over:, count:, min:, avg: and max: lines (later versions add an "ALL:" block,
// which is ignored). A bucket holds latencies truncated to the unit and divided by -b; a sample
// goes to the bucket's lower edge, up to one bucket below the measured value. "over:" is rtla's
// overflow (beyond -E entries); count includes it.
//
// The text records no command line, version or machine: the period and any rtla option come
// from --cmdline when given, the environment from --host-env.
#include <map>
#include <sstream>

#include "base/text/cpu_list.h"
#include "importers/importer.h"
#include "importers/tool_histogram.h"
#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

using Arg = OptionSpec::Arg;

const std::vector<OptionSpec>& timerlat_options() {
  static const std::vector<OptionSpec> specs = {{'a', "auto", Arg::kRequired},
                                                {'b', "bucket-size", Arg::kRequired},
                                                {'c', "cpus", Arg::kRequired},
                                                {'C', "cgroup", Arg::kOptional},
                                                {'d', "duration", Arg::kRequired},
                                                {'D', "debug", Arg::kNone},
                                                {'e', "event", Arg::kRequired},
                                                {'E', "entries", Arg::kRequired},
                                                {'H', "house-keeping", Arg::kRequired},
                                                {'i', "irq", Arg::kRequired},
                                                {'k', "kernel-threads", Arg::kNone},
                                                {'n', "nano", Arg::kNone},
                                                {'p', "period", Arg::kRequired},
                                                {'P', "priority", Arg::kRequired},
                                                {'s', "stack", Arg::kRequired},
                                                {'t', "trace", Arg::kOptional},
                                                {'T', "thread", Arg::kRequired},
                                                {'u', "user-threads", Arg::kNone},
                                                {'U', "user-load", Arg::kNone},
                                                {0, "dma-latency", Arg::kRequired},
                                                {0, "no-irq", Arg::kNone},
                                                {0, "no-thread", Arg::kNone},
                                                {0, "no-header", Arg::kNone},
                                                {0, "no-summary", Arg::kNone},
                                                {0, "no-index", Arg::kNone},
                                                {0, "with-zeros", Arg::kNone},
                                                {0, "trigger", Arg::kRequired},
                                                {0, "filter", Arg::kRequired},
                                                {0, "no-aa", Arg::kNone},
                                                {0, "dump-tasks", Arg::kNone},
                                                {0, "warm-up", Arg::kRequired},
                                                {0, "trace-buffer-size", Arg::kRequired},
                                                {0, "deepest-idle-state", Arg::kRequired}};
  return specs;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "IRQ-003" -> ("irq_latency", 3); nullopt for anything else.
std::optional<std::pair<std::string, int>> column_of(const std::string& w) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"IRQ-", "irq_latency"}, {"Thr-", "thread_latency"}, {"Usr-", "user_latency"}};
  for (const auto& [prefix, metric] : kinds) {
    if (w.rfind(prefix, 0) != 0) continue;
    const auto cpu = parse_whole(std::string_view(w).substr(4));
    if (!cpu || *cpu >= 1 << 20) return std::nullopt;
    return std::pair{std::string(metric), static_cast<int>(*cpu)};
  }
  return std::nullopt;
}

std::string first_line(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == '\n' || text[i] == ' ' || text[i] == '\t')) ++i;
  const std::size_t nl = text.find('\n', i);
  return std::string(text.substr(i, nl == std::string_view::npos ? 256 : nl - i));
}

bool detect(const ImportInput& in) {
  if (in.json != nullptr) return false;
  return first_line(in.text).rfind("# RTLA timerlat histogram", 0) == 0;
}

// The words of "rtla timerlat hist ARGS" from the first option on.
std::vector<std::string> options_of(const std::string& cmdline) {
  std::vector<std::string> a = split_command(cmdline);
  std::size_t skip = 0;
  while (skip < a.size() && a[skip][0] != '-') ++skip;
  return {a.begin() + static_cast<std::ptrdiff_t>(skip), a.end()};
}

struct Column {
  std::string metric;
  int cpu = 0;
  ToolHistogram h;
  bool counted = false, has_min = false, has_max = false, has_avg = false;
};

// "0 00:00:10" (days, then hh:mm:ss) in seconds.
std::optional<double> rtla_duration(const std::string& text) {
  const std::vector<std::string> w = words_of(text);
  if (w.size() != 2) return std::nullopt;
  const auto days = parse_whole(w[0]);
  int hh = 0, mm = 0, ss = 0;
  char c1 = 0, c2 = 0;
  std::istringstream t(w[1]);
  if (!days || !(t >> hh >> c1 >> mm >> c2 >> ss) || c1 != ':' || c2 != ':') return std::nullopt;
  return static_cast<double>(*days) * 86400 + hh * 3600 + mm * 60 + ss;
}

// What the text's header, histogram and summary hold, column by column.
struct Table {
  std::vector<Column> cols;
  std::optional<double> duration;
};

// A summary row ("count:", "min:", "avg:", "max:", "over:") into its columns.
void read_summary_row(const std::string& key, const std::vector<std::string>& w,
                      std::vector<Column>& cols, const std::string& where) {
  for (std::size_t i = 0; i < cols.size(); ++i) {
    Column& c = cols[i];
    const std::string& v = w[i + 1];
    if (key == "avg:") {
      if (v == "-") continue;
      c.h.mean = std::strtod(v.c_str(), nullptr);
      c.has_avg = true;
      continue;
    }
    const auto n = parse_whole(v);
    if (!n) throw ImportError(where + ": " + key + " '" + v + "' is not a number");
    const auto u = static_cast<std::uint64_t>(*n);
    if (key == "over:") c.h.overflow = u;
    if (key == "count:") c.h.count = u, c.counted = true;
    if (key == "min:") c.h.min = u, c.has_min = true;
    if (key == "max:") c.h.max = u, c.has_max = true;
  }
}

// The column line: one column per metric and CPU.
void read_columns(const std::vector<std::string>& w, std::uint64_t unit_ns, Table& t,
                  const std::string& where) {
  if (!t.cols.empty()) throw ImportError(where + ": a second column line");
  for (std::size_t i = 1; i < w.size(); ++i) {
    const auto c = column_of(w[i]);
    if (!c) throw ImportError(where + ": unknown column '" + w[i] + "'");
    t.cols.push_back(Column{.metric = c->first, .cpu = c->second, .h = {.unit_ns = unit_ns}});
  }
  if (t.cols.empty()) throw ImportError(where + ": no columns");
}

Table read_table(const ImportInput& in) {
  std::istringstream lines{std::string(in.text)};
  std::uint64_t unit_ns = 1000;
  Table t;
  bool summary_done = false;
  int line_no = 0;
  const auto where = [&] { return in.name + ":" + std::to_string(line_no); };
  const auto values = [&](const std::vector<std::string>& w) {
    if (t.cols.empty()) throw ImportError(where() + ": a row before the column line (Index ...)");
    if (w.size() - 1 != t.cols.size()) {
      throw ImportError(where() + ": " + std::to_string(w.size() - 1) + " values for " +
                        std::to_string(t.cols.size()) + " columns");
    }
  };
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    const std::vector<std::string> w = words_of(line);
    if (w.empty()) continue;
    if (line.rfind("# Time unit is nanoseconds", 0) == 0) unit_ns = 1;
    if (line.rfind("# Duration:", 0) == 0) t.duration = rtla_duration(line.substr(11));
    if (line[0] == '#' || summary_done) continue;  // after the summary: "ALL:" and later ones
    if (w[0] == "Index") {
      read_columns(w, unit_ns, t, where());
    } else if (w[0] == "ALL:") {
      summary_done = true;
    } else if (const auto index = parse_whole(w[0])) {
      values(w);
      for (std::size_t i = 0; i < t.cols.size(); ++i) {
        const auto n = parse_whole(w[i + 1]);
        if (!n) throw ImportError(where() + ": '" + w[i + 1] + "' is not a count");
        if (*n == 0) continue;
        const auto add = static_cast<std::uint64_t>(*n);
        std::uint64_t& bucket = t.cols[i].h.buckets[static_cast<std::uint64_t>(*index)];
        if (add > UINT64_MAX - bucket) throw ImportError(where() + ": a bucket's count overflows");
        bucket += add;
      }
    } else if (w[0] == "over:" || w[0] == "count:" || w[0] == "min:" || w[0] == "avg:" ||
               w[0] == "max:") {
      values(w);
      read_summary_row(w[0], w, t.cols, where());
      summary_done = w[0] == "max:";
    }  // else rtla's own messages ("rtla timerlat hit stop tracing", ...)
  }
  if (t.cols.empty()) {
    throw ImportError(in.name +
                      ": no column line (rtla's --no-header or --no-index output "
                      "cannot be read)");
  }
  return t;
}

// A case per CPU, a histogram metric per column of it. Returns the CPUs.
std::vector<int> add_cases(std::vector<Column>& cols, const std::string& file, SuiteResult& s) {
  std::vector<int> cpus;
  std::map<int, Case> cases;
  for (Column& c : cols) {
    const std::string w = file + ": " + c.metric + " of CPU " + std::to_string(c.cpu);
    if (!c.counted || !c.has_min || !c.has_max) {
      throw ImportError(w + ": no count, min or max (rtla's --no-summary output cannot be read)");
    }
    if (c.h.count > 0 && !c.has_avg) throw ImportError(w + ": no average");
    // With -b N a bucket's lower edge can lie below the min it holds.
    while (!c.h.buckets.empty() && c.h.buckets.begin()->first < c.h.min) {
      const std::uint64_t n = c.h.buckets.begin()->second;
      c.h.buckets.erase(c.h.buckets.begin());
      c.h.buckets[c.h.min] += n;
    }
    Case& k = cases[c.cpu];
    if (k.name.empty()) {
      k.name = "cpu" + std::to_string(c.cpu);
      k.labels = {{"cpu", std::to_string(c.cpu)}, {"thread_class", "rt"}};
      cpus.push_back(c.cpu);
    }
    k.metrics.push_back(histogram_metric(c.metric, c.h, w));
  }
  for (auto& [cpu, k] : cases) s.cases.push_back(std::move(k));
  return cpus;
}

// rtla's options from --cmdline, as the suite's parameters and notes.
void add_options(const ImportInput& in, SuiteResult& s, RunReport& r) {
  if (in.cmdline.empty()) {
    s.imported->notes.push_back(
        "rtla's text records no command line: the period and rtla's options are unknown (give "
        "--cmdline)");
    return;
  }
  const ToolOptions o(options_of(in.cmdline), timerlat_options());
  const auto whole_option = [&](const char* key, std::int64_t def) -> std::int64_t {
    const auto v = o.value(key);
    if (!v) return def;
    const auto n = parse_whole(*v);
    if (!n) throw ImportError(in.name + ": --cmdline: --" + key + " " + *v + " is not a number");
    return *n;
  };
  s.params["period_us"] = whole_option("period", 1000);
  if (o.has("priority")) s.params["priority"] = *o.value("priority");
  if (o.has("user-threads")) s.params["user_threads"] = true;
  if (o.has("kernel-threads")) s.params["kernel_threads"] = true;
  if (o.has("user-load")) s.params["user_load"] = true;
  if (o.has("dma-latency")) {
    r.environment.extra["cpu_dma_latency_hold"] = *o.value("dma-latency") + " us";
  }
  if (whole_option("bucket-size", 1) != 1) {
    s.imported->notes.push_back("rtla -b " + *o.value("bucket-size") +
                                ": each bucket's samples are at its lower edge, up to one "
                                "bucket below their measured values");
  }
}

RunReport parse(const ImportInput& in) {
  Table t = read_table(in);
  RunReport r;
  r.tool_version = RTGATE_VERSION;
  r.options.runs = 1;
  if (t.duration) {
    r.options.duration_s = *t.duration;
    r.options.recorded = true;
  }
  r.environment.preempt_model = "unknown";
  SuiteResult s;
  s.name = "timerlat";
  s.runs = 1;
  s.duration_s = t.duration.value_or(0);
  s.imported = ImportRecord{.tool = "rtla timerlat hist",
                            .version = "",
                            .format = "rtla-timerlat-hist",
                            .files = {in.name},
                            .commands = {in.cmdline},
                            .notes = {}};
  const std::vector<int> cpus = add_cases(t.cols, in.name, s);
  add_options(in, s, r);
  s.params["cpus"] = text::format_cpu_list(cpus);
  s.imported->notes.push_back(
      "rtla's text records no machine, kernel or version: the environment is unknown unless "
      "--host-env");
  r.suites.push_back(std::move(s));
  return r;
}

}  // namespace
}  // namespace rtgate::importers

RTGATE_IMPORTER({.name = "rtla-timerlat-hist",
                 .description = "rtla timerlat hist text output (with its header and index)",
                 .detect = &rtgate::importers::detect,
                 .parse = &rtgate::importers::parse});
