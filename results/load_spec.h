// A --load spec as its structure: items separated by ',', each a kind and its ':'-separated
// arguments ("cpu:2,fault:1"). Whitespace around a token, and runs of it inside one, mean
// nothing, so "cpu:2,fault:1" and "cpu:2, fault : 1" are one spec. A kind that takes the rest
// (stress:OPTIONS) keeps everything after its colon, commas included, as its one argument.
//
// Parsed once where it enters (the CLI, against the kinds that exist; a result, by the rule
// alone) and compared as structure: a result records text() and the gate compares parsed specs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate::load {

struct LoadItemSpec {
  std::string kind;
  std::vector<std::string> args;
  bool operator==(const LoadItemSpec&) const = default;
};

struct LoadSpec {
  std::vector<LoadItemSpec> items;

  bool empty() const { return items.empty(); }
  // The canonical text: "cpu:2,fault:1" ("" for no load).
  std::string text() const;
  bool operator==(const LoadSpec&) const = default;
};

// Whether a kind's one argument is the rest of the spec. Without one (reading a result, where
// the kinds are not known), no kind does: both sides of a comparison then split alike.
using TakesRest = std::function<bool(std::string_view kind)>;

// nullopt and *error (one line) for an empty item or an item with no kind.
std::optional<LoadSpec> parse_load_text(std::string_view text, std::string* error,
                                        const TakesRest& takes_rest = {});

}  // namespace rtgate::load
