#include "suites/sched_migrate/migrate_order.h"

namespace rtgate::rt {

OrderCall judge_order(std::size_t violations, std::size_t judged_periods, bool host_could) {
  if (violations == 0) return OrderCall::kHeld;
  if (host_could && 4 * violations < judged_periods) return OrderCall::kHost;
  return OrderCall::kBroken;
}

}  // namespace rtgate::rt
