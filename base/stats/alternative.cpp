#include "base/stats/alternative.h"

namespace rtgate::stats {

const char* to_string(Alternative alternative) {
  switch (alternative) {
    case Alternative::kTwoSided:
      return "two-sided";
    case Alternative::kLess:
      return "less";
    case Alternative::kGreater:
      return "greater";
  }
  return "?";
}

}  // namespace rtgate::stats
