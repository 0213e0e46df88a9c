// Signals that end a run: SIGINT, SIGTERM and SIGHUP (an ssh session dropping) ask it to stop
// and keep what it measured. Further SIGTERMs and SIGHUPs are absorbed. A second SIGINT, from a
// person, hurries the shutdown: exit 130 at once when a result is on disk (note_result_saved),
// else right after the next one is written, within 5 s. A shutdown still going 30 s after the
// first signal exits 130; what was saved stays. SIGPIPE (stdout
// piped into `head` that has exited) must not kill it at all: the write fails with EPIPE
// instead and is reported (main checks stdout before exiting), and the JSON is still written.
#pragma once

#include <atomic>

namespace rtgate {

// Installs the handlers (idempotent) and returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();

// True once a second SIGINT asked the shutdown to skip its grace periods.
bool shutdown_hurried();

// Called after every complete write of the result: a hurried shutdown may end from here on.
void note_result_saved();

// Makes SIGPIPE harmless for this process: a write to a closed pipe fails with EPIPE. Caught by
// an empty handler rather than ignored, because SIG_IGN would be inherited by what rtgate
// executes (stress-ng, the trace reaper) and a caught signal is reset to the default by exec.
void survive_sigpipe();

}  // namespace rtgate
