// Suite registry: suites describe themselves in one file and register at static-init time.
//
//   RTGATE_SUITE({.name = "cyclic", .tags = {"sched", "smoke"}, .summary = "...",
//                 .params = {...}, .needs = rtgate::Needs::kSchedFifo, .run = &run});
//
// Names are checked at compile time (lowercase letters, digits, '_' and '.'), so a bad name is a
// build error rather than a surprise in `rtgate list`.
#pragma once

#include <string>
#include <vector>

#include "framework/params.h"
#include "results/report.h"

namespace rtgate {

class RunContext;

namespace detail {
// Deliberately not constexpr: calling it from a consteval function is a compile error.
void invalid_suite_name(const char* why);
}  // namespace detail

struct SuiteName {
  consteval SuiteName(const char* s) : value(s) {  // NOLINT: implicit by design
    if (s == nullptr || s[0] == '\0') detail::invalid_suite_name("empty");
    char prev = '.';
    for (const char* p = s; *p != '\0'; ++p) {
      const char c = *p;
      const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
      if (!ok) detail::invalid_suite_name("only a-z, 0-9, '_' and '.' are allowed");
      if (c == '.' && prev == '.') detail::invalid_suite_name("empty dotted component");
      prev = c;
    }
    if (prev == '.') detail::invalid_suite_name("ends with '.'");
  }
  const char* value;
};

enum class Needs : unsigned { kNone = 0, kSchedFifo = 1u << 0, kRoot = 1u << 1 };
constexpr Needs operator|(Needs a, Needs b) {
  return static_cast<Needs>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(Needs set, Needs bit) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(bit)) != 0;
}

// A suite's run: one repetition. It returns data and never prints; it stops early, keeping what
// it measured, when the context asks it to.
using SuiteFn = SuiteResult (*)(const Params& params, RunContext& ctx);
// Checks combinations of parameters that the per-parameter ranges cannot express (e.g. "readers
// + writers > 0"). Returns "" when they are fine, else a one-line reason (the CLI exits 2).
using ValidateFn = std::string (*)(const Params& params);

struct SuiteDescriptor {
  SuiteName name;
  std::vector<std::string> tags;
  std::string summary;
  std::vector<ParamSpec> params;
  Needs needs = Needs::kNone;
  SuiteFn run = nullptr;
  ValidateFn validate = nullptr;
  // The suite does a fixed amount of work (rounds, a sweep) instead of running for --duration:
  // the runner then does not stop it at the duration, only the watchdog and SIGINT do.
  bool fixed_work = false;

  bool has_tag(const std::string& tag) const;
  const ParamSpec* find_param(const std::string& param) const;
};

class Registry {
 public:
  static Registry& instance();

  // Aborts the process on a duplicate name: two suites with one name is a build mistake.
  void add(SuiteDescriptor descriptor);
  // Every suite, sorted by name.
  const std::vector<SuiteDescriptor>& all() const { return suites_; }
  const SuiteDescriptor* find(const std::string& name) const;

 private:
  std::vector<SuiteDescriptor> suites_;
};

struct SuiteRegistrar {
  explicit SuiteRegistrar(SuiteDescriptor descriptor) {
    Registry::instance().add(std::move(descriptor));
  }
};

}  // namespace rtgate

#define RTGATE_CONCAT_INNER(a, b) a##b
#define RTGATE_CONCAT(a, b) RTGATE_CONCAT_INNER(a, b)
#define RTGATE_SUITE(...)                                                                        \
  namespace {                                                                                    \
  const ::rtgate::SuiteRegistrar RTGATE_CONCAT(rtgate_suite_registrar_,                          \
                                               __LINE__){::rtgate::SuiteDescriptor __VA_ARGS__}; \
  }
