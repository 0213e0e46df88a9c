// Checked conversions of JSON values for the result readers (result_reader.cpp, trace_json.cpp).
//
// nlohmann's get<T>() converts any number to any arithmetic T with a static_cast: -1 read as a
// count wraps to 2^64 - 1, 1e300 read as an int is undefined behaviour, and 1e400 parses to
// infinity. A result file is input, so these return nullopt instead: an integer type takes only
// a JSON integer within its range, a double only a finite number; other types go through get<T>()
// with its type_error turned into nullopt.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace rtgate::json_number {

template <class T>
std::optional<T> as(const nlohmann::json& v) {
  if constexpr (std::same_as<T, bool>) {
    if (!v.is_boolean()) return std::nullopt;
    return v.get<bool>();
  } else if constexpr (std::integral<T>) {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (std::cmp_greater(u, std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (!std::in_range<T>(i)) return std::nullopt;
      return static_cast<T>(i);
    }
    return std::nullopt;
  } else if constexpr (std::floating_point<T>) {
    if (!v.is_number()) return std::nullopt;
    const T d = v.get<T>();
    if (!std::isfinite(d)) return std::nullopt;
    return d;
  } else {
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;
    }
  }
}

}  // namespace rtgate::json_number
