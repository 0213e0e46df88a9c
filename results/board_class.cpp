#include "results/board_class.h"

#include <sstream>

namespace rtgate {

const char* to_string(BoardClass c) {
  switch (c) {
    case BoardClass::kBareMetal:
      return "bare_metal";
    case BoardClass::kVirtualMachine:
      return "vm";
    case BoardClass::kEmulated:
      return "emulated";
    case BoardClass::kDeterministic:
      return "deterministic";
  }
  return "?";
}

BoardClass board_class(const Environment& e) {
  std::istringstream words(e.cmdline);
  for (std::string w; words >> w;) {
    if (w.rfind("rtgate_lab.clock=icount", 0) == 0) return BoardClass::kDeterministic;
  }
  if (e.hypervisor.empty()) return BoardClass::kBareMetal;
  return e.hypervisor == "QEMU" ? BoardClass::kEmulated : BoardClass::kVirtualMachine;
}

BoardClass noisier(BoardClass a, BoardClass b) {
  const auto rank = [](BoardClass c) {
    return c == BoardClass::kDeterministic ? 0 : c == BoardClass::kBareMetal ? 1 : 2;
  };
  if (rank(a) != rank(b)) return rank(a) > rank(b) ? a : b;
  return a == BoardClass::kEmulated || b == BoardClass::kEmulated ? BoardClass::kEmulated : a;
}

}  // namespace rtgate
