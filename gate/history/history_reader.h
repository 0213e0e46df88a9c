// The results `rtgate history` (and `report --history`'s trend section) reads: files named, and
// every result file under a directory named (results/result_folder.h), reduced to a History as they
// are read, on every core.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gate/history/history.h"
#include "gate/model/policy.h"

namespace rtgate::gate {

struct HistoryInputs {
  History history;
  int not_results = 0;               // files under a directory that were not results
  std::vector<std::string> skipped;  // why each of them was skipped (naming the file)
  int other = 0;  // results of another host or selection, skipped (with `current`)
};

// On bad input (a named file that cannot be read, a path that does not exist, a result of
// another host, selection or parameters than the first): nullopt and a one-line *error. `role`
// names the argument in errors ("RESULT", "--history"). With `current` (report --history: a result
// and the directory of its host's results), the history is current's: current is its first session
// and results that measured something else are skipped and counted, not refused.
std::optional<HistoryInputs> load_history(const std::vector<std::string>& paths,
                                          const Policy& policy, const char* role,
                                          std::string* error, const RunReport* current = nullptr);

}  // namespace rtgate::gate
