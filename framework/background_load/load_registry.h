// Load kinds describe themselves in one file each and register at static-init time:
//
//   RTGATE_LOAD_KIND(cpu, {.name = "cpu", .usage = "cpu[:N]", .help = "...", .make = &make});
//
// The kind files (framework/background_load/*_load.cpp) are built as an OBJECT library,
// rtgate_load_kinds, so that the linker keeps their registrations although nothing references them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/background_load/load.h"

namespace rtgate::load {

// Builds a load from the item's arguments (the parts after the kind, split on ':'). On bad
// arguments: nullptr and a one-line *error without the item (the parser adds it).
using LoadFactory =
    std::function<std::unique_ptr<Load>(const std::vector<std::string>& args, std::string* error)>;

struct LoadKind {
  std::string name;   // "cpu"
  std::string usage;  // "cpu[:N]"
  std::string help;   // one line for `rtgate` help
  LoadFactory make;
  // The single argument is the rest of the spec, commas and colons included (stress-ng options).
  bool takes_rest = false;
};

// Every registered kind, sorted by name.
const std::vector<LoadKind>& load_kinds();
const LoadKind* find_load_kind(std::string_view name);
// "cpu, fault, io, ..." for error messages.
std::string load_kind_names();

struct LoadKindRegistrar {
  explicit LoadKindRegistrar(LoadKind kind);
};

// For factories: `text` as an integer in [lo, hi] (digits only), else false and
// *error = "<what> must be an integer from lo to hi, got 'text'".
bool parse_int_arg(std::string_view text, std::string_view what, int lo, int hi, int* out,
                   std::string* error);
// For factories: false and *error when there are more than `max` arguments.
bool check_arg_count(const std::vector<std::string>& args, std::size_t max, std::string* error);

// For factories of kinds whose one argument is an optional thread count in [1, max]: the count
// (1 when absent), or nullopt and *error.
std::optional<int> thread_count_arg(const std::vector<std::string>& args, int max,
                                    std::string* error);

}  // namespace rtgate::load

#define RTGATE_LOAD_KIND(id, ...)                                          \
  namespace {                                                              \
  const ::rtgate::load::LoadKindRegistrar rtgate_load_kind_registrar_##id{ \
      ::rtgate::load::LoadKind __VA_ARGS__};                               \
  }
