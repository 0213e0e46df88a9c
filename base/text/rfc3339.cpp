#include "base/text/rfc3339.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace rtgate::text {

std::optional<double> unix_seconds(const std::string& rfc3339) {
  std::tm tm{};
  const char* rest = strptime(rfc3339.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return std::nullopt;
  return static_cast<double>(timegm(&tm)) + (*rest == '.' ? std::strtod(rest, nullptr) : 0);
}

std::string rfc3339(double unix_s) {
  // Rounded to the millisecond first, so that .9996 s carries into the next second.
  const double ms = std::round(unix_s * 1000);
  const auto whole = static_cast<std::time_t>(std::floor(ms / 1000));
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf,
                static_cast<int>(ms - static_cast<double>(whole) * 1000));
  return out;
}

}  // namespace rtgate::text
