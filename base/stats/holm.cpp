#include "base/stats/holm.h"

#include <algorithm>
#include <numeric>

namespace rtgate::stats {

HolmResult holm(const std::vector<double>& p, double alpha, std::size_t family) {
  family = std::max(family, p.size());
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  HolmResult out{std::vector<bool>(p.size(), false), std::vector<double>(p.size(), alpha)};
  bool stopped = false;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const std::size_t i = order[rank];
    out.levels[i] = alpha / static_cast<double>(family - rank);
    stopped = stopped || !(p[i] <= out.levels[i]);
    out.rejected[i] = !stopped;
  }
  return out;
}

}  // namespace rtgate::stats
