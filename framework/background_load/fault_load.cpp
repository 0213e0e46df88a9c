// fault:N — N threads each faulting in a private anonymous buffer, one byte per page, then
// dropping it with MADV_DONTNEED and starting over: a page-fault storm that keeps the mm's locks,
// the page allocator and the zeroing path busy.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "framework/background_load/load_registry.h"
#include "framework/background_load/workers.h"

namespace rtgate::load {
namespace {

constexpr int kMaxThreads = 64;
constexpr std::size_t kBufferBytes = 64u << 20;
// Pages between counter updates and stop checks: ~0.1 ms of faulting.
constexpr std::uint64_t kBatch = 64;

class FaultLoad final : public Load {
 public:
  explicit FaultLoad(int threads)
      : threads_(threads), buffers_(static_cast<std::size_t>(threads), nullptr) {}
  ~FaultLoad() override { stop(); }

  void start() override {
    try {
      for (void*& buffer : buffers_) buffer = map_buffer();
      workers_.start(
          threads_, [](int i) { return other_thread("load-fault" + std::to_string(i)); },
          [this](int i, Workers::Counter& ops) { fault(i, ops); });
    } catch (const LoadError&) {
      stop();
      throw;
    }
  }

  void stop() override {
    workers_.stop();
    for (void*& buffer : buffers_) {
      if (buffer != nullptr) munmap(buffer, kBufferBytes);
      buffer = nullptr;
    }
  }

  LoadReport report() const override {
    LoadReport r =
        workers_.report("fault", "fault:" + std::to_string(threads_), threads_, "faults");
    r.note = "getrusage minflt " + std::to_string(minflt_.load()) + "; " +
             std::to_string(kBufferBytes >> 20) + " MiB per thread";
    if (const int err = errno_.load(); err != 0) {
      r.note += "; stopped early: madvise(MADV_DONTNEED): " + std::string(std::strerror(err));
    }
    return r;
  }

 private:
  // rtgate may have called mlockall(MCL_FUTURE): a new mapping would then be populated and
  // locked at once, and MADV_DONTNEED on locked pages fails with EINVAL, so no fault would ever
  // happen again. Mapping PROT_NONE keeps the kernel from populating it (and NORESERVE from
  // charging it), munlock drops the inherited lock, and only then does it become writable.
  // Transparent huge pages would turn 512 page faults into one, so they are refused.
  static void* map_buffer() {
    void* p =
        mmap(nullptr, kBufferBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      std::string msg =
          "fault: mmap of " + std::to_string(kBufferBytes >> 20) + " MiB: " + std::strerror(err);
      if (err == EAGAIN) msg += " (an mlockall'd process is held to RLIMIT_MEMLOCK)";
      throw LoadError(msg);
    }
    munlock(p, kBufferBytes);
    madvise(p, kBufferBytes, MADV_NOHUGEPAGE);  // EINVAL without THP support: nothing to refuse
    if (mprotect(p, kBufferBytes, PROT_READ | PROT_WRITE) != 0) {
      const int err = errno;
      munmap(p, kBufferBytes);
      throw LoadError(std::string("fault: mprotect: ") + std::strerror(err));
    }
    return p;
  }

  void fault(int index, Workers::Counter& ops) {
    auto* base = static_cast<volatile char*>(buffers_[static_cast<std::size_t>(index)]);
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const long minflt_before = thread_minflt();
    while (!workers_.stopping()) {
      std::uint64_t batch = 0;
      for (std::size_t off = 0; off < kBufferBytes; off += page) {
        base[off] = 1;  // a write: a fresh zeroed page, not the shared zero page
        if (++batch == kBatch) {
          ops.add(batch);
          batch = 0;
          if (workers_.stopping()) break;
        }
      }
      ops.add(batch);
      // Without a successful DONTNEED the next pass would touch resident pages: no faults, so
      // counting them would be a lie. Stop instead and say why.
      if (madvise(const_cast<char*>(base), kBufferBytes, MADV_DONTNEED) != 0) {
        errno_.store(errno);
        break;
      }
    }
    minflt_.fetch_add(static_cast<std::uint64_t>(thread_minflt() - minflt_before));
  }

  static long thread_minflt() {
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_minflt;
  }

  int threads_;
  std::vector<void*> buffers_;
  std::atomic<std::uint64_t> minflt_{0};  // the kernel's count, to check ours against
  std::atomic<int> errno_{0};
  Workers workers_;  // last: destroyed (joined) before the buffers its threads touch
};

std::unique_ptr<Load> make(const std::vector<std::string>& args, std::string* error) {
  const std::optional<int> n = thread_count_arg(args, kMaxThreads, error);
  return n ? std::make_unique<FaultLoad>(*n) : nullptr;
}

}  // namespace
}  // namespace rtgate::load

RTGATE_LOAD_KIND(fault,
                 {.name = "fault",
                  .usage = "fault[:N]",
                  .help = "N threads faulting in 64 MiB each, page by page, then MADV_DONTNEED "
                          "(ops: page faults)",
                  .make = &rtgate::load::make});
