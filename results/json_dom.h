// The checked reading of simdjson DOM values for the result reader (result_from_dom.cpp): each
// getter names the offending field in a JsonError, optional fields fall back, and numbers follow
// json_number.h's rules (an integer type takes only a JSON integer within its range, a double
// only a finite number).
#pragma once

#include <simdjson.h>

#include <cmath>
#include <concepts>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "results/result_json.h"

namespace rtgate::json_dom {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

inline std::string dump(element v) { return simdjson::minify(v); }

inline const char* type_name(element v) {
  switch (v.type()) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
    default:
      return "number";
  }
}

// The checked conversions of json_number.h, for simdjson values: an integer type takes only a
// JSON integer within its range, a double only a finite number, a string only a string.
template <class T>
std::optional<T> as(element v) {
  if constexpr (std::same_as<T, bool>) {
    bool b = false;
    if (v.get(b) != simdjson::SUCCESS) return std::nullopt;
    return b;
  } else if constexpr (std::integral<T>) {
    if (v.type() == element_type::UINT64) {
      const std::uint64_t u = v.get_uint64().value_unsafe();
      if (std::cmp_greater(u, std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(u);
    }
    if (v.type() == element_type::INT64) {
      const std::int64_t i = v.get_int64().value_unsafe();
      if (!std::in_range<T>(i)) return std::nullopt;
      return static_cast<T>(i);
    }
    return std::nullopt;
  } else if constexpr (std::floating_point<T>) {
    double d = 0;
    if (v.get(d) != simdjson::SUCCESS || !std::isfinite(d)) return std::nullopt;
    return static_cast<T>(d);
  } else if constexpr (std::same_as<T, std::string>) {
    std::string_view s;
    if (v.get(s) != simdjson::SUCCESS) return std::nullopt;
    return std::string(s);
  } else if constexpr (std::same_as<T, std::vector<std::string>>) {
    array a;
    if (v.get(a) != simdjson::SUCCESS) return std::nullopt;
    T out;
    for (element x : a) {
      auto s = as<std::string>(x);
      if (!s) return std::nullopt;
      out.push_back(std::move(*s));
    }
    return out;
  } else {
    static_assert(std::same_as<T, std::map<std::string, std::string>>);
    object o;
    if (v.get(o) != simdjson::SUCCESS) return std::nullopt;
    T out;
    for (const auto [k, x] : o) {
      auto s = as<std::string>(x);
      if (!s) return std::nullopt;
      out[std::string(k)] = std::move(*s);
    }
    return out;
  }
}

inline object object_of(element v, const std::string& where) {
  object o;
  if (v.get(o) != simdjson::SUCCESS) throw JsonError(where + ": expected an object");
  return o;
}

inline std::optional<element> member(object obj, std::string_view key) {
  element v;
  if (obj.at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

// An optional object member: absent or of another type is nullopt.
inline std::optional<object> object_member(object obj, std::string_view key) {
  object o;
  const auto v = member(obj, key);
  if (!v || v->get(o) != simdjson::SUCCESS) return std::nullopt;
  return o;
}

inline element field(object obj, const char* key, const std::string& where) {
  const auto v = member(obj, key);
  if (!v) throw JsonError(where + ": missing field '" + key + "'");
  return *v;
}

template <class T>
T get(object obj, const char* key, const std::string& where) {
  const element v = field(obj, key, where);
  if (auto t = as<T>(v)) return *std::move(t);
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (v.is_number()) throw JsonError(where + "." + key + ": " + dump(v) + " is out of range");
  }
  throw JsonError(where + "." + key + ": wrong type (" + type_name(v) + ")");
}

// Optional fields written by later versions or read leniently: absent, null, the wrong type or
// out of range is the fallback.
template <class T>
T get_or(object obj, const char* key, T fallback) {
  const auto v = member(obj, key);
  if (!v || v->is_null()) return fallback;
  return as<T>(*v).value_or(std::move(fallback));
}

inline array array_of(element v, const std::string& what) {
  array a;
  if (v.get(a) != simdjson::SUCCESS) throw JsonError(what + ": expected an array");
  return a;
}

inline array array_field(object obj, const char* key, const std::string& where) {
  return array_of(field(obj, key, where), where + "." + key);
}

// The number of elements (array::size() saturates at 2^24 - 1).
inline std::size_t count_of(array a) {
  const std::size_t n = a.size();
  if (n < 0xFFFFFF) return n;
  std::size_t k = 0;
  for ([[maybe_unused]] element x : a) ++k;
  return k;
}

// A list of finite numbers (samples).
// Per-run values (samples): thousands in a farm's result. Tens of millions, from elsewhere, are
// refused before they take the memory: in one array here, in a whole document by the history
// reader.
inline constexpr std::size_t kMaxSamples = 4'000'000;

inline std::vector<double> numbers(object obj, const char* key, const std::string& where) {
  const element v = field(obj, key, where);
  array a;
  if (v.get(a) != simdjson::SUCCESS)
    throw JsonError(where + "." + key + ": expected an array of numbers");
  if (count_of(a) > kMaxSamples) {
    throw JsonError(where + "." + key + ": more than " + std::to_string(kMaxSamples) +
                    " values (the input limit)");
  }
  std::vector<double> out;
  out.reserve(count_of(a));
  for (element x : a) {
    const auto d = as<double>(x);
    if (!d) throw JsonError(where + "." + key + ": a " + type_name(x) + " is not a finite number");
    out.push_back(*d);
  }
  return out;
}

inline std::uint64_t bucket_value(element v, const std::string& where) {
  const auto u = as<std::uint64_t>(v);
  if (!u) throw JsonError(where + ": bucket value " + dump(v) + " is not a count >= 0");
  return *u;
}

// A count's "gating"; "" (absent) in a result written before counts declared it, which then
// gets the rule by unit that the gate applied at the time.
inline Metric::Gating gating_from(const std::string& text, const std::string& unit,
                                  const std::string& where) {
  if (text == "event_rate") return Metric::Gating::kEventRate;
  if (text == "reported") return Metric::Gating::kReported;
  if (text.empty()) return Metric::gating_of_legacy_unit(unit);
  throw JsonError(where + ".gating: expected event_rate or reported");
}

// Trace evidence is read by trace_json.cpp from nlohmann values; it is small and optional, so
// the subtree is handed over as text.
inline nlohmann::json as_nlohmann(element v) { return nlohmann::json::parse(dump(v)); }

// Each element of the array `key` (absent or not an array: none), read leniently: an element
// that is not an object comes as nullopt.
template <class F>
void each_entry(object j, std::string_view key, F&& f) {
  array a;
  if (const auto v = member(j, key); !v || v->get(a) != simdjson::SUCCESS) return;
  for (element x : a) {
    object o;
    if (x.get(o) == simdjson::SUCCESS) {
      f(std::optional<object>(o));
    } else {
      f(std::optional<object>());
    }
  }
}

}  // namespace rtgate::json_dom
