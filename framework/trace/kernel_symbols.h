// KernelSymbols: /proc/kallsyms, for naming the callers in a kernel stack and the static locks a
// task waited on. Loaded once, when lock contention is reported (not on a measured path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rtgate::trace {

class KernelSymbols {
 public:
  // Reads /proc/kallsyms (addresses are zero without root: then nothing resolves).
  static KernelSymbols load(const std::string& path = "/proc/kallsyms");
  // "dput+0x3c" for an address inside a known symbol; "" otherwise.
  std::string name(std::uint64_t addr) const;
  // The symbol an address is inside of, without offset ("" when none).
  std::string function(std::uint64_t addr) const;
  // A data symbol the address is at or just inside of (a static lock), or "".
  std::string object(std::uint64_t addr) const;
  bool empty() const { return syms_.empty(); }

  void add(std::uint64_t addr, char type, std::string name);  // for tests
  void sort();

 private:
  struct Sym {
    std::uint64_t addr;
    char type;
    std::string name;
  };
  const Sym* find(std::uint64_t addr) const;
  std::vector<Sym> syms_;
};

}  // namespace rtgate::trace
