#include "framework/rt/memory_lock.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace rtgate::rt {

std::string lock_memory(std::size_t heap_bytes) {
  static std::once_flag once;
  static std::string result;
  std::call_once(once, [&] {
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
      result = std::string("mlockall failed: ") + std::strerror(errno) +
               " (needs root, CAP_IPC_LOCK or a larger RLIMIT_MEMLOCK)";
      return;
    }
    // Never give heap back to the kernel and never serve malloc from fresh mmaps: both would
    // bring page faults back after we prefaulted.
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_MMAP_MAX, 0);
    auto* p = static_cast<char*>(std::malloc(heap_bytes));
    if (p != nullptr) {
      const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
      for (std::size_t i = 0; i < heap_bytes; i += page) p[i] = 1;
      std::free(p);
    }
  });
  return result;
}

}  // namespace rtgate::rt
