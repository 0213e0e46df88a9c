#include "base/io/output_file.h"
#include "cli/commands.h"
#include "cli/export_options.h"
#include "cli/gate_common.h"
#include "gate/history/history_judge.h"
#include "gate/history/history_reader.h"
#include "gate/noise/session_noise.h"

namespace rtgate::cli {
namespace {

struct JudgedHistory {
  gate::HistoryInputs input;
  gate::HistoryReport report;
};

// --history DIR for the trend section: the history of RESULT's host and selection, RESULT its
// first session, judged at the gate's policy (--policy) or the default one, with the
// --baseline's session as the gate's baseline when the history holds it. nullopt after printing
// the error (exit 2).
std::optional<JudgedHistory> judged_history(const RunReport& current, const RunReport* baseline,
                                            const GateInputs& in) {
  const std::optional<gate::Policy> policy = load_policy_option(in.policy_path);
  if (!policy) return std::nullopt;
  std::string error;
  auto h = gate::load_history({in.history_dir}, *policy, "--history", &error, &current);
  if (!h) return print_error(error), std::nullopt;
  int baseline_session = -1;
  const std::vector<gate::HistorySession>& sessions = h->history.sessions;
  for (std::size_t i = 0; baseline != nullptr && i < sessions.size(); ++i) {
    // The baseline's process, or its boot when the history merged the boot's results.
    if (sessions[i].id == gate::session_id(*baseline) ||
        sessions[i].id == gate::boot_of(*baseline)) {
      baseline_session = static_cast<int>(i);
    }
  }
  gate::HistoryReport report = gate::judge_history(h->history, *policy, baseline_session);
  return JudgedHistory{std::move(*h), std::move(report)};
}

}  // namespace

void add_report(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "report",
      "self-contained HTML report of RESULT (with --baseline: the gate's verdicts, overlaid "
      "histograms, per-run drift; with --history: a trend chart per metric over the host's "
      "sessions); exit 0 when written, whatever the verdict");
  struct Opts {
    std::string result, baseline, out;
    GateInputs in;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RESULT", o->result, "result JSON")->required();
  cmd->add_option("--baseline", o->baseline, "baseline result JSON to compare with");
  add_verdict_options(cmd, o->in);
  cmd->get_option("--history")
      ->description(
          "earlier results of this host (a directory, searched recursively): a trend chart per "
          "metric over them and RESULT, and with --baseline the between-session noise");
  cmd->add_option("-o,--output", o->out, "HTML file to write ('-' for stdout)")->required();
  cmd->callback([o, &exit_code] {
    exit_code = kExitUsage;
    if (const std::string why = check_output(o->out); !why.empty()) {
      print_error("-o: " + why);
      return;
    }
    if (!o->in.policy_path.empty() && o->baseline.empty() && o->in.history_dir.empty()) {
      print_error("--policy needs --baseline or --history: there is nothing to judge without one");
      return;
    }
    const auto j = load_judged(o->result, o->baseline, o->in);
    if (!j) return;
    std::optional<JudgedHistory> h;
    if (!o->in.history_dir.empty()) {
      h = judged_history(j->current, j->baseline ? &*j->baseline : nullptr, o->in);
      if (!h) return;
    }
    std::optional<HistoryDocument> doc;
    if (h) doc.emplace(HistoryDocument{.history = h->input.history, .report = h->report});
    exit_code =
        write_exports({{"--report", o->out}}, {.report = &j->current,
                                               .gate = j->verdicts ? &*j->verdicts : nullptr,
                                               .baseline = j->baseline ? &*j->baseline : nullptr,
                                               .history = doc ? &*doc : nullptr});
  });
}

}  // namespace rtgate::cli
