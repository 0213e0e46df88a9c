// fs.dentry: dbench-style path walking on tmpfs, after the 2009 -rt dbench scalability thread.
// A private tree (default: a fresh temp dir under /dev/shm) holds `dirs` shared directories;
// each thread owns `files` small files spread over them. Every iteration a thread:
//   stat()s one of its files by full path and a name that does not exist (a negative dentry),
//   open()s a file, pread()s io_kb and pwrite()s io_kb/4 at a random offset, close()s it,
//   rename()s it into the next shared directory.
// All threads walk the same directories, so they contend on the dentry cache, the directories'
// inode locks and, for cross-directory renames, the filesystem's rename lock: the paths that
// made dbench stop scaling on -rt. Reported: ops/s (one op = one of those calls) and MB/s
// (bytes read and written, 10^6 bytes per MB as dbench counts them).
//
// The tree is removed when the run ends, however it ends (RAII); with -p root=DIR it is made
// inside DIR (mkdtemp) and only that is removed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/background_load/fast_rand.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/workload/worker_group.h"
#include "framework/workload/workload_metrics.h"
#include "framework/workload/workload_params.h"
#include "framework/workload/workload_probe.h"

namespace {

using rtgate::ParamSpec;
namespace wl = rtgate::workload;

// The private tree: created by the constructor, removed by the destructor.
class TempTree {
 public:
  explicit TempTree(const std::string& parent) {
    std::string tmpl = parent + "/rtgate-dentry.XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      error_ = "mkdtemp in " + parent + ": " + std::strerror(errno);
      return;
    }
    path_ = tmpl;
  }
  ~TempTree() {
    if (path_.empty()) return;
    std::error_code ec;  // best effort: nothing to report to after the run
    std::filesystem::remove_all(path_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string error_;
};

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

std::string file_path(const std::string& root, int dir, int thread, int file) {
  return root + "/d" + std::to_string(dir) + "/t" + std::to_string(thread) + "_" +
         std::to_string(file);
}

// Creates the directories and every thread's files (filled, so reads read data).
std::string populate(const std::string& root, int dirs, int threads, int files,
                     std::size_t file_bytes) {
  for (int d = 0; d < dirs; ++d) {
    if (mkdir((root + "/d" + std::to_string(d)).c_str(), 0700) != 0) return errno_text("mkdir");
  }
  const std::vector<char> data(file_bytes, 'x');
  for (int t = 0; t < threads; ++t) {
    for (int f = 0; f < files; ++f) {
      const std::string path = file_path(root, f % dirs, t, f);
      const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
      if (fd < 0) return errno_text("create " + path);
      const bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
      close(fd);
      if (!ok) return errno_text("write " + path);
    }
  }
  return "";
}

// One thread's stat/open/read/write/close/rename loop over its files, moving each file to the
// next directory; returns the bytes it read and wrote.
std::uint64_t churn(wl::Worker& w, const std::string& root, int dirs, int files, std::size_t io) {
  const int t = w.index();
  wl::FastRand rng(static_cast<std::uint64_t>(t) + 1);
  std::vector<int> where(static_cast<std::size_t>(files));  // each file's directory
  for (int f = 0; f < files; ++f) where[static_cast<std::size_t>(f)] = f % dirs;
  std::vector<char> buf(io, 'y');
  const std::string missing = root + "/d0/missing_t" + std::to_string(t);
  std::uint64_t moved = 0;
  while (w.keep_going()) {
    const int f = static_cast<int>(rng.below(static_cast<std::uint64_t>(files)));
    int& d = where[static_cast<std::size_t>(f)];
    const std::string path = file_path(root, d, t, f);
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw std::runtime_error(errno_text("stat " + path));
    if (stat(missing.c_str(), &st) == 0 || errno != ENOENT) {
      throw std::runtime_error("stat of a missing name did not fail with ENOENT");
    }
    const int fd = open(path.c_str(), O_RDWR);
    if (fd < 0) throw std::runtime_error(errno_text("open " + path));
    const ssize_t got = pread(fd, buf.data(), io, 0);
    const auto off = static_cast<off_t>(rng.below(io - io / 4 + 1));
    const ssize_t put = pwrite(fd, buf.data(), io / 4, off);
    close(fd);
    if (got < 0 || put < 0) throw std::runtime_error(errno_text("read/write " + path));
    moved += static_cast<std::uint64_t>(got + put);
    const int to = (d + 1) % dirs;
    const std::string dest = file_path(root, to, t, f);
    if (rename(path.c_str(), dest.c_str()) != 0) {
      throw std::runtime_error(errno_text("rename " + path));
    }
    d = to;
    w.add(7);  // stat, stat, open, pread, pwrite, close, rename
  }
  return moved;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  const int threads = wl::thread_count(p, ctx);
  const int dirs = static_cast<int>(p.get_int("dirs"));
  const int files = static_cast<int>(p.get_int("files"));
  const auto io = static_cast<std::size_t>(p.get_int("io_kb")) << 10;
  const std::string parent = p.get_string("root").empty() ? "/dev/shm" : p.get_string("root");
  TempTree tree(parent);
  if (!tree.error().empty())
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, tree.error());
  if (std::string why = populate(tree.path(), dirs, threads, files, io); !why.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  }

  wl::WorkloadProbe probe(p, ctx, ctx.duration_ns());
  if (std::string why = probe.start(); !why.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  }
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(threads), 0);  // set at each end
  const wl::GroupRun g = wl::run_group(
      ctx,
      {.name = "dentry", .threads = threads, .cpus = ctx.cpus(), .duration_ns = ctx.duration_ns()},
      [&](wl::Worker& w) {
        bytes[static_cast<std::size_t>(w.index())] = churn(w, tree.path(), dirs, files, io);
      });
  probe.stop();

