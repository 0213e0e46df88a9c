#include "cli/commands.h"
#include "cli/gate_common.h"
#include "exporters/html/html_report.h"
#include "framework/output_file.h"

namespace rtgate::cli {

void add_report(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "report",
      "self-contained HTML report of RESULT (with --baseline: the gate's verdicts, overlaid "
      "histograms, per-run drift); exit 0 when written, whatever the verdict");
  struct Opts {
    std::string result, baseline, out;
    GateInputs in;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RESULT", o->result, "result JSON")->required();
  cmd->add_option("--baseline", o->baseline, "baseline result JSON to compare with");
  add_verdict_options(cmd, o->in);
  cmd->add_option("-o,--output", o->out, "HTML file to write ('-' for stdout)")->required();
  cmd->callback([o, &exit_code] {
    exit_code = kExitUsage;
    if (const std::string why = check_output(o->out); !why.empty()) {
      print_error("-o: " + why);
      return;
    }
    if (!o->in.policy_path.empty() && o->baseline.empty()) {
      print_error("--policy needs --baseline: there is no verdict without one");
      return;
    }
    const auto j = load_judged(o->result, o->baseline, o->in);
    if (!j) return;
    const std::string page = html::render_report(j->current, j->baseline ? &*j->baseline : nullptr,
                                                 j->verdicts ? &*j->verdicts : nullptr);
    if (const std::string why = write_output(o->out, page); !why.empty()) {
      print_error("-o: " + why);
      exit_code = kExitFailed;
      return;
    }
    exit_code = kExitOk;
  });
}

}  // namespace rtgate::cli
