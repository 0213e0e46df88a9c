#include "base/text/units.h"

#include <cmath>
#include <cstdio>

#include "base/text/strings.h"

namespace rtgate::text {
namespace {

std::string fixed(double v, int decimals, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, unit);
  return buf;
}

}  // namespace

std::string in_us(double ns, int decimals) { return fixed(ns / 1e3, decimals, " us"); }

std::string in_ms(double ns, int decimals) { return fixed(ns / 1e6, decimals, " ms"); }

std::string duration(double ns) { return ns < 1e6 ? in_us(ns, 1) : in_ms(ns, 2); }

std::string significant(double ns, int digits) {
  if (!std::isfinite(ns)) return ns > 0 ? "inf" : ns < 0 ? "-inf" : "n/a";
  const double step = std::pow(10.0, digits);
  const double a = std::fabs(ns);
  if (a < step) return fixed(ns, 0, " ns");
  if (a < step * 1e3) return format_g(ns / 1e3, digits) + " us";
  if (a < step * 1e6) return format_g(ns / 1e6, digits) + " ms";
  return format_g(ns / 1e9, digits) + " s";
}

std::string compact(double ns) {
  if (ns < 10'000) return fixed(ns / 1e3, 2, "us");
  if (ns < 10'000'000) return fixed(ns / 1e3, 1, "us");
  return fixed(ns / 1e6, 1, "ms");
}

}  // namespace rtgate::text
