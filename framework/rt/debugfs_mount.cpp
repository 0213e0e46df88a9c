#include "framework/rt/debugfs_mount.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "base/io/proc_files.h"

namespace rtgate::rt {

bool debugfs_mounted(const std::string& path) {
  std::istringstream mounts(proc::read_file("/proc/self/mounts").value_or(""));
  std::string device, where, type;
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream fields(line);
    if (fields >> device >> where >> type && where == path && type == "debugfs") return true;
  }
  return false;
}

DebugfsMount::DebugfsMount(std::string path) : path_(std::move(path)) {
  if (debugfs_mounted(path_)) return;
  if (geteuid() != 0) {
    note_ = "not mounted at " + path_ + " (needs root)";
    return;
  }
  if (mount("debugfs", path_.c_str(), "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    note_ = "not mounted at " + path_ + ": mount failed: " + std::strerror(errno);
    return;
  }
  mounted_ = true;
  note_ = "mounted at " + path_ + " by rtgate for the run, unmounted after";
}

DebugfsMount::~DebugfsMount() {
  // Lazily when busy (a reader still has a file open): it goes as soon as nothing uses it.
  if (mounted_ && umount2(path_.c_str(), 0) != 0) umount2(path_.c_str(), MNT_DETACH);
}

}  // namespace rtgate::rt
