// A host's history at lab scale for tests/bench/history_scale.sh: N sessions of one C-case
// selection (scale_layout.h's board), each written as `run -o` writes a result, into
// DIR/<kernel_release>/<UTC time>.json with ci/gate-kernel.sh's names (20261202T000000.0Z).
//
//   bench_history_gen DIR [--sessions 1000] [--cases 1000] [--runs 5] [--step-at K] [--gz]
//
// One board is drawn, then each session is a copy with its own numbers: every latency run's
// values (quantiles, mean, stddev, min, max; the samples, which are the runs' maxima) and every
// throughput sample multiplied by a session factor (log-normal, 3%) and a per-run one (2%), the
// event counts redrawn as Poisson around the board's. From session K (default 2N/3) the cyclic
// suite's latencies are 30% higher: something for the history to find. The pooled histograms
// stay the board's (a session's own would cost a redraw and change no statistic the history
// judges, nor the file's size). Each session has its own boot_id and pid, started an hour after
// the one before; the kernel release changes every 10 sessions; the host is the same.
//
// Prints "sessions N", "bytes TOTAL" and "seconds S" (generation and writing).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "results/result_json.h"
#include "tests/bench/scale_layout.h"

namespace {

namespace fs = std::filesystem;

struct Args {
  fs::path dir;
  int sessions = 1000;
  std::size_t cases = 1000;
  int runs = 5;
  int step_at = -1;
  bool gz = false;
};

// "2026-12-02T00:00:00Z" plus `hours`, in `format`.
std::string utc_after(int hours, const char* format = "%Y-%m-%dT%H:%M:%SZ") {
  std::tm t{};
  t.tm_year = 2026 - 1900;
  t.tm_mon = 11;
  t.tm_mday = 2;
  t.tm_hour = hours;
  const std::time_t s = timegm(&t);
  std::tm out{};
  gmtime_r(&s, &out);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &out);
  return buf;
}

std::uint64_t scaled(std::uint64_t v, double f) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(v) * f));
}

// Session `i`'s copy of `board`: its numbers as the header says, its identity.
rtgate::RunReport session(const rtgate::RunReport& board, int i, const Args& a,
                          std::mt19937_64& rng) {
  using rtgate::MetricKind;
  std::normal_distribution<double> z(0, 1);
  const double session_factor = std::exp(0.03 * z(rng));
  rtgate::RunReport r = board;
  for (rtgate::SuiteResult& s : r.suites) {
    const double step = (s.name == "cyclic" && i >= a.step_at) ? 1.3 : 1.0;
    for (rtgate::Case& c : s.cases) {
      for (rtgate::Metric& m : c.metrics) {
        if (m.kind == MetricKind::kLatency) {
          m.samples.clear();
          for (rtgate::LatencySummary& run : m.runs) {
            const double f = session_factor * step * std::exp(0.02 * z(rng));
            for (std::uint64_t* v :
                 {&run.min, &run.p50, &run.p90, &run.p99, &run.p999, &run.p9999, &run.max}) {
              *v = scaled(*v, f);
            }
            run.mean *= f;
            run.stddev *= f;
            m.samples.push_back(static_cast<double>(run.max));
          }
        } else if (m.kind == MetricKind::kCount) {
          for (double& v : m.samples) {
            v = std::poisson_distribution<int>(std::max(v, 0.1) * session_factor)(rng);
          }
        } else {
          for (double& v : m.samples) v *= session_factor * std::exp(0.02 * z(rng));
        }
      }
    }
  }
  const int kernel = i / 10;
  r.environment.kernel_release = "6.12." + std::to_string(kernel) + "-rt" + std::to_string(kernel);
  char boot[40];
  std::snprintf(boot, sizeof boot, "00000000-0000-4000-8000-%012d", i);
  r.environment.boot_id = boot;
  r.environment.pid = 1000 + i;
  r.started_at = utc_after(i);
  r.finished_at = utc_after(i + 1);
  return r;
}

bool parse(int argc, char** argv, Args& a) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--gz") {
      a.gz = true;
    } else if (args[i] == "--sessions" && has_value) {
      a.sessions = std::stoi(args[++i]);
    } else if (args[i] == "--cases" && has_value) {
      a.cases = std::stoul(args[++i]);
    } else if (args[i] == "--runs" && has_value) {
      a.runs = std::stoi(args[++i]);
    } else if (args[i] == "--step-at" && has_value) {
      a.step_at = std::stoi(args[++i]);
    } else if (a.dir.empty() && args[i].rfind("--", 0) != 0) {
      a.dir = args[i];
    } else {
      return false;
    }
  }
  if (a.step_at < 0) a.step_at = a.sessions * 2 / 3;
  return !a.dir.empty() && a.sessions > 0 && a.cases > 0 && a.runs > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: bench_history_gen DIR [--sessions N] [--cases C] [--runs R] "
                 "[--step-at K] [--gz]\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const rtgate::RunReport board = rtgate::bench::board(a.cases, a.runs);
  std::mt19937_64 rng(2026);
  std::uintmax_t bytes = 0;
  for (int i = 0; i < a.sessions; ++i) {
    const rtgate::RunReport r = session(board, i, a, rng);
    const std::string stamp = utc_after(i, "%Y%m%dT%H%M%S.000000000Z");
    const fs::path dir = a.dir / r.environment.kernel_release;
    fs::create_directories(dir);
    const fs::path file = dir / (stamp + (a.gz ? ".json.gz" : ".json"));
    if (const std::string why = rtgate::write_result_file(file.string(), r); !why.empty()) {
      std::fprintf(stderr, "bench_history_gen: %s: %s\n", file.c_str(), why.c_str());
      return 1;
    }
    bytes += fs::file_size(file);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("sessions %d\nbytes %ju\nseconds %.1f\n", a.sessions, bytes, s);
  return 0;
}
