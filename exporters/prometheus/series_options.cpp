#include "exporters/prometheus/series_options.h"

#include <charconv>
#include <cmath>
#include <string>

namespace rtgate::prom {

const std::vector<double>& bucket_set(const std::string& name) {
  static const std::vector<double> coarse = {1e-5, 2e-5, 5e-5, 1e-4, 5e-4, 1e-3, 1e-2};
  static const std::vector<double> standard = {1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4,
                                               5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1};
  static const std::vector<double> fine = [] {
    // The R10 series (ten steps a decade, 10^(k/10) rounded), parsed from text so that each
    // bound is the double nearest its decimal and prints as it is written here.
    constexpr const char* kR10[] = {"1", "1.25", "1.6", "2", "2.5", "3.15", "4", "5", "6.3", "8"};
    std::vector<double> v;
    for (int exp = -6; exp <= -2; ++exp) {
      for (const char* m : kR10) v.push_back(std::stod(std::string(m) + "e" + std::to_string(exp)));
    }
    v.push_back(0.1);
    return v;
  }();
  static const std::vector<double> none;
  if (name == "coarse") return coarse;
  if (name == "standard") return standard;
  if (name == "fine") return fine;
  return none;
}

std::optional<std::vector<double>> parse_buckets(const std::string& text, std::string* why) {
  if (text == "coarse" || text == "standard" || text == "fine" || text == "none") {
    return bucket_set(text);
  }
  std::vector<double> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    double v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    const std::string number(item.data(), end), unit(end, item.data() + item.size());
    const char* exponent = unit == "ns"   ? "e-9"
                           : unit == "us" ? "e-6"
                           : unit == "ms" ? "e-3"
                           : unit == "s"  ? "e0"
                                          : nullptr;
    if (ec != std::errc() || exponent == nullptr || !std::isfinite(v) || !(v > 0) ||
        number.find_first_of("eE") != std::string::npos) {
      *why = "'" + item +
             "' is not a duration such as 50us or 1ms (or coarse, standard, fine, "
             "none)";
      return std::nullopt;
    }
    // The double nearest the decimal in seconds, as if it had been written so ("1.5e-3").
    v = std::stod(number + exponent);
    if (!std::isfinite(v) || !(v > 0)) {
      *why = "'" + item + "' is out of range";
      return std::nullopt;
    }
    if (!out.empty() && !(v > out.back())) {
      *why = "bounds must be strictly ascending ('" + item + "')";
      return std::nullopt;
    }
    out.push_back(v);
    at = comma + 1;
  }
  if (out.size() > 64) {
    *why = "at most 64 bounds";
    return std::nullopt;
  }
  return out;
}

SeriesOptions series_options(const ExportValues& values) {
  const auto value = [&](const char* flag) {
    const auto it = values.find(flag);
    return it == values.end() ? std::string() : it->second;
  };
  std::string why;
  return parse_series_options(value(kBucketsFlag), value(kCasesFlag), &why)
      .value_or(SeriesOptions{});
}

std::optional<SeriesOptions> parse_series_options(const std::string& buckets,
                                                  const std::string& cases, std::string* why) {
  SeriesOptions o;
  const auto b = parse_buckets(buckets.empty() ? kDefaultBuckets : buckets, why);
  if (!b) {
    *why = "--prom-buckets: " + *why;
    return std::nullopt;
  }
  o.bounds_s = *b;
  if (cases != "" && cases != "all" && cases != "suite") {
    *why = "--prom-cases: '" + cases + "' is not all or suite";
    return std::nullopt;
  }
  o.per_case = cases != "suite";
  return o;
}

}  // namespace rtgate::prom
