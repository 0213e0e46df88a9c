// debugfs for the length of a run: the scheduler's debug file (RT throttling, each CPU's steal
// clock) and the fair server's settings live there. Mounted only when it is not already, only
// as root, and unmounted again at the end, so that the machine is left as it was found.
#pragma once

#include <string>

namespace rtgate::rt {

class DebugfsMount {
 public:
  explicit DebugfsMount(std::string path = "/sys/kernel/debug");
  ~DebugfsMount();
  DebugfsMount(const DebugfsMount&) = delete;
  DebugfsMount& operator=(const DebugfsMount&) = delete;

  bool mounted_here() const { return mounted_; }
  // "" when debugfs was already there; else what was done or why it could not be.
  const std::string& note() const { return note_; }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string note_;
};

// Whether a debugfs is mounted at `path` (per /proc/self/mounts).
bool debugfs_mounted(const std::string& path);

}  // namespace rtgate::rt
