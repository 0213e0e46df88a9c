#include "framework/env/kernel_config.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "base/io/proc_files.h"

extern char** environ;

namespace rtgate {

// /proc/config.gz is decompressed by the system's gzip rather than by linking zlib for one file.
std::string read_kernel_config(const std::string& release) {
  if (auto text = proc::read_file("/boot/config-" + release)) return *text;
  if (access("/proc/config.gz", R_OK) != 0) return "";
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  char arg0[] = "gzip", arg1[] = "-dc", arg2[] = "/proc/config.gz";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, "gzip", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (err == 0) {
    std::array<char, 16384> buf;
    for (ssize_t n; (n = read(fds[0], buf.data(), buf.size())) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      out.append(buf.data(), static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(fds[0]);
  return out;
}

bool config_set(std::string_view config, std::string_view option) {
  return config.find(std::string("\n") + std::string(option) + "=y") != std::string_view::npos;
}

}  // namespace rtgate
