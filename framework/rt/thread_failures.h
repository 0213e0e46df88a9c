// What became of an exception that escaped a thread's body (RtThread): instead of reaching
// std::terminate (no JSON, no cleanup, RT threads left running), it is recorded here and the
// current run is asked to stop; the runner turns it into the suite's "error" with the reason.
// Lock-free: the first failure's message is kept in a fixed buffer claimed by a CAS.
#pragma once

#include <atomic>
#include <string>

namespace rtgate::rt {

// The runner, before a run: forget earlier failures and point at the run's stop flag (nullptr:
// none).
void reset_thread_failures(std::atomic<bool>* stop);
// Called by a thread whose body threw: records "exception in thread 'NAME': WHAT" (the first
// one wins) and sets the stop flag.
void record_thread_failure(const char* thread, const char* what) noexcept;
// The first failure since the reset, or "".
std::string first_thread_failure();

}  // namespace rtgate::rt
