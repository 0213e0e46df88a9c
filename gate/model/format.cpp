#include "gate/model/format.h"

#include <cmath>
#include <limits>

#include "base/text/strings.h"
#include "base/text/units.h"

namespace rtgate::gate::fmt {

std::string ns(double v) { return text::significant(v, 4); }

std::string pct(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "+inf%" : "-inf%";
  return text::printf_string("%+.1f%%", v);
}

std::string share(double fraction) {
  // A few samples of many are not none, nor all but a few all: "0%" beside "grew" misleads.
  if (fraction > 0 && fraction < 0.01) return "<1%";
  if (fraction < 1 && fraction > 0.99) return ">99%";
  return text::printf_string("%.0f%%", 100 * fraction);
}

std::string p_value(double p) {
  if (std::isnan(p)) return "p=n/a";
  if (p <= 0) return "p<1e-300";
  return text::printf_string(p >= 0.001 || p == 0 ? "p=%.4f" : "p=%.2g", p);
}

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return text::format_g(v, 4);
}

std::string quantile_name(double q) {
  std::string digits = text::format_g(q * 100, 6);
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

namespace {

std::string signed_num(double v) { return (v >= 0 ? "+" : "") + num(v); }

}  // namespace

std::string effect(const MetricVerdict& m) {
  if (std::isnan(m.effect)) return "-";
  const std::string ci =
      std::isfinite(m.effect_low) ? " " + interval(m.effect_low, m.effect_high, false) : "";
  return m.ratio ? "x" + num(m.effect) + ci : signed_num(m.effect) + "/run" + ci;
}

std::string detectable(const MetricVerdict& m) {
  if (!std::isfinite(m.detectable)) return "-";
  return m.ratio ? "x" + num(m.detectable) : signed_num(m.detectable) + "/run";
}

}  // namespace rtgate::gate::fmt
