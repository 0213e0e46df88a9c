#include "gate/history/history_reader.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "results/result_folder.h"
#include "results/result_json.h"

namespace rtgate::gate {
namespace fs = std::filesystem;
namespace {

struct File {
  std::string path;
  bool named = false;  // named on the command line: unreadable is an error, not a skip
};

// The files `paths` name: each file, and the results under each directory. nullopt and a
// one-line *error for a path that does not exist or a directory that cannot be listed.
std::optional<std::vector<File>> files_of(const std::vector<std::string>& paths, const char* role,
                                          std::string* error_out) {
  std::vector<File> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::string why;
      const std::optional<std::vector<std::string>> found = result_files(p, &why);
      if (!found) {
        *error_out = std::string(role) + ": " + why;
        return std::nullopt;
      }
      for (const std::string& f : *found) files.push_back({f, false});
    } else if (fs::exists(p, ec)) {
      files.push_back({p, true});
    } else {
      *error_out = std::string(role) + ": " + p + ": no such file or directory";
      return std::nullopt;
    }
  }
  return files;
}

}  // namespace

std::optional<HistoryInputs> load_history(const std::vector<std::string>& paths,
                                          const Policy& policy, const char* role,
                                          std::string* error_out, const RunReport* current) {
  const std::optional<std::vector<File>> listed = files_of(paths, role, error_out);
  if (!listed) return std::nullopt;
  const std::vector<File>& files = *listed;
  HistoryBuilder builder(policy);
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
    } catch (const std::exception& e) {
      // Anything a file from elsewhere can cause (not a result, past the input limit, out of
      // memory) costs that file only: a reader thread must not end the process.
      why = e.what();
    }
    // Reduced outside the lock once there is a reference; the first result, read alone, sets it.
    std::optional<SessionValues> values;
    if (r && !first_pending) values = builder.reduce(*r, f.path);
    std::lock_guard lock(mu);
    if (!error.empty()) return;
    if (!r) {
      if (f.named) error = f.path + ": " + why;
      ++out.not_results;
      out.skipped.push_back(why);
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
    *error_out = std::string(role) + ": " + error;
    return std::nullopt;
  }
  out.history = builder.finish();
  return out;
}

}  // namespace rtgate::gate
