// What changed in a suite's kernel lock contention (--trace=locks) between two traced results.
// Locks are matched by class, named so that the same lock has the same name on another boot or
// kernel: a static lock by its symbol, a lock the kernel allocated (an address) by its kind, each
// with its caller without code offsets ("rename_lock SPIN from d_walk", "SPIN lock from
// release_pages via folio_lruvec_lock_irqsave").
//
// A lock is named as grown when its waits per run rose by the gate's exact rate test for events
// (count_estimate.h: per-run counts, quasi-Poisson with the runs' dispersion), significant after
// Holm over the lock classes at `alpha`, and its waits per run at least doubled while its time
// waited per run grew. A run in which a lock was outside the top entries counts 0 waits for it,
// which understates its waits there. A lock missing from a baseline whose table was cut is
// compared with the most it can have had there: all the waits beyond the table, and the
// smallest time waited in it. It is named only when it beat even that.
#pragma once

#include <string>
#include <vector>

#include "gate/cause/cause_compare.h"
#include "results/lock_contention.h"

namespace rtgate::gate {

inline constexpr double kMinLockGrowth = 2.0;

std::string lock_class(const trace::LockWait& w);

// Grown locks, most grown time waited per run first; empty unless both sides traced locks.
std::vector<LockChange> compare_locks(const trace::LockContention& base,
                                      const trace::LockContention& cur, double alpha);

}  // namespace rtgate::gate
