// stress:ARGS — stress-ng as a child process, for the hundreds of stressors rtgate does not
// reimplement. Its bogo-ops come from the YAML file stress-ng writes when it is told to stop.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "base/io/proc_files.h"
#include "base/text/strings.h"
#include "framework/background_load/load_registry.h"
#include "framework/measure/clock.h"

extern char** environ;

namespace rtgate::load {
namespace {

// stress-ng exits within milliseconds of SIGTERM; this is only for one that hangs.
constexpr std::int64_t kTermGraceNs = 1'000'000'000;
// A typo in ARGS makes stress-ng exit at once; waiting this long turns that into a start error.
constexpr std::int64_t kStartupCheckNs = 100'000'000;

std::string find_on_path(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::stringstream dirs(env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::string path = dir + "/" + name;
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0) {
      return path;
    }
  }
  return "";
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return "killed by SIG" + std::string(name != nullptr ? name : "?");
  }
  return "status " + std::to_string(status);
}

// One line of stress-ng's log for a message: the first says why it refused its arguments, the
// last how a run ended. Capped, since some of its lines list every method it knows.
std::string log_line(const std::string& path, bool first) {
  const std::string text(rtgate::text::trim(proc::read_file(path).value_or("")));
  const std::size_t begin = first ? 0 : text.find_last_of('\n') + 1;
  std::string line = text.substr(begin, first ? text.find('\n') : std::string::npos);
  if (line.size() > 160) line = line.substr(0, 160) + "...";
  return line;
}

class StressLoad final : public Load {
 public:
  explicit StressLoad(std::vector<std::string> args) : args_(std::move(args)) {}
  ~StressLoad() override { stop(); }

