// Runs the built rtgate binary as a child process and captures what it printed.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace rtgate::test {

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128 + signal when killed by one
  std::string out, err;
  double seconds = 0;  // wall time from start to exit
};

struct ProcessOptions {
  bool as_nobody = false;  // drop to uid/gid 65534 before exec (tests of non-root behaviour)
  double timeout_s = 120;  // SIGKILL past this
  // Called in the parent once the child runs, with its pid (e.g. to send SIGINT later).
  std::function<void(pid_t)> on_start;
  // stdout is a pipe whose read end is already closed (`rtgate ... | head` once head has
  // exited): every write to it raises SIGPIPE / fails with EPIPE. `out` is then empty.
  bool stdout_broken_pipe = false;
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
