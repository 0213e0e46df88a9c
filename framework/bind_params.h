// Binding `-p` assignments to the selected suites: "suite.param=value" for one suite,
// "param=value" for every selected suite that has the parameter.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/runner.h"

namespace rtgate {

// Returns each selected suite with its parameters (defaults overridden by the assignments), or
// nullopt with a one-line *error naming the parameter and its range.
std::optional<std::vector<SelectedSuite>> bind_params(
    const std::vector<const SuiteDescriptor*>& suites, const std::vector<std::string>& assignments,
    std::string* error);

}  // namespace rtgate
