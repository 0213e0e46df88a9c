#include "base/stats/holm.h"

#include <algorithm>
#include <numeric>

namespace rtgate::stats {

std::vector<bool> holm_reject(const std::vector<double>& p, double alpha) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  std::vector<bool> rejected(p.size(), false);
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    // A NaN p-value fails the comparison and stops the procedure, like a large one.
    if (!(p[order[rank]] <= alpha / static_cast<double>(order.size() - rank))) break;
    rejected[order[rank]] = true;
  }
  return rejected;
}

}  // namespace rtgate::stats
