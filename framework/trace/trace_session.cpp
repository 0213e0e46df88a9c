#include "framework/trace/trace_session.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "framework/rt/cpu_list.h"
#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

std::atomic<int> next_instance{0};

// "rtgate-<pid>-<n>" -> pid, or 0 when the name is not one of ours.
pid_t owner_of(const std::string& name) {
  constexpr std::string_view kPrefix = "rtgate-";
  if (name.rfind(kPrefix, 0) != 0) return 0;
  const std::size_t dash = name.find('-', kPrefix.size());
  if (dash == std::string::npos) return 0;
  const std::string pid = name.substr(kPrefix.size(), dash - kPrefix.size());
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::strtol(pid.c_str(), nullptr, 10));
}

bool alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

int collect(const char* name, void* out) {
  if (std::string_view(name).rfind("rtgate-", 0) == 0) {
    static_cast<std::vector<std::string>*>(out)->push_back(name);
  }
  return 0;
}

// Enables "system:event" or "system"; false when the kernel has no such event.
bool enable(tracefs_instance* inst, const std::string& spec) {
  const std::size_t colon = spec.find(':');
  const std::string system = spec.substr(0, colon);
  const std::string event = colon == std::string::npos ? "" : spec.substr(colon + 1);
  return tracefs_event_enable(inst, system.c_str(), event.empty() ? nullptr : event.c_str()) == 0;
}

// The reaper: a shell, in its own session (a terminal's SIGINT does not reach it), that waits for
// end of file on a pipe whose only writer is this process, then removes the instance. The process
// removes the instance itself on every exit it lives through; the reaper covers the ones it does
// not (SIGKILL, a crash), waiting until the dead process's files are closed. posix_spawn (vfork)
// rather than fork: a forked copy would leave every page of the RT process copy-on-write.
pid_t spawn_reaper(const std::string& dir, int* write_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  static const char kScript[] =
      "cat >/dev/null; i=0; while [ -d \"$0\" ] && [ $i -lt 250 ]; do "
      "rmdir \"$0\" 2>/dev/null || sleep 0.02; i=$((i+1)); done";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  char sh[] = "/bin/sh", c[] = "-c";
  std::string script = kScript, path = dir;
  char* argv[] = {sh, c, script.data(), path.data(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, sh, &actions, &attr, argv, environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return -1;
  }
  *write_fd = fds[1];
  return pid;
}

}  // namespace

std::vector<std::string> TraceConfig::default_events() {
  return {"sched:sched_switch",       "sched:sched_waking",
          "sched:sched_wakeup",       "sched:sched_pi_setprio",
          "sched:sched_migrate_task", "irq",
          "timer:hrtimer_.*",         "timer:timer_.*",
          "irq_vectors:.*_entry",     "irq_vectors:.*_exit",
          "lock:contention_.*",       "mmap_lock"};
}

std::unique_ptr<TraceSession> TraceSession::start(const TraceConfig& config, std::string* why) {
  auto fail = [&](std::string w) {
    *why = std::move(w);
    return nullptr;
  };
  if (geteuid() != 0) return fail("tracing needs root");
  if (tracefs_tracing_dir() == nullptr) {  // mounts tracefs when it is not mounted
    return fail("tracefs is not mounted and could not be mounted");
  }
  remove_stale_instances();
  std::unique_ptr<TraceSession> s(new TraceSession());
  s->name_ = "rtgate-" + std::to_string(getpid()) + "-" + std::to_string(next_instance++);
  s->instance_ = tracefs_instance_create(s->name_.c_str());
  if (s->instance_ == nullptr) {
    return fail("cannot create tracefs instance " + s->name_ + ": " + std::strerror(errno));
  }
  if (char* dir = tracefs_instance_get_dir(s->instance_)) {
    s->reaper_ = spawn_reaper(dir, &s->reaper_fd_);
    free(dir);
  }
  tracefs_trace_off(s->instance_);
  if (tracefs_instance_set_buffer_size(s->instance_, static_cast<std::size_t>(config.buffer_kb),
                                       -1) != 0) {
    return fail("cannot set the trace buffer to " + std::to_string(config.buffer_kb) + " kB");
  }
  if (!config.cpus.empty()) {
    const std::string cpus = text::format_cpu_list(config.cpus);
    // (libtracefs 1.6 returns a positive count on success here, -1 on error.)
    if (tracefs_instance_set_affinity(s->instance_, cpus.c_str()) < 0) {
      return fail("cannot trace CPUs " + cpus);
    }
  }
  if (tracefs_instance_file_write(s->instance_, "trace_clock", "mono") < 0) {
    return fail("the kernel has no \"mono\" trace clock");
  }
  for (const std::string& e : config.events) {
    if (!enable(s->instance_, e)) s->missing_.push_back(e);
  }
  if (config.lock_stacks && tracefs_event_file_write(s->instance_, "lock", "contention_begin",
                                                     "trigger", "stacktrace") < 0) {
    s->missing_.push_back("lock:contention_begin stacktrace trigger");
  }
  s->marker_fd_ = tracefs_instance_file_open(s->instance_, "trace_marker", O_WRONLY);
  s->on_fd_ = tracefs_instance_file_open(s->instance_, "tracing_on", O_WRONLY);
  if (s->marker_fd_ < 0 || s->on_fd_ < 0) return fail("cannot open the instance's control files");
  tracefs_trace_on(s->instance_);
  return s;
}

TraceSession::~TraceSession() {
  if (marker_fd_ >= 0) close(marker_fd_);
  if (on_fd_ >= 0) close(on_fd_);
  if (instance_ != nullptr) {
    tracefs_trace_off(instance_);
    tracefs_instance_destroy(instance_);
    tracefs_instance_free(instance_);
  }
  if (reaper_fd_ >= 0) close(reaper_fd_);  // the reaper finds the instance gone and exits
  if (reaper_ > 0) waitpid(reaper_, nullptr, 0);
}

bool TraceSession::mark(std::string_view text) const noexcept {
  return write(marker_fd_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

void TraceSession::freeze() const noexcept {
  const ssize_t ignored = write(on_fd_, "0", 1);
  (void)ignored;
}

std::string TraceSession::read_text() const {
  int size = 0;
  char* text = tracefs_instance_file_read(instance_, "trace", &size);
  std::string out = text != nullptr ? std::string(text, static_cast<std::size_t>(size)) : "";
  free(text);
  return out;
}

std::vector<std::string> rtgate_instances() {
  std::vector<std::string> out;
  tracefs_instances_walk(&collect, &out);
  return out;
}

int remove_stale_instances() {
  int removed = 0;
  for (const std::string& name : rtgate_instances()) {
    const pid_t pid = owner_of(name);
    if (pid <= 0 || alive(pid)) continue;
    if (tracefs_instance* inst = tracefs_instance_alloc(nullptr, name.c_str())) {
      removed += tracefs_instance_destroy(inst) == 0;
      tracefs_instance_free(inst);
    }
  }
  return removed;
}

}  // namespace rtgate::trace
