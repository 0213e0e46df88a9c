// Signals that end a run: SIGINT, SIGTERM and SIGHUP (an ssh session dropping) ask it to stop
// and keep what it measured; a second one kills the process the usual way. SIGPIPE (stdout
// piped into `head` that has exited) must not kill it at all: the write fails with EPIPE
// instead and is reported (main checks stdout before exiting), and the JSON is still written.
#pragma once

#include <atomic>

namespace rtgate {

// Installs the handlers (idempotent) and returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();

// Makes SIGPIPE harmless for this process: a write to a closed pipe fails with EPIPE. Caught by
// an empty handler rather than ignored, because SIG_IGN would be inherited by what rtgate
// executes (stress-ng, the trace reaper) and a caught signal is reset to the default by exec.
void survive_sigpipe();

}  // namespace rtgate
