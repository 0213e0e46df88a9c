// Choosing locks from the catalogue by a `locks=` parameter: "all", or a comma-separated list of
// names. Suites share this so that every suite spells lock selection the same way.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "locks/catalogue.h"

namespace rtgate::locks {

struct LockSelection {
  std::vector<const LockInfo*> locks;
  std::string error;  // one line, e.g. "unknown lock 'pimutx' (known: ...)"
};

inline LockSelection select_locks(const std::string& spec) {
  LockSelection out;
  const auto& all = LockCatalogue::instance().all();
  if (spec == "all") {
    for (const LockInfo& l : all) out.locks.push_back(&l);
    return out;
  }
  std::stringstream ss(spec);
  for (std::string name; std::getline(ss, name, ',');) {
    const LockInfo* l = LockCatalogue::instance().find(name);
    if (l == nullptr) {
      std::string known;
      for (const LockInfo& k : all) known += (known.empty() ? "" : ", ") + k.name;
      out.error = "unknown lock '" + name + "' (known: " + known + ")";
      out.locks.clear();
      return out;
    }
    out.locks.push_back(l);
  }
  if (out.locks.empty()) out.error = "no lock selected";
  return out;
}

}  // namespace rtgate::locks
