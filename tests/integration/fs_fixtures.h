// File-system fixtures for the output tests: device nodes, FIFOs and a small tmpfs of the test's
// own, in its temp dir, so that no test ever points rtgate at the machine's /dev/stdout or
// /dev/null (the defect under test replaced them).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace rtgate::test {

std::string read_all(const std::string& path);
void write_all(const std::string& path, const std::string& content);
// The JSON document in `path` (a result rtgate wrote); throws when it is missing or malformed.
nlohmann::json read_json(const std::string& path);
// lstat's file type: 'f' regular, 'l' symlink, 'c' char device, 'p' FIFO, 'd' dir, 'b' block
// device, '-' missing.
char node_type(const std::string& path);
// True when `path` (followed) is the character device major:minor.
bool is_char_device(const std::string& path, unsigned major, unsigned minor);
// mknod of a character device (as root). Returns "" or why not.
std::string make_char_device(const std::string& path, unsigned major, unsigned minor);

// A tmpfs of `size` mounted on `dir` (created), unmounted by the destructor. error() says why
// it could not be mounted (not root, no CAP_SYS_ADMIN).
class TmpfsMount {
 public:
  TmpfsMount(std::string dir, const std::string& size);
  ~TmpfsMount();
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  const std::string& error() const { return error_; }
  // Writes a filler file until the file system is full (ENOSPC).
  void fill(const std::string& name) const;

 private:
  std::string dir_, error_;
  bool mounted_ = false;
};

// A FIFO at `path` and a thread that reads it until a writer has come and closed it.
class FifoReader {
 public:
  explicit FifoReader(std::string path);
  ~FifoReader();
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;
  // What the reader got, once no data has come for 50 ms (call it after the writer is gone).
  std::string finish();

 private:
  std::string path_, got_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread reader_;
};

}  // namespace rtgate::test
