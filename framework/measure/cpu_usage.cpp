#include "framework/measure/cpu_usage.h"

#include <sys/resource.h>

namespace rtgate {
namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

CpuUsage read(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return {.usr_s = seconds(ru.ru_utime),
          .sys_s = seconds(ru.ru_stime),
          .minflt = ru.ru_minflt,
          .majflt = ru.ru_majflt,
          .nvcsw = ru.ru_nvcsw,
          .nivcsw = ru.ru_nivcsw};
}

}  // namespace

CpuUsage CpuUsage::process() { return read(RUSAGE_SELF); }
CpuUsage CpuUsage::thread() { return read(RUSAGE_THREAD); }

CpuUsage CpuUsage::operator-(const CpuUsage& earlier) const {
  return {.usr_s = usr_s - earlier.usr_s,
          .sys_s = sys_s - earlier.sys_s,
          .minflt = minflt - earlier.minflt,
          .majflt = majflt - earlier.majflt,
          .nvcsw = nvcsw - earlier.nvcsw,
          .nivcsw = nivcsw - earlier.nivcsw};
}

}  // namespace rtgate
