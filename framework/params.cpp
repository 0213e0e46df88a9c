#include "framework/params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "framework/rt/cpu_list.h"

namespace rtgate {
namespace {

std::string number_text(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string bad(const ParamSpec& spec, std::string_view text, const std::string& why) {
  return "parameter '" + spec.name + "': '" + std::string(text) + "' " + why + "; expected " +
         spec.range_text();
}

}  // namespace

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kDouble:
      return "real";
    case ParamType::kBool:
      return "bool";
    case ParamType::kChoice:
      return "choice";
    case ParamType::kCpuList:
      return "cpulist";
    case ParamType::kString:
      return "string";
  }
  return "?";
}

ParamSpec ParamSpec::integer(std::string name, std::int64_t def, std::int64_t min, std::int64_t max,
                             std::string unit, std::string help) {
  return {std::move(name), ParamType::kInt, def, static_cast<double>(min), static_cast<double>(max),
          std::move(unit), std::move(help), {}};
}

ParamSpec ParamSpec::real(std::string name, double def, double min, double max, std::string unit,
                          std::string help) {
  return {std::move(name), ParamType::kDouble, def, min, max, std::move(unit), std::move(help), {}};
}

ParamSpec ParamSpec::boolean(std::string name, bool def, std::string help) {
  return {std::move(name), ParamType::kBool, def, 0, 1, "", std::move(help), {}};
}

ParamSpec ParamSpec::choice(std::string name, std::string def, std::vector<std::string> choices,
                            std::string help) {
  return {std::move(name), ParamType::kChoice, std::move(def), 0, 0, "",
          std::move(help), std::move(choices)};
}

ParamSpec ParamSpec::cpu_list(std::string name, std::string def, std::string help) {
  return {std::move(name), ParamType::kCpuList, std::move(def), 0, 0, "", std::move(help), {}};
}

ParamSpec ParamSpec::string(std::string name, std::string def, std::string help) {
  return {std::move(name), ParamType::kString, std::move(def), 0, 0, "", std::move(help), {}};
}

std::string ParamSpec::range_text() const {
  switch (type) {
    case ParamType::kInt:
    case ParamType::kDouble: {
      std::string s = (type == ParamType::kInt ? "an integer" : "a number") + std::string(" in [") +
                      number_text(min) + ", " + number_text(max) + "]";
      return unit.empty() ? s : s + " " + unit;
    }
    case ParamType::kBool:
      return "true|false";
    case ParamType::kChoice: {
      std::string s;
      for (const auto& c : choices) s += (s.empty() ? "" : "|") + c;
      return "one of " + s;
    }
    case ParamType::kCpuList:
      return "a CPU list such as 0-3,6 or 'all'";
    case ParamType::kString:
      return "a string";
  }
  return "";
}

std::string ParamSpec::format(const ParamValue& v) const {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return number_text(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

std::optional<ParamValue> ParamSpec::parse(std::string_view text, std::string* error) const {
  const std::string s(text);
  switch (type) {
    case ParamType::kInt: {
      if (s.empty()) return *error = bad(*this, text, "is empty"), std::nullopt;
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (*end != '\0') return *error = bad(*this, text, "is not an integer"), std::nullopt;
      if (errno == ERANGE || static_cast<double>(v) < min || static_cast<double>(v) > max) {
        return *error = bad(*this, text, "is out of range"), std::nullopt;
      }
      return ParamValue{static_cast<std::int64_t>(v)};
    }
    case ParamType::kDouble: {
      if (s.empty()) return *error = bad(*this, text, "is empty"), std::nullopt;
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (*end != '\0' || !std::isfinite(v)) {
        return *error = bad(*this, text, "is not a number"), std::nullopt;
      }
      if (v < min || v > max) return *error = bad(*this, text, "is out of range"), std::nullopt;
      return ParamValue{v};
    }
    case ParamType::kBool:
      if (s == "true" || s == "1" || s == "yes" || s == "on") return ParamValue{true};
      if (s == "false" || s == "0" || s == "no" || s == "off") return ParamValue{false};
      return *error = bad(*this, text, "is not a boolean"), std::nullopt;
    case ParamType::kChoice:
      for (const auto& c : choices) {
        if (c == s) return ParamValue{s};
      }
      return *error = bad(*this, text, "is not a valid choice"), std::nullopt;
    case ParamType::kCpuList:
      if (s == "all" || text::parse_cpu_list(s)) return ParamValue{s};
      return *error = bad(*this, text, "is not a CPU list"), std::nullopt;
    case ParamType::kString:
      return ParamValue{s};
  }
  return std::nullopt;
}

Params::Params(const std::vector<ParamSpec>& specs) {
  for (const auto& spec : specs) values_[spec.name] = spec.default_value;
}

const ParamValue& Params::at(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("suite reads undeclared parameter " + name);
  return it->second;
}

std::int64_t Params::get_int(const std::string& name) const {
  return std::get<std::int64_t>(at(name));
}
double Params::get_double(const std::string& name) const { return std::get<double>(at(name)); }
bool Params::get_bool(const std::string& name) const { return std::get<bool>(at(name)); }
const std::string& Params::get_string(const std::string& name) const {
  return std::get<std::string>(at(name));
}

std::optional<ParamAssignment> parse_assignment(std::string_view text, std::string* error) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    *error = "bad parameter '" + std::string(text) + "': expected KEY=VALUE or SUITE.KEY=VALUE";
    return std::nullopt;
  }
  const std::string_view key = text.substr(0, eq);
  ParamAssignment a;
  a.value = std::string(text.substr(eq + 1));
  const auto dot = key.rfind('.');
  if (dot == std::string_view::npos) {
    a.param = std::string(key);
  } else {
    a.suite = std::string(key.substr(0, dot));
    a.param = std::string(key.substr(dot + 1));
  }
  if (a.param.empty() || (dot != std::string_view::npos && a.suite.empty())) {
    *error = "bad parameter '" + std::string(text) + "': empty name before '='";
    return std::nullopt;
  }
  if (a.value.empty()) {
    *error = "bad parameter '" + std::string(text) + "': empty value after '='";
    return std::nullopt;
  }
  return a;
}

}  // namespace rtgate
