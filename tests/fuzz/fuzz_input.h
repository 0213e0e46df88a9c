// Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.cpp): the input as text, split into the
// argument lists a command line would pass, and a crash that names the broken property.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// One argument per line, as `-p a=1 -p b=2` or `run cyclic -lock.*` would pass them.
inline std::vector<std::string> lines(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t nl = s.find('\n');
    out.emplace_back(s.substr(0, nl));
    if (nl == std::string_view::npos) return out;
    s.remove_prefix(nl + 1);
  }
}

// A property the target checks does not hold: a finding, like a crash.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz property broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace rtgate::fuzz
