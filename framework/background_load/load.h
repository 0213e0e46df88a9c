// Load generators: the competition a suite runs under (`rtgate run ... --load cpu:2,fault:1`).
//
// Each load reports what it really did (ops and ops/s), so a result shows the load that was
// applied rather than the one that was asked for. Every load stops promptly (well under a second)
// and uses no RT priority unless it is the `rt` kind. Kinds register themselves
// (framework/background_load/load_registry.h); this header knows none of them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "results/load_report.h"
#include "results/load_spec.h"

namespace rtgate::load {

class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One item of a spec. Started at most once; stop() is prompt and idempotent, and the destructor
// stops. report() may be called at any time.
class Load {
 public:
  virtual ~Load() = default;
  virtual void start() = 0;  // throws LoadError (one-line message) if it cannot start
  virtual void stop() = 0;
  virtual LoadReport report() const = 0;
};

// A parsed spec: its loads in spec order.
class LoadSet {
 public:
  LoadSet() = default;
  LoadSet(LoadSet&&) = default;
  LoadSet& operator=(LoadSet&&) = default;
  ~LoadSet();

  // `spec` is the item's canonical text; it becomes the report's spec.
  void add(std::string spec, std::unique_ptr<Load> load);
  // Starts every load in order. If one fails, the ones already started are stopped and a
  // LoadError naming the item is thrown.
  void start();
  void stop();  // in reverse order
  std::vector<LoadReport> reports() const;
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }

 private:
  struct Item {
    std::string spec;
    std::unique_ptr<Load> load;
  };
  std::vector<Item> items_;
};

// Parses "cpu:2,fault:1,msg:1,io:1,rt:1:50:20,stress:--cpu 2 --vm 1" (results/load_spec.h has
// the syntax) against the registered kinds: a kind that takes the rest (stress) swallows
// everything after its ':', commas included, so it must come last. Each item is checked by
// building it once (nothing starts). An all-blank spec is no load. Bad input is nullopt and a
// one-line *error naming the item. What the CLI calls once, where the spec enters.
std::optional<LoadSpec> parse_load_spec(std::string_view spec, std::string* error);

// Fresh generators for one run of a spec parse_load_spec accepted, in spec order.
std::optional<LoadSet> make_loads(const LoadSpec& spec, std::string* error);

}  // namespace rtgate::load
