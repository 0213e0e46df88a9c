// Nanoseconds as text, in the few shapes rtgate prints them: one home, so that a reader sees the
// same "12.3 us" in the console, the trace analysis, the gate's reasons and the HTML charts.
#pragma once

#include <concepts>
#include <string>

namespace rtgate::text {

// A fixed unit with fixed decimals: in_us(12345) == "12.3 us", in_ms(1234567) == "1.23 ms".
std::string in_us(double ns, int decimals = 1);
std::string in_ms(double ns, int decimals = 2);

// Microseconds below a millisecond, then milliseconds: "850.0 us", "1.25 ms".
std::string duration(double ns);

// `digits` significant digits, the unit switching once a value needs more than `digits` digits
// of the smaller one: significant(850, 4) == "850 ns", (12346, 4) == "12.35 us",
// (1250, 3) == "1.25 us". Values below the first switch are whole nanoseconds.
std::string significant(double ns, int digits);

// Table columns, no space before the unit: "9.87us", "123.4us", "12.3ms".
std::string compact(double ns);

// Counts of nanoseconds, exact up to 2^53 ns (104 days), without a cast at every call.
template <std::integral I>
std::string in_us(I ns, int decimals = 1) {
  return in_us(static_cast<double>(ns), decimals);
}
template <std::integral I>
std::string in_ms(I ns, int decimals = 2) {
  return in_ms(static_cast<double>(ns), decimals);
}
template <std::integral I>
std::string duration(I ns) {
  return duration(static_cast<double>(ns));
}
template <std::integral I>
std::string compact(I ns) {
  return compact(static_cast<double>(ns));
}

}  // namespace rtgate::text
