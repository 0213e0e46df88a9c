#include "cli/history_inputs.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "cli/commands.h"
#include "results/result_json.h"

namespace rtgate::cli {
namespace fs = std::filesystem;
namespace {

struct File {
  std::string path;
  bool named = false;  // named on the command line: unreadable is an error, not a skip
};

}  // namespace

bool is_result_name(const std::string& n) {
  auto ends = [&](const std::string& s) {
    return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".json") || ends(".json.gz");
}

std::optional<HistoryInputs> load_history(const std::vector<std::string>& paths,
                                          const gate::Policy& policy, const char* role,
                                          const RunReport* current) {
  std::vector<File> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<File> found;
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && is_result_name(it->path().filename().string())) {
          found.push_back({it->path().string(), false});
        }
      }
      if (ec) {
        print_error(std::string(role) + ": " + p + ": " + ec.message());
        return std::nullopt;
      }
      std::sort(found.begin(), found.end(),
                [](const File& a, const File& b) { return a.path < b.path; });
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back({p, true});
    } else {
      print_error(std::string(role) + ": " + p + ": no such file or directory");
      return std::nullopt;
    }
  }
  gate::HistoryBuilder builder(policy);
  HistoryInputs out;
  std::mutex mu;
  std::string error;
  std::string reference;
  bool first_pending = current == nullptr;  // until a result is the reference
  // Parsing is most of the time and each file is independent: one reader per core, each adding
  // what it read under the lock. The first result read is the reference, read alone, so that a
  // mix is always reported against the same file.
  auto take = [&](const File& f) {
    std::optional<RunReport> r;
    std::string why;
    try {
      r = read_report_file(f.path, {.history_only = true});
    } catch (const JsonError& e) {
      why = e.what();
    }
    // Reduced outside the lock once there is a reference; the first result, read alone, sets it.
    std::optional<gate::SessionValues> values;
    if (r && !first_pending) values = builder.reduce(*r, f.path);
    std::lock_guard lock(mu);
    if (!error.empty()) return;
    if (!r) {
      if (f.named) error = f.path + ": " + why;
      ++out.not_results;
      return;
    }
    if (reference.empty()) reference = f.path;
    const std::string m = values ? builder.add(std::move(*values)) : builder.add(*r, f.path);
    if (!m.empty() && current != nullptr) {
      ++out.other;
    } else if (!m.empty()) {
      error = f.path + " is not of the history of " + reference + ": " + m +
              " (a history is one host's results of one selection, parameters and options)";
    }
  };
  if (current != nullptr) {
    builder.add(*current, "(current)");
    reference = "the current result";
  }
  std::size_t first = 0;
  while (first < files.size() && reference.empty() && error.empty()) take(files[first++]);
  first_pending = false;
  std::atomic<std::size_t> next{first};
  std::vector<std::thread> readers;
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < n; ++t) {
    readers.emplace_back([&] {
      for (std::size_t i = next++; i < files.size(); i = next++) take(files[i]);
    });
  }
  for (std::thread& t : readers) t.join();
  if (!error.empty()) {
    print_error(std::string(role) + ": " + error);
    return std::nullopt;
  }
  out.history = builder.finish();
  return out;
}

}  // namespace rtgate::cli
