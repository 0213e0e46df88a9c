// `rtgate env`'s verdicts: the readiness findings (framework/readiness/readiness.h) as a table
// with fixes, and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "framework/readiness/readiness.h"

namespace rtgate::cli {

// The table: per item its level, why, the fix to paste and what was read; then the summary.
void print_findings(const std::vector<readiness::Finding>& findings);

nlohmann::ordered_json findings_json(const std::vector<readiness::Finding>& findings);

}  // namespace rtgate::cli