  void start() override {
    const std::string exe = find_on_path("stress-ng");
    if (exe.empty()) throw LoadError("stress-ng is not installed (apt-get install stress-ng)");
    try {
      spawn(exe);
      // Polling rather than sleeping: a good start costs the full wait, a bad one only its exit.
      for (std::int64_t end = monotonic_ns() + kStartupCheckNs; monotonic_ns() < end;) {
        if (exited()) break;
        sleep_until_ns(monotonic_ns() + 2'000'000);
      }
      if (exited()) {
        self_exit_ = true;
        reap();
        if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0) {
          throw LoadError("stress-ng " + describe_status(status_) + ": " +
                          log_line(dir_ + "/stress-ng.log", true));
        }
      }
    } catch (const LoadError&) {
      stop();
      throw;
    }
  }

  void stop() override {
    if (pid_ > 0) {
      if (exited()) {
        self_exit_ = true;
      } else {
        kill(pid_, SIGTERM);
        const std::int64_t deadline = monotonic_ns() + kTermGraceNs;
        while (!exited() && monotonic_ns() < deadline) sleep_until_ns(monotonic_ns() + 2'000'000);
        killed_ = !exited();
      }
      reap();
    }
    if (!dir_.empty()) {
      collect_metrics();
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

  LoadReport report() const override {
    std::string spec = "stress:";
    for (const std::string& a : args_) spec += (spec.back() == ':' ? "" : " ") + a;
    LoadReport r{.kind = "stress",
                 .spec = spec,
                 .instances = 1,  // one stress-ng run, however many stressors it forks
                 .ops = ops_,
                 .unit = "bogo-ops",
                 .note = note_};
    if (start_ns_ != 0) {
      const std::int64_t end = end_ns_ != 0 ? end_ns_ : monotonic_ns();
      r.seconds = static_cast<double>(end - start_ns_) * 1e-9;
    }
    if (r.seconds > 0) r.ops_per_s = static_cast<double>(r.ops) / r.seconds;
    return r;
  }

 private:
  void spawn(const std::string& exe) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
    tmpl += "/rtgate-stress-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw LoadError("stress: cannot create a temp dir " + tmpl + ": " + std::strerror(errno));
    }
    dir_ = tmpl;
    const std::string log = dir_ + "/stress-ng.log";
    std::vector<std::string> words = {exe};
    words.insert(words.end(), args_.begin(), args_.end());
    for (const char* w : {"--metrics-brief", "--yaml"}) words.emplace_back(w);
    words.push_back(dir_ + "/metrics.yaml");
    // stress-ng refuses to start when its temp path (default: the current directory) is not
    // writable, as for an unprivileged user in /: give it our own temp dir.
    words.emplace_back("--temp-path");
    words.push_back(dir_);
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&files, 1, 2);
    // Its own process group, so its stressors can be killed together if it hangs; default
    // signals and an empty mask, whatever rtgate did to its own; and never rtgate's RT policy.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    if (sched_getscheduler(0) != SCHED_OTHER) {
      flags |= POSIX_SPAWN_SETSCHEDULER;
      posix_spawnattr_setschedpolicy(&attr, SCHED_OTHER);
      const sched_param zero{};
      posix_spawnattr_setschedparam(&attr, &zero);
    }
    posix_spawnattr_setflags(&attr, flags);
    // posix_spawn is vfork-like: no copy-on-write of an mlockall'd parent, unlike fork.
    const int rc = posix_spawn(&pid_, exe.c_str(), &files, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&files);
    if (rc != 0) {
      pid_ = 0;
      throw LoadError("stress: cannot run " + exe + ": " + std::strerror(rc));
    }
    start_ns_ = monotonic_ns();
  }

  // True once the child has exited; it is left a zombie (WNOWAIT) so its pid, which is also its
  // process group id, cannot be reused before reap() kills the group.
  bool exited() {
    if (end_ns_ != 0) return true;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      return errno == ECHILD;  // SIGCHLD ignored: the kernel reaped it already
    }
    return info.si_pid != 0;
  }

  void reap() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGKILL);  // stressors left behind by a hung or killed stress-ng
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    if (end_ns_ == 0) end_ns_ = monotonic_ns();
    pid_ = 0;
  }

  void collect_metrics() {
    if (self_exit_) note_ += "exited by itself before stop; ";
    if (killed_) note_ += "ignored SIGTERM for 1 s, SIGKILLed; ";
    note_ += describe_status(status_);
    std::stringstream yaml(proc::read_file(dir_ + "/metrics.yaml").value_or(""));
    bool found = false;
    for (std::string line; std::getline(yaml, line);) {
      const std::string t(rtgate::text::trim(line));
      if (t.rfind("bogo-ops:", 0) != 0) continue;
      ops_ += std::strtoull(t.c_str() + 9, nullptr, 10);
      found = true;
    }
    if (!found)
      note_ += "; no bogo-ops in stress-ng's YAML: " + log_line(dir_ + "/stress-ng.log", false);
  }

  std::vector<std::string> args_;
  pid_t pid_ = 0;
  int status_ = 0;
  bool killed_ = false;
  bool self_exit_ = false;
  std::int64_t start_ns_ = 0;
  std::int64_t end_ns_ = 0;
  std::string dir_;
  std::uint64_t ops_ = 0;
  std::string note_;
};

std::unique_ptr<Load> make(const std::vector<std::string>& args, std::string* error) {
  std::vector<std::string> words;
  std::stringstream in(args.empty() ? "" : args[0]);
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) {
    *error = "needs stress-ng arguments, e.g. stress:--cpu 2 --vm 1";
    return nullptr;
  }
  return std::make_unique<StressLoad>(std::move(words));
}

}  // namespace
}  // namespace rtgate::load

RTGATE_LOAD_KIND(stress, {.name = "stress",
                          .usage = "stress:ARGS (last item; ARGS may contain spaces and commas)",
                          .help = "stress-ng with ARGS as a child process (ops: bogo-ops)",
                          .make = &rtgate::load::make,
                          .takes_rest = true});
