// Selecting suites: exact names, globs (`lock.*`), `tag:NAME`, and a leading `-` to exclude.
// The same selectors serve `list`, `run` and `serve`.
#pragma once

#include <string>
#include <vector>

#include "framework/registry.h"

namespace rtgate {

struct Selection {
  std::vector<const SuiteDescriptor*> suites;  // registry order (by name), no duplicates
  std::string error;                           // non-empty: a one-line message for the user
  bool ok() const { return error.empty(); }
};

// Positive selectors add, negative ones (`-x`) remove. With no positive selector the start set is
// `default_selector` ("" = every suite). A selector that matches nothing is an error; for an
// exact name, the error suggests the closest registered names.
Selection select_suites(const std::vector<SuiteDescriptor>& suites,
                        const std::vector<std::string>& selectors,
                        const std::string& default_selector = "");

// Up to `limit` names closest to `name` by edit distance (ties by name), nearest first.
std::vector<std::string> closest_names(const std::vector<std::string>& candidates,
                                       const std::string& name, std::size_t limit = 3);

}  // namespace rtgate
