#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "locks/catalogue.h"
#include "results/json_stream.h"

namespace rtgate::cli {

void add_locks(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("locks", "lock implementations and their properties");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([json, &exit_code] {
    using namespace rtgate::locks;
    const auto& all = LockCatalogue::instance().all();
    if (*json) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const LockInfo& l : all) {
        out.push_back({{"name", l.name},
                       {"kind", to_string(l.kind)},
                       {"pi", to_string(l.pi)},
                       {"fifo", l.fifo},
                       {"safe_fifo_oversubscribed", l.safe_fifo_oversubscribed},
                       {"summary", l.summary}});
      }
      std::printf("%s\n", json_stream::dump_valid(out, 2).c_str());
    } else {
      std::printf("%-24s %-6s %-12s %-5s %-10s %s\n", "name", "kind", "pi", "fifo", "fifo-oversub",
                  "summary");
      for (const LockInfo& l : all) {
        std::printf("%-24s %-6s %-12s %-5s %-10s %s\n", l.name.c_str(), to_string(l.kind),
                    to_string(l.pi), l.fifo ? "yes" : "no",
                    l.safe_fifo_oversubscribed ? "safe" : "UNSAFE", l.summary.c_str());
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace rtgate::cli
