#include "base/text/utf8.h"

#include <cstdint>

namespace rtgate::text {
namespace {

// The length of the well-formed sequence starting at s[i], or 0 (RFC 3629's table).
std::size_t sequence_at(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[i + k]); };
  const std::uint8_t c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_at(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

// `s` with every byte outside a well-formed sequence, and each sequence `escape` picks, as \xNN.
template <typename Escape>
std::string escaped(std::string_view s, Escape escape) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 16);
  const auto hex = [&](std::uint8_t c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_at(s, i);
    if (n == 0 || escape(s.substr(i, n))) {
      for (const char c : s.substr(i, n == 0 ? 1 : n)) hex(static_cast<std::uint8_t>(c));
      i += n == 0 ? 1 : n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

std::string to_valid_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  return escaped(s, [](std::string_view) { return false; });
}

std::string for_terminal(std::string_view s, bool keep_lines) {
  // C0 controls and DEL, and C1 controls (U+0080..U+009F, two bytes C2 80..C2 9F), which some
  // terminals also take as the start of an escape sequence.
  return escaped(s, [keep_lines](std::string_view seq) {
    const auto c = static_cast<std::uint8_t>(seq[0]);
    if (keep_lines && (c == '\n' || c == '\t')) return false;
    return c < 0x20 || c == 0x7F || (c == 0xC2 && static_cast<std::uint8_t>(seq[1]) <= 0x9F);
  });
}

}  // namespace rtgate::text
