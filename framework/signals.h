// SIGINT/SIGTERM handling: the first signal asks the run to stop and keep what it measured; a
// second one kills the process the usual way.
#pragma once

#include <atomic>

namespace rtgate {

// Installs the handlers (idempotent) and returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();
// The signal that interrupted the run (SIGINT or SIGTERM), 0 if none.
int interrupt_signal();

}  // namespace rtgate
