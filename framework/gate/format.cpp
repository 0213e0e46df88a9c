#include "framework/gate/format.h"

#include <charconv>
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

// printf's %.<precision>g, through std::to_chars (which the standard defines as that
// conversion): the gate formats every number of every reason, and the calibration's simulated
// gates spent a quarter of their time in printf's float formatting.
std::string general(double v, int precision, const char* suffix = "") {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
  return std::string(buf, r.ptr) + suffix;
}

}  // namespace

std::string ns(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : v < 0 ? "-inf" : "n/a";
  const double a = std::fabs(v);
  if (a < 10'000) return printf_string("%.0f ns", v);
  if (a < 10'000'000) return general(v / 1e3, 4, " us");
  if (a < 10'000'000'000) return general(v / 1e6, 4, " ms");
  return general(v / 1e9, 4, " s");
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
  return general(v, 4);
}

std::string quantile_name(double q) {
  std::string digits = general(q * 100, 6);
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
