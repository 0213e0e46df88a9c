#include "framework/env/hygiene.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "base/io/proc_files.h"
#include "base/text/sched_policy.h"
#include "base/text/utf8.h"
#include "framework/env/cpu_steal.h"

namespace rtgate {
namespace {

constexpr std::uint64_t kPfKthread = 0x00200000;  // task->flags bit of kernel threads

// An empty /proc file is as useless here as a missing one.
bool read_small(const std::string& path, std::string& out) {
  auto text = proc::read_file(path);
  if (!text || text->empty()) return false;
  out = std::move(*text);
  return true;
}

template <class T>
bool parse_number(std::string_view s, T& value) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size();
}

std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto start = s.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    s.remove_prefix(start);
    const auto end = s.find_first_of(" \n");
    out.push_back(s.substr(0, end));
    if (end == std::string_view::npos) break;
    s.remove_prefix(end);
  }
  return out;
}

struct TaskStat {
  std::string comm;
  std::uint64_t flags = 0, utime = 0, stime = 0;
  int rt_priority = 0, policy = 0;
};

// /proc/PID/task/TID/stat. comm may hold spaces and ')' itself, so fields are counted from the
// last ')'; the first field after it is field 3 (state).
std::optional<TaskStat> parse_task_stat(std::string_view line) {
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  const auto fields = split_spaces(line.substr(close + 1));
  auto field = [&](int number) { return fields[static_cast<std::size_t>(number - 3)]; };
  if (fields.size() < 41 - 2) return std::nullopt;
  TaskStat st;
  st.comm = text::to_valid_utf8(line.substr(open + 1, close - open - 1));
  if (!parse_number(field(9), st.flags) || !parse_number(field(14), st.utime) ||
      !parse_number(field(15), st.stime) || !parse_number(field(40), st.rt_priority) ||
      !parse_number(field(41), st.policy)) {
    return std::nullopt;
  }
  return st;
}

bool is_rt_policy(int policy) {
  return policy == SCHED_FIFO || policy == SCHED_RR || policy == text::kSchedDeadline;
}

std::string cpus_allowed_list(std::string_view status) {
  constexpr std::string_view kKey = "Cpus_allowed_list:";
  const auto pos = status.find(kKey);
  if (pos == std::string_view::npos) return "";
  auto rest = status.substr(pos + kKey.size());
  rest = rest.substr(0, rest.find('\n'));
  const auto start = rest.find_first_not_of(" \t");
  return start == std::string_view::npos ? "" : std::string(rest.substr(start));
}

bool is_number(const char* name) {
  return *name != '\0' &&
         std::all_of(name, name + std::strlen(name), [](char c) { return c >= '0' && c <= '9'; });
}

void sample_process(pid_t pid, std::vector<ThreadSample>& out) {
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(task_dir.c_str());
  if (dir == nullptr) return;  // exited since /proc was listed
  static const double kNsPerTick = 1e9 / static_cast<double>(sysconf(_SC_CLK_TCK));
  std::string text;
  while (const dirent* entry = readdir(dir)) {
    if (!is_number(entry->d_name)) continue;
    const std::string base = task_dir + "/" + entry->d_name;
    if (!read_small(base + "/stat", text)) continue;
    const auto st = parse_task_stat(text);
    if (!st || !is_rt_policy(st->policy)) continue;
    ThreadSample s;
    s.pid = pid;
    s.tid = static_cast<pid_t>(std::atoi(entry->d_name));
    s.comm = st->comm;
    s.policy = st->policy;
    s.priority = st->rt_priority;
    s.kernel_thread = (st->flags & kPfKthread) != 0;
    // schedstat is nanosecond-exact; utime+stime only has tick resolution.
    std::uint64_t runtime = 0;
    std::vector<std::string_view> schedstat;
    if (read_small(base + "/schedstat", text) && !(schedstat = split_spaces(text)).empty() &&
        parse_number(schedstat[0], runtime)) {
      s.runtime_ns = runtime;
    } else {
      s.runtime_ns =
          static_cast<std::uint64_t>(static_cast<double>(st->utime + st->stime) * kNsPerTick);
    }
    if (!read_small(base + "/status", text)) continue;  // exited mid-walk
    s.cpus_allowed = cpus_allowed_list(text);
    out.push_back(std::move(s));
  }
  closedir(dir);
}

