// What the integration tests read back from rtgate: a result file, a suite's case and metric by
// name, a count's value, and the skip for machines where SCHED_FIFO is refused.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/rt/rt_checks.h"
#include "tests/integration/process.h"

// Skips the calling test, with the reason, where this process cannot get SCHED_FIFO.
#define SKIP_WITHOUT_FIFO()                                                     \
  if (const std::string why = ::rtgate::rt::probe_sched_fifo(); !why.empty()) { \
    GTEST_SKIP() << why;                                                        \
  }

namespace rtgate::test {

nlohmann::json load_json(const std::string& path);

// Runs `rtgate ARGS --no-progress -o TEMP`, expects `expect_exit`, and returns the result file
// (null when rtgate wrote none). The timeout only catches a hang.
nlohmann::json run_json(const std::vector<std::string>& args, int expect_exit = 0,
                        ProcessOptions opt = {.timeout_s = 300});

// A suite's case, or a case's metric, by name. A missing one fails the test and yields a
// placeholder whose summary and samples read as zeros, so the test goes on to its end.
const nlohmann::json& case_named(const nlohmann::json& suite, const std::string& name);
const nlohmann::json& metric_named(const nlohmann::json& c, const std::string& name);

// A count or throughput metric's value in the first run.
double count_value(const nlohmann::json& c, const std::string& name);

}  // namespace rtgate::test
