#include "cli/env_readiness.h"

#include <cstdio>

#include "base/text/utf8.h"

namespace rtgate::cli {

void print_findings(const std::vector<readiness::Finding>& findings) {
  std::printf("readiness for RT measurement\n");
  for (const readiness::Finding& f : findings) {
    std::printf("  %-4s  %-22s %s\n", readiness::to_string(f.level), f.item.c_str(),
                text::for_terminal(f.why).c_str());
    if (!f.fix.empty())
      std::printf("        %-22s fix: %s\n", "", text::for_terminal(f.fix).c_str());
    if (f.level != readiness::Level::kOk && !f.evidence.empty()) {
      std::printf("        %-22s read: %s\n", "", text::for_terminal(f.evidence).c_str());
    }
  }
  std::printf("%s\n", readiness::summary(findings).c_str());
}

nlohmann::ordered_json findings_json(const std::vector<readiness::Finding>& findings) {
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const readiness::Finding& f : findings) {
    items.push_back({{"item", f.item},
                     {"level", readiness::to_string(f.level)},
                     {"why", f.why},
                     {"fix", f.fix},
                     {"evidence", f.evidence}});
  }
  return {{"summary", readiness::summary(findings)},
          {"bad", readiness::count(findings, readiness::Level::kBad)},
          {"warn", readiness::count(findings, readiness::Level::kWarn)},
          {"items", std::move(items)}};
}

}  // namespace rtgate::cli