  rtgate::Case c;
  c.name = std::to_string(threads) + "t";
  c.labels = {{"threads", std::to_string(threads)},
              {"dirs", std::to_string(dirs)},
              {"files_per_thread", std::to_string(files)},
              {"thread_class", "nonrt"}};
  std::uint64_t total_bytes = 0;
  for (std::size_t t = 0; t < static_cast<std::size_t>(threads); ++t) total_bytes += bytes[t];
  const double secs = g.seconds > 0 ? g.seconds : 1;
  wl::add_ops_metrics(c, g);
  c.metrics.push_back(
      rtgate::Metric::throughput("io_rate", "MB/s", static_cast<double>(total_bytes) / 1e6 / secs));
  wl::add_cpu_metrics(c, {g.cpu});
  probe.add_metrics(c);
  rtgate::SuiteResult result;
  result.cases.push_back(std::move(c));
  if (!g.error.empty()) {
    result.status = rtgate::SuiteStatus::kError;
    result.reason = g.error;
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  const std::string& root = p.get_string("root");
  if (root.empty()) return "";
  struct stat st {};
  if (root[0] != '/') return "root: '" + root + "' is not an absolute path";
  if (stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return "root: '" + root + "' is not an existing directory";
  }
  return "";
}

}  // namespace

RTGATE_SUITE(
    {.name = "fs.dentry",
     .tags = {"workload", "fs"},
     .summary =
         "dbench-style stat/open/read/write/close/rename in shared dirs on tmpfs; ops/s, MB/s",
     .params = wl::with_common_params(
         {ParamSpec::string("root", "",
                            "directory to make the private tree in (default /dev/shm, tmpfs)"),
          ParamSpec::integer("dirs", 8, 1, 4096, "", "shared directories"),
          ParamSpec::integer("files", 16, 1, 100'000, "", "files per thread"),
          ParamSpec::integer("io_kb", 4, 1, 1024, "KiB",
                             "bytes read per file access (a quarter of it is written)")}),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
