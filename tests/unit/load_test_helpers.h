// Shared by the load tests: parsing that must succeed or fail, running one item for a while
// with the time stop() took, and finding a load's threads by name.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/io/proc_files.h"
#include "framework/background_load/load.h"
#include "framework/measure/clock.h"

namespace rtgate::load::test {

namespace fs = std::filesystem;

inline void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

inline std::string parse_error(const std::string& spec) {
  std::string error;
  EXPECT_FALSE(parse_load_spec(spec, &error).has_value()) << "accepted: '" << spec << "'";
  return error;
}

inline LoadSet parse_ok(const std::string& spec) {
  std::string error;
  const std::optional<LoadSpec> parsed = parse_load_spec(spec, &error);
  std::optional<LoadSet> set = parsed ? make_loads(*parsed, &error) : std::nullopt;
  EXPECT_TRUE(set.has_value()) << "'" << spec << "': " << error;
  return set ? std::move(*set) : LoadSet();
}

struct Ran {
  LoadReport report;
  double stop_seconds = 0;
};

// Runs the one-item `spec` for `ms`, then `during` (checks made while it is loaded), then stops.
inline Ran run_load(const std::string& spec, int ms, const std::function<void()>& during = {}) {
  LoadSet set = parse_ok(spec);
  if (set.size() != 1) return {};
  set.start();
  sleep_ms(ms);
  if (during) during();
  const std::int64_t t0 = monotonic_ns();
  set.stop();
  Ran ran{.report = set.reports()[0],
          .stop_seconds = static_cast<double>(monotonic_ns() - t0) * 1e-9};
  set.stop();  // idempotent
  EXPECT_EQ(set.reports()[0].ops, ran.report.ops) << "ops moved after stop()";
  return ran;
}

// This process's threads whose name starts with `prefix`.
inline std::vector<pid_t> threads_named(const std::string& prefix) {
  std::vector<pid_t> tids;
  for (const auto& entry : fs::directory_iterator("/proc/self/task")) {
    const std::string comm = proc::read_trimmed(entry.path().string() + "/comm");
    if (comm.rfind(prefix, 0) == 0) tids.push_back(std::stoi(entry.path().filename().string()));
  }
  return tids;
}

// The same once the threads had time to go: a joined thread's /proc/self/task entry can outlive
// pthread_join by a moment (the kernel wakes the joiner when it clears the thread's tid, before
// it releases the task), which a loaded CI machine shows. Polls for up to 2 s, far beyond any
// release, so a thread really left behind still fails.
inline std::vector<pid_t> threads_left_named(const std::string& prefix) {
  std::vector<pid_t> tids = threads_named(prefix);
  for (int i = 0; i < 200 && !tids.empty(); ++i) {
    usleep(10'000);
    tids = threads_named(prefix);
  }
  return tids;
}

// Points an environment variable elsewhere for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh directory, removed with everything in it.
struct TempDir {
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "load-test-XXXXXX").string();
    path = mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

}  // namespace rtgate::load::test
