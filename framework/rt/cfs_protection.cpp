#include "framework/rt/cfs_protection.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/io/proc_files.h"

namespace rtgate::rt {
namespace {

std::string ms(std::int64_t v, std::int64_t per_ms) { return std::to_string(v / per_ms) + " ms"; }

// The fair server's runtime and period (ns) of the first CPU that has one.
std::string fair_server(const std::string& debugfs) {
  const std::filesystem::path dir = std::filesystem::path(debugfs) / "sched" / "fair_server";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return "";
  for (const auto& cpu : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream runtime(cpu.path() / "runtime"), period(cpu.path() / "period");
    std::int64_t r = -1, p = -1;
    if (runtime >> r && period >> p && p > 0) {
      return "fair server: " + ms(r, 1'000'000) + " per " + ms(p, 1'000'000) + " per CPU";
    }
    // Kernel lockdown refuses reads of writable debugfs files, even to root.
    return std::string("fair server (its runtime is not readable: ") + std::strerror(errno) +
           "; the kernel's default is 50 ms per 1000 ms per CPU)";
  }
  return "fair server";
}

}  // namespace

std::string describe_cfs_protection(const std::string& debugfs, const std::string& proc_sys) {
  std::string out = fair_server(debugfs);
  const std::int64_t runtime = proc::read_int(proc_sys + "/sched_rt_runtime_us", -2);
  const std::int64_t period = proc::read_int(proc_sys + "/sched_rt_period_us", -2);
  std::string throttling;
  if (runtime == -1) {
    throttling = "RT throttling off";
  } else if (runtime >= 0 && period > 0) {
    throttling = "RT throttling: " + ms(runtime, 1000) + " per " + ms(period, 1000);
  }
  if (!throttling.empty()) out += (out.empty() ? "" : "; ") + throttling;
  return out.empty() ? "unknown (neither the fair server nor RT throttling is readable)" : out;
}

}  // namespace rtgate::rt
