#include "framework/trace/kernel_symbols.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace rtgate::trace {
namespace {

// Symbols are at most this far apart for an address to count as inside one (beyond it the
// address is in memory kallsyms does not describe: module data, the heap, vmalloc).
constexpr std::uint64_t kMaxSymbolSize = 1 << 16;

}  // namespace

KernelSymbols KernelSymbols::load(const std::string& path) {
  KernelSymbols k;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string addr, type, name;
    if (!(ls >> addr >> type >> name) || type.size() != 1) continue;
    const std::uint64_t a = std::strtoull(addr.c_str(), nullptr, 16);
    if (a == 0) continue;
    k.syms_.push_back({a, type[0], std::move(name)});
  }
  k.sort();
  return k;
}

void KernelSymbols::add(std::uint64_t addr, char type, std::string name) {
  syms_.push_back({addr, type, std::move(name)});
}

void KernelSymbols::sort() {
  std::sort(syms_.begin(), syms_.end(), [](const Sym& a, const Sym& b) { return a.addr < b.addr; });
}

const KernelSymbols::Sym* KernelSymbols::find(std::uint64_t addr) const {
  auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                             [](std::uint64_t a, const Sym& s) { return a < s.addr; });
  if (it == syms_.begin()) return nullptr;
  const Sym& s = *std::prev(it);
  const std::uint64_t next = it == syms_.end() ? s.addr + kMaxSymbolSize : it->addr;
  if (addr - s.addr >= kMaxSymbolSize || addr >= next) return nullptr;
  return &s;
}

std::string KernelSymbols::function(std::uint64_t addr) const {
  const Sym* s = find(addr);
  return s != nullptr ? s->name : "";
}

std::string KernelSymbols::name(std::uint64_t addr) const {
  const Sym* s = find(addr);
  if (s == nullptr) return "";
  char off[24];
  std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(addr - s->addr));
  return s->name + off;
}

std::string KernelSymbols::object(std::uint64_t addr) const {
  const Sym* s = find(addr);
  if (s == nullptr) return "";
  const char t = static_cast<char>(std::tolower(static_cast<unsigned char>(s->type)));
  if (t != 'd' && t != 'b' && t != 'r') return "";
  return addr == s->addr ? s->name : name(addr);
}

}  // namespace rtgate::trace
