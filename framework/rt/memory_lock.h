// Memory locking for RT: mlockall(MCL_CURRENT | MCL_FUTURE) and a malloc configured to keep what
// it has, so that no page fault or trim happens on a measured path.
#pragma once

#include <string>

namespace rtgate::rt {

// Locks current and future pages and prefaults `heap_bytes` of heap. Idempotent. Returns "" on
// success, else a one-line reason (e.g. RLIMIT_MEMLOCK too small without root).
std::string lock_memory(std::size_t heap_bytes = 16u << 20);

}  // namespace rtgate::rt
