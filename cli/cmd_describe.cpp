#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "framework/selection.h"
#include "results/json_stream.h"

namespace rtgate::cli {
namespace {

std::string needs_text(Needs n) {
  std::string s;
  if (has(n, Needs::kSchedFifo)) s += "SCHED_FIFO";
  if (has(n, Needs::kRoot)) s += std::string(s.empty() ? "" : ", ") + "root";
  return s.empty() ? "nothing special" : s;
}

}  // namespace

void add_describe(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("describe", "a suite's parameters with default, range, unit, help");
  struct Opts {
    std::string suite;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("suite", opts->suite, "suite name")->required();
  cmd->add_flag("--json", opts->json, "machine-readable output");
  cmd->callback([opts, &exit_code] {
    const Selection s = select_suites(Registry::instance().all(), {opts->suite});
    if (!s.ok() || s.suites.size() != 1) {
      print_error(s.ok() ? "'" + opts->suite + "' selects several suites; name one" : s.error);
      exit_code = kExitUsage;
      return;
    }
    const SuiteDescriptor& d = *s.suites.front();
    if (opts->json) {
      nlohmann::ordered_json out{{"name", d.name.value},
                                 {"summary", d.summary},
                                 {"tags", d.tags},
                                 {"needs", needs_text(d.needs)}};
      out["params"] = nlohmann::ordered_json::array();
      for (const ParamSpec& p : d.params) {
        out["params"].push_back({{"name", p.name},
                                 {"type", to_string(p.type)},
                                 {"default", p.format(p.default_value)},
                                 {"range", p.range_text()},
                                 {"unit", p.unit},
                                 {"help", p.help}});
      }
      std::printf("%s\n", json_stream::dump_valid(out, 2).c_str());
      return;
    }
    std::string tags;
    for (const auto& t : d.tags) tags += (tags.empty() ? "" : ", ") + t;
    std::printf(
        "%s - %s\n  tags:  %s\n  needs: %s\n\nparameters (-p %s.NAME=VALUE or -p NAME=VALUE):\n",
        d.name.value, d.summary.c_str(), tags.c_str(), needs_text(d.needs).c_str(), d.name.value);
    for (const ParamSpec& p : d.params) {
      std::printf("  %-14s default %-8s %s\n  %-14s %s\n", p.name.c_str(),
                  p.format(p.default_value).c_str(), p.range_text().c_str(), "", p.help.c_str());
    }
  });
}

}  // namespace rtgate::cli