// Counts throttling messages still in the printk ring buffer. The kernel prints this once per
// boot, so the figure tells "throttling happened" rather than how often.
std::int64_t count_kmsg_throttle_events() {
  const int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  std::int64_t count = 0;
  std::string record(16384, '\0');  // the kernel returns EINVAL for buffers shorter than a record
  while (true) {
    const ssize_t n = read(fd, record.data(), record.size());
    if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;  // EPIPE: records overwritten
    if (n <= 0) break;                                          // EAGAIN: caught up
    std::string_view msg(record.data(), static_cast<std::size_t>(n));
    msg = msg.substr(std::min(msg.find(';'), msg.size()));
    if (msg.find("RT throttling activated") != std::string_view::npos ||
        msg.find("sched: RT throttling") != std::string_view::npos) {
      ++count;
    }
  }
  close(fd);
  return count;
}

}  // namespace

HygieneSnapshot take_hygiene_snapshot() {
  HygieneSnapshot snap;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  snap.monotonic_ns = static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
                      static_cast<std::uint64_t>(ts.tv_nsec);
  if (DIR* proc = opendir("/proc")) {
    while (const dirent* entry = readdir(proc)) {
      if (is_number(entry->d_name)) {
        sample_process(static_cast<pid_t>(std::atoi(entry->d_name)), snap.rt_threads);
      }
    }
    closedir(proc);
  }
  const HygieneSnapshot steal = take_steal_snapshot();
  snap.steal_ns = steal.steal_ns;
  snap.steal_source = steal.steal_source;
  snap.kmsg_throttle_events = count_kmsg_throttle_events();
  return snap;
}

HygieneSnapshot take_steal_snapshot() {
  // One source for the process: the kernel's config and debugfs do not change under it.
  static const CpuSteal steal;
  HygieneSnapshot snap;
  StealReading r = steal.read();
  snap.steal_ns = std::move(r.ns);
  snap.steal_source = r.source.empty() ? "unavailable" : steal.describe();
  return snap;
}

Hygiene hygiene_between(const HygieneSnapshot& before, const HygieneSnapshot& after,
                        const std::set<pid_t>& own_pids) {
  Hygiene h;
  std::map<std::pair<pid_t, pid_t>, std::uint64_t> runtime_before;
  for (const auto& t : before.rt_threads) runtime_before[{t.pid, t.tid}] = t.runtime_ns;
  for (const auto& t : after.rt_threads) {
    if (own_pids.count(t.pid) != 0) continue;
    std::uint64_t start = 0;
    // A lower runtime means the tid was reused by a new thread; it counts from zero like any new
    // one.
    if (auto it = runtime_before.find({t.pid, t.tid}); it != runtime_before.end()) {
      start = it->second <= t.runtime_ns ? it->second : 0;
    }
    if (t.runtime_ns <= start) continue;
    h.foreign_rt_threads.push_back({.pid = t.pid,
                                    .tid = t.tid,
                                    .comm = t.comm,
                                    .policy = text::policy_name(t.policy),
                                    .priority = t.priority,
                                    .cpus_allowed = t.cpus_allowed,
                                    .kernel_thread = t.kernel_thread,
                                    .runtime_ns = t.runtime_ns - start});
  }
  std::stable_sort(h.foreign_rt_threads.begin(), h.foreign_rt_threads.end(),
                   [](const auto& a, const auto& b) { return a.runtime_ns > b.runtime_ns; });

  for (const auto& [cpu, ms] : steal_ms_between(before, after)) {
    h.steal_ms_per_cpu[cpu] = ms;
    h.steal_ms += ms;
  }
  h.steal_source = after.steal_source;

  if (before.kmsg_throttle_events >= 0 && after.kmsg_throttle_events >= 0) {
    // The ring buffer may have dropped old records in between; never report a negative count.
    h.rt_throttled =
        std::max<std::int64_t>(0, after.kmsg_throttle_events - before.kmsg_throttle_events);
    h.rt_throttled_source = "kmsg";
  } else {
    h.rt_throttled = -1;
    h.rt_throttled_source = "unavailable";
  }
  return h;
}

std::map<int, double> steal_ms_between(const HygieneSnapshot& before,
                                       const HygieneSnapshot& after) {
  std::map<int, double> out;
  for (const auto& [cpu, ns] : after.steal_ns) {
    const auto it = before.steal_ns.find(cpu);
    const std::int64_t start = it == before.steal_ns.end() ? 0 : it->second;
    out[cpu] = ns > start ? static_cast<double>(ns - start) / 1e6 : 0.0;
  }
  return out;
}

}  // namespace rtgate
