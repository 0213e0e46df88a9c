#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "framework/selection.h"
#include "results/json_stream.h"

namespace rtgate::cli {

void add_list(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "list suites: name, tags, one-line description");
  struct Opts {
    std::vector<std::string> selectors, excludes;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("selectors", opts->selectors, "names, globs ('lock.*'), tag:NAME, -EXCLUDED");
  cmd->add_option("--exclude", opts->excludes, "exclude suites (same as a -SELECTOR)");
  cmd->add_flag("--json", opts->json, "machine-readable output");
  cmd->callback([opts, &exit_code] {
    std::vector<std::string> sel = opts->selectors;
    for (const auto& x : opts->excludes) sel.push_back("-" + x);
    const Selection s = select_suites(Registry::instance().all(), sel);
    if (!s.ok()) {
      print_error(s.error);
      exit_code = kExitUsage;
      return;
    }
    if (opts->json) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto* d : s.suites) {
        out.push_back({{"name", d->name.value}, {"tags", d->tags}, {"summary", d->summary}});
      }
      std::printf("%s\n", json_stream::dump_valid(out, 2).c_str());
      return;
    }
    for (const auto* d : s.suites) {
      std::string tags;
      for (const auto& t : d->tags) tags += (tags.empty() ? "" : ",") + t;
      std::printf("%-22s %-22s %s\n", d->name.value, tags.c_str(), d->summary.c_str());
    }
  });
}

}  // namespace rtgate::cli
