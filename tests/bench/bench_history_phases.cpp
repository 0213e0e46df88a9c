// Where `rtgate history --format json`'s time goes, phase by phase, on one thread: reading each
// result (read_report_file), reducing it (HistoryBuilder::add), freeing it, then judge_history,
// history_json and dump(2). The CLI reads on every core and adds under a lock
// (gate/history/history_reader.cpp); here the phases run one after another so that each is timed alone.
//
//   bench_history_phases DIR [--full | --check | --threads N]
//
// Reads with ReadOptions::history_only (what the history needs) unless --full. --check also
// builds the history from full reads, times those, and says whether its JSON is the same.
// --threads: reads as the CLI does, N readers each adding under a lock, and times reading and
// adding together (wall time). Prints the phases' seconds (per file too for reading and adding)
// and the peak RSS (and the resident set once the history is read).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exporters/history_report.h"
#include "gate/history/history_judge.h"
#include "results/result_from_dom.h"
#include "results/result_json.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// This process's resident set now, from /proc/self/statm.
double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024 * 1024);
}

struct Built {
  rtgate::gate::History history;
  double read_s = 0, add_s = 0, free_s = 0;
};

void add(rtgate::gate::HistoryBuilder& builder, const rtgate::RunReport& r, const std::string& f) {
  if (const std::string why = builder.add(r, f); !why.empty()) {
    std::fprintf(stderr, "%s: %s\n", f.c_str(), why.c_str());
    std::exit(1);
  }
}

// gate/history/history_reader.cpp's reading: the first file alone, then `threads` readers.
Built build_threaded(const std::vector<std::string>& files, const rtgate::gate::Policy& policy,
                     unsigned threads) {
  rtgate::gate::HistoryBuilder builder(policy);
  std::mutex mu;
  std::atomic<std::size_t> next{1};
  const auto t0 = Clock::now();
  add(builder, rtgate::read_report_file(files.at(0), {.history_only = true}), files[0]);
  std::vector<std::thread> readers;
  for (unsigned t = 0; t < threads; ++t) {
    readers.emplace_back([&] {
      for (std::size_t i = next++; i < files.size(); i = next++) {
        const auto r = rtgate::read_report_file(files[i], {.history_only = true});
        std::lock_guard lock(mu);
        add(builder, r, files[i]);
      }
    });
  }
  for (std::thread& t : readers) t.join();
  Built b;
  b.read_s = since(t0);
  b.history = builder.finish();
  return b;
}

Built build(const std::vector<std::string>& files, const rtgate::gate::Policy& policy,
            const rtgate::ReadOptions& options) {
  rtgate::gate::HistoryBuilder builder(policy);
  Built b;
  for (const std::string& f : files) {
    auto t0 = Clock::now();
    auto r = std::make_unique<rtgate::RunReport>(rtgate::read_report_file(f, options));
    b.read_s += since(t0);
    t0 = Clock::now();
    add(builder, *r, f);
    b.add_s += since(t0);
    t0 = Clock::now();
    r.reset();
    b.free_s += since(t0);
  }
  b.history = builder.finish();
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string flag = argc > 2 ? argv[2] : "";
  const bool threaded = flag == "--threads" && argc == 4;
  if (argc < 2 || (argc == 3 && flag != "--full" && flag != "--check") ||
      (argc == 4 && !threaded) || argc > 4) {
    std::fprintf(stderr, "usage: bench_history_phases DIR [--full | --check | --threads N]\n");
    return 2;
  }
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(argv[1])) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && (p.ends_with(".json") || p.ends_with(".json.gz"))) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  const rtgate::gate::Policy policy;
  const Built b = threaded
                      ? build_threaded(files, policy, static_cast<unsigned>(std::stoul(argv[3])))
                      : build(files, policy, {.history_only = flag != "--full"});
  const rtgate::gate::History& h = b.history;
  const double resident_read = resident_mb();
  auto t0 = Clock::now();
  const rtgate::gate::HistoryReport report = rtgate::gate::judge_history(h, policy);
  const double judge_s = since(t0);
  t0 = Clock::now();
  const nlohmann::ordered_json j = rtgate::history_json(h, report);
  const double json_s = since(t0);
  t0 = Clock::now();
  const std::string text = j.dump(2);
  const double dump_s = since(t0);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double n = static_cast<double>(std::max<std::size_t>(files.size(), 1));
  std::printf("files %zu, sessions %zu, series %zu, read %s\n", files.size(), h.sessions.size(),
              h.series.size(), flag == "--full" ? "full" : "history_only");
  if (threaded) {
    std::printf("read and add, %s threads %.2f s wall\n", argv[3], b.read_s);
  } else {
    std::printf("read_report_file %8.2f s (%.1f ms a file)\n", b.read_s, 1e3 * b.read_s / n);
    std::printf("HistoryBuilder::add %5.2f s (%.1f ms a file)\n", b.add_s, 1e3 * b.add_s / n);
    std::printf("freeing the report %4.2f s\n", b.free_s);
  }
  std::printf("judge_history %11.2f s\n", judge_s);
  std::printf("history_json %12.2f s\n", json_s);
  std::printf("dump(2) %17.2f s (%.1f MB)\n", dump_s, static_cast<double>(text.size()) / 1e6);
  std::printf("peak RSS %16.0f MB (%.0f MB resident once read)\n",
              static_cast<double>(ru.ru_maxrss) / 1024, resident_read);
  if (flag == "--check") {
    const Built full = build(files, policy, {});
    const std::string same =
        rtgate::history_json(full.history, rtgate::gate::judge_history(full.history, policy))
            .dump(2);
    std::printf("full read: read_report_file %.2f s (%.1f ms a file), add %.2f s (%.1f ms)\n",
                full.read_s, 1e3 * full.read_s / n, full.add_s, 1e3 * full.add_s / n);
    std::printf("history_only's JSON %s the full read's\n", same == text ? "is" : "DIFFERS FROM");
    return same == text ? 0 : 1;
  }
  return 0;
}
