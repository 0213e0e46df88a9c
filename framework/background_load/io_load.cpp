// io:N — N threads writing 64 KiB blocks to their own file, each block followed by fsync: block
// layer, journal and writeback work, with the interrupts and kworkers that come with it.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "framework/background_load/load_registry.h"
#include "framework/background_load/workers.h"

namespace rtgate::load {
namespace {

constexpr int kMaxThreads = 64;
constexpr std::size_t kBlockBytes = 64u << 10;
// Bounds the disk space a load uses; the file starts over once it passes this.
constexpr off_t kFileLimitBytes = 64 << 20;

// fsync on tmpfs does no I/O at all, so the reader of a report needs to know where it went.
std::string filesystem_of(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return "unknown filesystem";
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:
      return "ext2/3/4";
    case TMPFS_MAGIC:
      return "tmpfs, where fsync does no I/O";
    case XFS_SUPER_MAGIC:
      return "xfs";
    case BTRFS_SUPER_MAGIC:
      return "btrfs";
    case OVERLAYFS_SUPER_MAGIC:
      return "overlayfs";
    default: {
      char hex[32];
      std::snprintf(hex, sizeof hex, "filesystem 0x%lx", static_cast<unsigned long>(fs.f_type));
      return hex;
    }
  }
}

class IoLoad final : public Load {
 public:
  explicit IoLoad(int threads) : threads_(threads) {}
  ~IoLoad() override { stop(); }

  void start() override {
    try {
      make_dir();
      for (int i = 0; i < threads_; ++i) {
        const std::string path = dir_ + "/load-io" + std::to_string(i);
        const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) throw LoadError("io: cannot create " + path + ": " + std::strerror(errno));
        fds_.push_back(fd);
      }
      workers_.start(
          threads_, [](int i) { return other_thread("load-io" + std::to_string(i)); },
          [this](int i, Workers::Counter& ops) {
            write_loop(fds_[static_cast<std::size_t>(i)], ops);
          });
    } catch (const LoadError&) {
      stop();  // removes the temp dir however far start() got
      throw;
    }
  }

  void stop() override {
    workers_.stop();
    for (int fd : fds_) close(fd);
    fds_.clear();
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

  LoadReport report() const override {
    LoadReport r = workers_.report("io", "io:" + std::to_string(threads_), threads_, "fsyncs");
    char mb[64];
    std::snprintf(mb, sizeof mb, "%.1f MB written", static_cast<double>(bytes_.load()) / 1e6);
    r.note =
        std::string(mb) + " in " + std::to_string(kBlockBytes >> 10) + " KiB blocks on " + where_;
    if (const int err = errno_.load(); err != 0) {
      r.note += "; stopped early: " + std::string(std::strerror(err));
    }
    return r;
  }

 private:
  void make_dir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
    tmpl += "/rtgate-io-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw LoadError("io: cannot create a temp dir " + tmpl + ": " + std::strerror(errno));
    }
    dir_ = tmpl;
    where_ = filesystem_of(dir_);
  }

  void write_loop(int fd, Workers::Counter& ops) {
    // Not zeros: a filesystem may store zero blocks as holes and do no I/O for them.
    std::vector<char> block(kBlockBytes, 'x');
    off_t offset = 0;
    while (!workers_.stopping()) {
      if (offset >= kFileLimitBytes) {
        if (ftruncate(fd, 0) != 0) return fail(errno);
        offset = 0;
      }
      std::size_t done = 0;
      while (done < block.size()) {
        const ssize_t n =
            pwrite(fd, block.data() + done, block.size() - done, offset + static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail(n < 0 ? errno : ENOSPC);
        done += static_cast<std::size_t>(n);
      }
      offset += static_cast<off_t>(done);
      bytes_.fetch_add(done, std::memory_order_relaxed);
      if (fsync(fd) != 0) return fail(errno);
      ops.add(1);
    }
  }

  // A full disk ends this thread's writing; the report says so rather than the load failing.
  void fail(int err) {
    int expected = 0;
    errno_.compare_exchange_strong(expected, err);
  }

  int threads_;
  std::string dir_;
  std::string where_;
  std::vector<int> fds_;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<int> errno_{0};
  Workers workers_;  // last: destroyed (joined) before the files its threads write
};

std::unique_ptr<Load> make(const std::vector<std::string>& args, std::string* error) {
  const std::optional<int> n = thread_count_arg(args, kMaxThreads, error);
  return n ? std::make_unique<IoLoad>(*n) : nullptr;
}

}  // namespace
}  // namespace rtgate::load

RTGATE_LOAD_KIND(io,
                 {.name = "io",
                  .usage = "io[:N]",
                  .help = "N threads writing 64 KiB blocks + fsync to a file in a temp dir under "
                          "$TMPDIR or /tmp (ops: fsyncs)",
                  .make = &rtgate::load::make});
