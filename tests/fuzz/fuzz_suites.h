// The suites the selector and `-p` fuzz targets select from: a registry-like list shaped like
// the real one (dotted names, shared tags, one parameter of every type, a validate hook), built
// here so the targets need no suite code.
#pragma once

#include <vector>

#include "framework/registry.h"

namespace rtgate::fuzz {

inline std::string no_huge_interval_with_rr(const Params& p) {
  return p.get_string("policy") == "rr" && p.get_int("interval_us") > 500'000
             ? "policy rr needs interval_us <= 500000"
             : "";
}

inline const std::vector<SuiteDescriptor>& fuzz_suites() {
  static const std::vector<SuiteDescriptor> suites = [] {
    std::vector<SuiteDescriptor> s;
    s.push_back({.name = "cyclic",
                 .tags = {"sched", "smoke"},
                 .params = {ParamSpec::integer("interval_us", 1000, 50, 1'000'000, "us", "period"),
                            ParamSpec::integer("priority", 80, 1, 99, "", "FIFO priority"),
                            ParamSpec::cpu_list("cpus", "all", "CPUs"),
                            ParamSpec::choice("policy", "fifo", {"fifo", "rr"}, "policy"),
                            ParamSpec::boolean("probe", true, "probe")},
                 .validate = &no_huge_interval_with_rr});
    s.push_back({.name = "lock.latency",
                 .tags = {"lock", "rt"},
                 .params = {ParamSpec::string("locks", "all", "lock names"),
                            ParamSpec::real("overcommit", 1.0, 0.1, 16, "", "threads per CPU"),
                            ParamSpec::integer("priority", 80, 1, 99, "", "FIFO priority")}});
    s.push_back({.name = "lock.throughput", .tags = {"lock", "throughput"}});
    s.push_back({.name = "mm.pft",
                 .tags = {"workload", "mm"},
                 .params = {ParamSpec::real("overcommit", 1.0, 0.1, 16, "", "threads per CPU"),
                            ParamSpec::boolean("probe", true, "probe")}});
    s.push_back({.name = "pi.inversion", .tags = {"pi", "lock", "rt"}});
    return s;
  }();
  return suites;
}

}  // namespace rtgate::fuzz
