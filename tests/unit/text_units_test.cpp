// Nanoseconds as text: each shape at its unit boundaries, since a reader compares figures across
// the console, the trace analysis and the HTML charts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "base/text/strings.h"
#include "base/text/units.h"

namespace rtgate::text {
namespace {

TEST(TextUnits, FixedUnits) {
  EXPECT_EQ(in_us(12'345.0), "12.3 us");
  EXPECT_EQ(in_us(std::int64_t{12'345}, 0), "12 us");
  EXPECT_EQ(in_ms(1'234'567.0), "1.23 ms");
  EXPECT_EQ(in_ms(std::uint64_t{5'000'000}, 1), "5.0 ms");
}

TEST(TextUnits, DurationSwitchesToMillisecondsAtOne) {
  EXPECT_EQ(duration(999'949), "999.9 us");
  EXPECT_EQ(duration(1'000'000), "1.00 ms");
  EXPECT_EQ(duration(std::int64_t{47'600'000}), "47.60 ms");
}

TEST(TextUnits, SignificantSwitchesOnceTheDigitsRunOut) {
  EXPECT_EQ(significant(850, 4), "850 ns");
  EXPECT_EQ(significant(9'999, 4), "9999 ns");
  EXPECT_EQ(significant(12'346, 4), "12.35 us");
  EXPECT_EQ(significant(1'250'000, 4), "1250 us");
  EXPECT_EQ(significant(12'500'000, 4), "12.5 ms");
  EXPECT_EQ(significant(2.1e10, 4), "21 s");
  EXPECT_EQ(significant(1'250, 3), "1.25 us");
  EXPECT_EQ(significant(-12'346, 4), "-12.35 us");
  EXPECT_EQ(significant(INFINITY, 4), "inf");
  EXPECT_EQ(significant(NAN, 3), "n/a");
}

TEST(TextUnits, CompactKeepsThreeOrFourDigits) {
  EXPECT_EQ(compact(9'870), "9.87us");
  EXPECT_EQ(compact(123'400), "123.4us");
  EXPECT_EQ(compact(12'300'000), "12.3ms");
}

TEST(TextStrings, TrimTakesCLocaleWhiteSpaceFromBothEnds) {
  EXPECT_EQ(trim(" \t a b \r\n\v\f"), "a b");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(TextStrings, FormatGIsPrintfsG) {
  char buf[64];
  for (double v : {0.0, 1.0, 12345.678, 1e-7, 99995.0, -2.5e300}) {
    std::snprintf(buf, sizeof buf, "%.4g", v);
    EXPECT_EQ(format_g(v, 4), buf) << v;
    EXPECT_EQ(printf_string("%.4g", v), buf) << v;
  }
}

}  // namespace
}  // namespace rtgate::text
