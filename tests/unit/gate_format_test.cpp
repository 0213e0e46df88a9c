// The gate's number formatting: num() and ns() go through std::to_chars for speed and must print
// exactly what printf's %.4g printed (reasons are compared in tests and read by people), over
// every magnitude and sign, and at the edges (ties at the 4th digit, powers of ten, subnormals).
#include "gate/model/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace rtgate::gate {
namespace {

std::string printf_g(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

TEST(GateFormat, NumAndNsPrintWhatPrintfPrints) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-320, 300), mantissa(1, 10);
  std::vector<double> values = {0,      -0.0,   1,        9.9995,  99995, 0.00012345, 1e-5,
                                123456, 1e100,  5e-324,   12345.5, 1.00005e7, 2.5,   -7.77777};
  for (int i = 0; i < 20000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, std::floor(exponent(rng)));
    values.push_back(i % 2 ? v : -v);
  }
  for (double v : values) {
    ASSERT_EQ(fmt::num(v), printf_g("%.4g", v)) << v;
    const double a = std::fabs(v);
    std::string want;
    if (a >= 10'000 && a < 10'000'000) want = printf_g("%.4g us", v / 1e3);
    if (a >= 1e7 && a < 1e10) want = printf_g("%.4g ms", v / 1e6);
    if (a >= 1e10 && std::isfinite(v)) want = printf_g("%.4g s", v / 1e9);
    if (!want.empty()) {
      ASSERT_EQ(fmt::ns(v), want) << v;
    }
  }
  EXPECT_EQ(fmt::quantile_name(0.999), "p999");
  EXPECT_EQ(fmt::quantile_name(0.99999), "p99999");
  EXPECT_EQ(fmt::quantile_name(0.5), "p50");
  EXPECT_EQ(fmt::num(INFINITY), "inf");
}

// A share rounds to a whole percent, except that a few of many is not "0%" and all but a few is
// not "100%": "grew: in 13% of samples (was 0%)" would say the baseline had none.
TEST(GateFormat, ShareSaysLessThanOnePercentRatherThanNone) {
  EXPECT_EQ(fmt::share(0), "0%");
  EXPECT_EQ(fmt::share(0.004), "<1%");
  EXPECT_EQ(fmt::share(0.009), "<1%");
  EXPECT_EQ(fmt::share(0.01), "1%");
  EXPECT_EQ(fmt::share(0.412), "41%");
  EXPECT_EQ(fmt::share(0.996), ">99%");
  EXPECT_EQ(fmt::share(1), "100%");
}

}  // namespace
}  // namespace rtgate::gate
