// Times as results write them, both ways: what a history read from Prometheus sorts its
// sessions by must order as the result files' own times do.
#include "base/text/rfc3339.h"

#include <gtest/gtest.h>

namespace rtgate::text {
namespace {

TEST(Rfc3339, RoundTripsToTheMillisecond) {
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(rfc3339(1764458817.123), "2025-11-29T23:26:57.123Z");
  // .9996 rounds into the next second, not to ".1000".
  EXPECT_EQ(rfc3339(1764458817.9996), "2025-11-29T23:26:58.000Z");
  EXPECT_DOUBLE_EQ(*unix_seconds("2025-11-29T23:26:57.123Z"), 1764458817.123);
  EXPECT_DOUBLE_EQ(*unix_seconds("2025-11-29T23:26:57Z"), 1764458817);
  for (double t : {1.5, 1700000000.001, 1764458817.999}) {
    EXPECT_NEAR(*unix_seconds(rfc3339(t)), t, 5e-4) << t;
  }
}

TEST(Rfc3339, WhatIsNotATimeIsNone) {
  EXPECT_FALSE(unix_seconds("").has_value());
  EXPECT_FALSE(unix_seconds("yesterday").has_value());
  EXPECT_FALSE(unix_seconds("2025-13-45").has_value());
}

}  // namespace
}  // namespace rtgate::text
