#include "tests/integration/process.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace rtgate::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TempDir::TempDir() {
  char tmpl[] = "/tmp/rtgate-test-XXXXXX";
  path_ = mkdtemp(tmpl);
  chmod(path_.c_str(), 01777);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ProcessResult run_rtgate(const std::vector<std::string>& args, const ProcessOptions& opt) {
  TempDir io;
  const std::string out_path = io.file("stdout"), err_path = io.file("stderr");
  int broken[2] = {-1, -1};
  if (opt.stdout_broken_pipe && pipe2(broken, O_CLOEXEC) == 0) close(broken[0]);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = opt.stdout_broken_pipe
                        ? broken[1]
                        : open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    if (!opt.cgroup_procs.empty()) {
      const int fd = open(opt.cgroup_procs.c_str(), O_WRONLY);
      if (fd < 0 || write(fd, "0", 1) != 1) _exit(125);
      close(fd);
    }
    if (!opt.hide_paths.empty()) {
      const std::string blank = io.file("hidden");
      const int fd = open(blank.c_str(), O_WRONLY | O_CREAT, 0);
      if (fd < 0 || unshare(CLONE_NEWNS) != 0 ||
          mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
        _exit(123);
      }
      close(fd);
      for (const auto& path : opt.hide_paths) {
        if (mount(blank.c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0) _exit(123);
      }
    }
    for (int cap : opt.drop_caps) {
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) _exit(122);
    }
    for (const auto& [resource, value] : opt.rlimits) {
      const rlimit lim{.rlim_cur = value, .rlim_max = value};
      if (setrlimit(static_cast<__rlimit_resource>(resource), &lim) != 0) _exit(124);
    }
    if (opt.own_process_group) setpgid(0, 0);
    if (opt.as_nobody && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) {
      _exit(126);
    }
    std::vector<char*> argv;
    static std::string binary = RTGATE_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  if (opt.own_process_group) setpgid(pid, pid);  // before on_start's kill(-pid), either way
  if (broken[1] >= 0) close(broken[1]);
  if (opt.on_start) opt.on_start(pid);
  int status = 0;
  const auto deadline = t0 + std::chrono::duration<double>(opt.timeout_s);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ProcessResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace rtgate::test
