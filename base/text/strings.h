// Small string helpers that several rooms need.
#pragma once

#include <string>
#include <string_view>

namespace rtgate::text {

// `s` without leading and trailing white space (isspace in the C locale).
std::string_view trim(std::string_view s);

// printf's formatting of one number: printf_string("%.1f", 2.25) == "2.2".
std::string printf_string(const char* format, double v);

// printf's %.<precision>g through std::to_chars (the standard defines it as that conversion),
// without printf's locale and vararg cost: the gate formats every number of every reason.
std::string format_g(double v, int precision);

}  // namespace rtgate::text
