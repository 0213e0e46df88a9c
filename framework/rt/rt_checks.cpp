#include "framework/rt/rt_checks.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

#include "base/io/proc_files.h"

namespace rtgate::rt {
namespace {

constexpr int kProbePriority = 1;

std::int64_t rlimit_value(int resource) {
  rlimit lim{};
  if (getrlimit(resource, &lim) != 0) return 0;
  if (lim.rlim_cur == RLIM_INFINITY) return -1;
  return static_cast<std::int64_t>(lim.rlim_cur);
}

// Effective capabilities straight from the kernel, so rtgate does not need libcap.
bool has_effective_cap(int cap) {
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  const auto word = static_cast<unsigned>(cap) / 32;
  const auto bit = static_cast<unsigned>(cap) % 32;
  if (word >= _LINUX_CAPABILITY_U32S_3) return false;
  return (data[word].effective >> bit) & 1U;
}

void* probe_body(void*) { return nullptr; }

std::string errno_name(int err) {
  switch (err) {
    case EPERM:
      return "EPERM";
    case EINVAL:
      return "EINVAL";
    case EAGAIN:
      return "EAGAIN";
    case ENOMEM:
      return "ENOMEM";
    default:
      return "errno " + std::to_string(err);
  }
}

std::string describe_failure(const char* step, int err) {
  std::string reason = std::string("SCHED_FIFO probe failed at ") + step + ": " +
                       std::strerror(err) + " (" + errno_name(err) + ")";
  if (err != EPERM) return reason;
  // A root process can still be refused: with RT group scheduling its cgroup may have no RT budget.
  if (geteuid() == 0 || has_effective_cap(CAP_SYS_NICE)) {
    return "SCHED_FIFO not permitted (EPERM) despite CAP_SYS_NICE: the cgroup's RT budget "
           "(cpu.rt_runtime_us) is probably 0";
  }
  return "SCHED_FIFO not permitted (EPERM): run as root or grant CAP_SYS_NICE / RLIMIT_RTPRIO";
}

}  // namespace

std::string probe_sched_fifo() {
  pthread_attr_t attr;
  if (int err = pthread_attr_init(&attr); err != 0) return describe_failure("attr_init", err);
  sched_param param{};
  param.sched_priority = kProbePriority;
  int err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  const char* step = "setinheritsched";
  if (err == 0) {
    step = "setschedpolicy";
    err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
  }
  if (err == 0) {
    step = "setschedparam";
    err = pthread_attr_setschedparam(&attr, &param);
  }
  pthread_t thread{};
  if (err == 0) {
    // The kernel checks the policy only here, so this is the one step that proves permission.
    step = "pthread_create";
    err = pthread_create(&thread, &attr, &probe_body, nullptr);
    if (err == 0) pthread_join(thread, nullptr);
  }
  pthread_attr_destroy(&attr);
  return err == 0 ? std::string() : describe_failure(step, err);
}

Readiness check_readiness() {
  Readiness r;
  r.reason = probe_sched_fifo();
  r.sched_fifo = r.reason.empty();
  r.is_root = geteuid() == 0;
  r.cap_sys_nice = has_effective_cap(CAP_SYS_NICE);
  r.cap_ipc_lock = has_effective_cap(CAP_IPC_LOCK);
  r.rlimit_rtprio = rlimit_value(RLIMIT_RTPRIO);
  r.rlimit_memlock = rlimit_value(RLIMIT_MEMLOCK);
  r.rt_runtime_us = proc::read_int("/proc/sys/kernel/sched_rt_runtime_us", 0);
  r.rt_period_us = proc::read_int("/proc/sys/kernel/sched_rt_period_us", 0);
  r.throttling = r.rt_runtime_us != -1 && r.rt_runtime_us < r.rt_period_us;
  // Opening registers a PM QoS request at the default value and closing drops it: no side effect.
  const int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
  r.cpu_dma_latency_writable = fd >= 0;
  if (fd >= 0) close(fd);
  return r;
}

}  // namespace rtgate::rt
