#include "results/cause_profile.h"

#include <algorithm>

namespace rtgate::trace {

void CauseProfile::merge(const CauseProfile& o) {
  if (o.empty()) return;
  if (empty()) {
    *this = o;
    return;
  }
  if (threshold_ns != o.threshold_ns) threshold_ns = -1;
  samples += o.samples;
  not_analysed += o.not_analysed;
  ns += o.ns;
  slices += o.slices;
  for (const auto& [name, s] : o.causes) {
    CauseStats& mine = causes[name];
    mine.samples += s.samples;
    mine.ns += s.ns;
    mine.slice_sq += s.slice_sq;
  }
}

}  // namespace rtgate::trace
