#include "framework/gate/format.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace rtgate::gate::fmt {
namespace {

std::string printf_string(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::string ns(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : v < 0 ? "-inf" : "n/a";
  const double a = std::fabs(v);
  if (a < 10'000) return printf_string("%.0f ns", v);
  if (a < 10'000'000) return printf_string("%.4g us", v / 1e3);
  if (a < 10'000'000'000) return printf_string("%.4g ms", v / 1e6);
  return printf_string("%.4g s", v / 1e9);
}

std::string pct(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "+inf%" : "-inf%";
  return printf_string("%+.1f%%", v);
}

std::string p_value(double p) {
  if (std::isnan(p)) return "p=n/a";
  if (p <= 0) return "p<1e-300";
  return printf_string(p >= 0.001 || p == 0 ? "p=%.4f" : "p=%.2g", p);
}

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return printf_string("%.4g", v);
}

std::string quantile_name(double q) {
  std::string digits = printf_string("%.6g", q * 100);
  std::string out = "p";
  for (char c : digits) {
    if (c != '.') out += c;
  }
  return out;
}

std::string interval(double lo, double hi, bool as_ns) {
  auto one = [&](double v) { return as_ns ? ns(v) : num(v); };
  return "[" + one(lo) + ", " + one(hi) + "]";
}

double change_pct(double baseline, double current) {
  if (std::isnan(baseline) || std::isnan(current)) return NAN;
  if (baseline == 0) {
    return current == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), current);
  }
  return 100.0 * (current - baseline) / std::fabs(baseline);
}

}  // namespace rtgate::gate::fmt
