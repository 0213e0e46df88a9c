// CpuUsage: what getrusage(2) says a process (or one thread) has consumed, and the difference
// between two readings. Workload suites report the user and system time of a run beside its
// throughput, so that "slower" can be told apart from "spent more time in the kernel".
#pragma once

#include <cstdint>

namespace rtgate {

struct CpuUsage {
  double usr_s = 0;         // user CPU time
  double sys_s = 0;         // system CPU time
  std::int64_t minflt = 0;  // minor page faults
  std::int64_t majflt = 0;  // major page faults
  std::int64_t nvcsw = 0;   // voluntary context switches
  std::int64_t nivcsw = 0;  // involuntary context switches

  // The whole process, every thread including those that have exited (RUSAGE_SELF).
  static CpuUsage process();
  // The calling thread only (RUSAGE_THREAD).
  static CpuUsage thread();

  double cpu_s() const { return usr_s + sys_s; }
  CpuUsage operator-(const CpuUsage& earlier) const;
};

}  // namespace rtgate
