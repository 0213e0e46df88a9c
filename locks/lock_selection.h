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

namespace rtgate::locks {

// Drops spinlocks when FIFO spinners would outnumber CPUs (a FIFO waiter spinning on the CPU of
// a preempted holder never lets it run), unless the user asked for the collapse as data.
// Returns the reason for each dropped lock.
// Drops the locks that are not safe when a SCHED_FIFO waiter may spin on the CPU of a holder it
// preempted; returns "NAME: why" for each.
inline std::vector<std::string> drop_fifo_unsafe(std::vector<const LockInfo*>& locks,
                                                 const std::string& why) {
  std::vector<std::string> dropped;
  std::erase_if(locks, [&](const LockInfo* l) {
    if (l->safe_fifo_oversubscribed) return false;
    dropped.push_back(l->name + ": " + why);
    return true;
  });
  return dropped;
}

inline std::vector<std::string> drop_unsafe_spinlocks(std::vector<const LockInfo*>& locks,
                                                      int fifo_spinners, int cpus,
                                                      bool allow_oversubscribed) {
  if (fifo_spinners <= cpus || allow_oversubscribed) return {};
  return drop_fifo_unsafe(locks, std::to_string(fifo_spinners) + " FIFO spinners on " +
                                     std::to_string(cpus) +
                                     " CPUs could livelock (-p allow_oversubscribed_spin=true to "
                                     "measure it)");
}

}  // namespace rtgate::locks
