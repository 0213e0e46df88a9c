#include "base/text/strings.h"

#include <charconv>
#include <cstdio>

namespace rtgate::text {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";  // isspace in the C locale
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

std::string printf_string(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string format_g(double v, int precision) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
  return std::string(buf, r.ptr);
}

}  // namespace rtgate::text
