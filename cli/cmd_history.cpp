#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "base/text/utf8.h"
#include "cli/commands.h"
#include "cli/export_options.h"
#include "cli/gate_common.h"
#include "cli/prometheus_history.h"
#include "gate/history/history_judge.h"
#include "gate/history/history_reader.h"

namespace rtgate::cli {
namespace {

// The index of the session read from `path` (the same file, however it was named, or a result
// merged into its boot's session), or -1.
int session_of(const gate::History& h, const std::string& path) {
  std::error_code ec;
  const auto want = std::filesystem::weakly_canonical(path, ec);
  const auto is_it = [&](const std::string& source) {
    std::error_code ec2;
    return !ec && std::filesystem::weakly_canonical(source, ec2) == want && !ec2;
  };
  for (std::size_t i = 0; i < h.sessions.size(); ++i) {
    const gate::HistorySession& s = h.sessions[i];
    if (is_it(s.source) || std::any_of(s.merged_sources.begin(), s.merged_sources.end(), is_it)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

void add_history(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "history",
      "change points, the newest kernel's segment and drift over one host's results: exit 1 when "
      "the newest kernel starts a worse segment, 0 when it does not, 3 when too short to say");
  struct Opts {
    std::vector<std::string> paths;
    std::string policy, baseline;
    PrometheusOptions prometheus;
    ExportValues exports;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RESULT", o->paths,
                  "result files or directories (read recursively): one host's sessions of one "
                  "selection, in any order")
      ->expected(0, -1);
  cmd->add_option("--policy", o->policy, "gate policy: alpha, family, noise floors, quantiles");
  cmd->add_option("--baseline", o->baseline,
                  "the result a gate takes as its baseline (one of the history's): say whether "
                  "it is in a worse segment");
  add_prometheus_options(cmd, o->prometheus);
  add_export_options(cmd, o->exports, kHistoryDocument);
  cmd->callback([o, &exit_code] {
    exit_code = kExitUsage;
    if (check_exports(o->exports, kHistoryDocument) != kExitOk) return;
    if (o->paths.empty() == o->prometheus.url.empty()) {
      return print_error("history reads RESULT files or --prometheus URL, one of the two");
    }
    const std::optional<gate::Policy> loaded = load_policy_option(o->policy);
    if (!loaded) return;
    const gate::Policy& policy = *loaded;
    std::string error;
    const auto in = o->paths.empty() ? load_prometheus_history(o->prometheus, policy, &error)
                                     : gate::load_history(o->paths, policy, "RESULT", &error);
    if (!in) return print_error(error);
    // One line each, the first few: a folder of a thousand bad files must not bury the table.
    std::vector<std::string> why = in->skipped;
    std::sort(why.begin(), why.end());
    for (std::size_t i = 0; i < why.size() && i < 10; ++i)
      std::fprintf(stderr, "rtgate: skipped: %s\n", text::for_terminal(why[i]).c_str());
    if (why.size() > 10)
      std::fprintf(stderr, "rtgate: ... and %zu more skipped\n", why.size() - 10);
    int baseline = -1;
    if (!o->baseline.empty()) {
      baseline = session_of(in->history, o->baseline);
      if (baseline < 0) {
        print_error("--baseline: " + o->baseline + " is not one of the history's results");
        return;
      }
    }
    const gate::HistoryReport report = gate::judge_history(in->history, policy, baseline);
    const HistoryDocument doc{
        .history = in->history, .report = report, .not_results = in->not_results};
    if (write_exports(o->exports, {.history = &doc}, kHistoryDocument) != kExitOk) {
      exit_code = kExitFailed;
      return;
    }
    exit_code = gate::exit_code(report);
  });
}

}  // namespace rtgate::cli
