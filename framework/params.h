// Typed suite parameters: one row per parameter (default, range, unit, help), validated and
// documented by the framework so that no suite parses its own options.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/report.h"

namespace rtgate {

enum class ParamType { kInt, kDouble, kBool, kChoice, kCpuList, kString };

const char* to_string(ParamType type);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kInt;
  ParamValue default_value;
  double min = 0;  // numeric types: inclusive range
  double max = 0;
  std::string unit;
  std::string help;
  std::vector<std::string> choices;  // kChoice

  // Integer parameter, e.g. {"interval_us", 1000, 50, 1'000'000, "us", "wakeup period"}.
  static ParamSpec integer(std::string name, std::int64_t def, std::int64_t min, std::int64_t max,
                           std::string unit, std::string help);
  static ParamSpec real(std::string name, double def, double min, double max, std::string unit,
                        std::string help);
  static ParamSpec boolean(std::string name, bool def, std::string help);
  static ParamSpec choice(std::string name, std::string def, std::vector<std::string> choices,
                          std::string help);
  // A CPU list such as "0-3,6", or "all" for every CPU rtgate may use.
  static ParamSpec cpu_list(std::string name, std::string def, std::string help);
  static ParamSpec string(std::string name, std::string def, std::string help);

  // "1000 [50, 1000000] us", "fifo {fifo|rr|other}": the range text used in errors and describe.
  std::string range_text() const;
  std::string format(const ParamValue& v) const;

  // Parses and validates text for this parameter. On error returns nullopt and sets *error to a
  // one-line message naming the parameter and its range.
  std::optional<ParamValue> parse(std::string_view text, std::string* error) const;
};

// The values of one suite's parameters: every spec's default, overridden by -p assignments.
class Params {
 public:
  Params() = default;
  explicit Params(const std::vector<ParamSpec>& specs);

  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;  // kChoice, kString, kCpuList

  void set(const std::string& name, ParamValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  const ParamValue& at(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

// One `-p` assignment: "suite.param=value" (suite set) or "param=value" (suite empty).
struct ParamAssignment {
  std::string suite;
  std::string param;
  std::string value;
};

// Splits "a.b.c=value" at the last '.' before '=' into suite "a.b" and param "c" when the key
// has a dot; param names themselves never contain dots. Returns nullopt and sets *error when
// the form is wrong ("", "=1", "x", "x=").
std::optional<ParamAssignment> parse_assignment(std::string_view text, std::string* error);

}  // namespace rtgate
