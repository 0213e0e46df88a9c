// Runs the built rtgate binary as a child process and captures what it printed.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace rtgate::test {

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128 + signal when killed by one
  std::string out, err;
  double seconds = 0;  // wall time from start to exit
};

struct ProcessOptions {
  bool as_nobody = false;  // drop to uid/gid 65534 before exec (tests of non-root behaviour)
  // The child leads a process group of its own (pgid = pid), as a CI job's command does: a
  // signal to the group (kill(-pid)) then reaches it and not the test.
  bool own_process_group = false;
  double timeout_s = 120;  // SIGKILL past this
  // Called in the parent once the child runs, with its pid (e.g. to send SIGINT later).
  std::function<void(pid_t)> on_start;
  // stdout is a pipe whose read end is already closed (`rtgate ... | head` once head has
  // exited): every write to it raises SIGPIPE / fails with EPIPE. `out` is then empty.
  bool stdout_broken_pipe = false;
  // A cgroup's `cgroup.procs` file the child moves itself into before exec (e.g. a pids cgroup
  // whose pids.max makes thread creation fail). Empty: none.
  std::string cgroup_procs;
  // Resource limits set in the child before exec, e.g. {RLIMIT_MEMLOCK, 65536}.
  std::vector<std::pair<int, unsigned long>> rlimits;
  // Capabilities removed from the child's bounding set, so root runs without them after exec
  // (e.g. CAP_IPC_LOCK: mlockall is then bound by RLIMIT_MEMLOCK).
  std::vector<int> drop_caps;
  // Paths made inaccessible in a private mount namespace of the child: an empty mode-000 file
  // is bind-mounted over each (with CAP_DAC_OVERRIDE dropped, root cannot open them).
  std::vector<std::string> hide_paths;
};

ProcessResult run_rtgate(const std::vector<std::string>& args, const ProcessOptions& opt = {});

// A fresh directory under /tmp that nobody may write to as well; removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace rtgate::test
