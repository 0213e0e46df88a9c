// What sched.migrate's violations of the priority order say about the kernel, on a machine whose
// host may take a vCPU away unseen.
//
// A violation is a higher task queued while a lower one runs. In a guest, a vCPU the host is not
// running looks the same from inside: the IPI that should preempt the lower task waits, and the
// lower task's clocks keep advancing. The guest cannot tell the two apart period by period, but it
// can by their pattern: the suite moves the highest task every period, so a broken push/pull
// shows in most periods, while a host that now and then deschedules a vCPU shows in few. So where
// the host could have taken time (its steal is invisible, or the run saw some), violations in
// fewer than a quarter of the judged periods are the host's suspects, not a failure; anywhere
// else any violation fails.
#pragma once

#include <cstddef>

namespace rtgate::rt {

enum class OrderCall {
  kHeld,    // no violation
  kHost,    // sporadic violations the host could have caused: inconclusive
  kBroken,  // the kernel did not run the N highest tasks on the N CPUs
};

// `host_could`: the machine is a guest whose steal cannot be seen, or the run's CPUs saw steal.
OrderCall judge_order(std::size_t violations, std::size_t judged_periods, bool host_could);

}  // namespace rtgate::rt
