// What a --load item really did beside a suite, as a result records it.
#pragma once

#include <cstdint>
#include <string>

namespace rtgate::load {

struct LoadReport {       // one per load item
  std::string kind;       // "cpu", "fault", "msg", "io", "rt", "stress"
  std::string spec;       // the item as written, e.g. "cpu:2"
  int instances = 0;      // threads / groups / processes
  double seconds = 0;     // from start() to stop() (to now while running)
  std::uint64_t ops = 0;  // work done
  std::string
      unit;  // what ops counts: "loops", "faults", "messages", "fsyncs", "spins", "bogo-ops"
  double ops_per_s = 0;
  std::string note;  // e.g. stress-ng's exit status, bytes written
};

}  // namespace rtgate::load
