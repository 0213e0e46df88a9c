#include "cli/session_inputs.h"

#include <algorithm>
#include <filesystem>

#include "cli/commands.h"
#include "cli/history_inputs.h"
#include "gate/noise/comparability.h"
#include "results/result_json.h"

namespace rtgate::cli {
namespace fs = std::filesystem;

std::optional<SessionInputs> SessionInputs::load(const RunReport& base, const GateInputs& in) {
  SessionInputs out;
  out.base_ = &base;
  for (const std::string& path : in.more_baselines) {
    auto r = load_result(path, "BASE");
    if (!r) return std::nullopt;
    out.more_.push_back(std::move(*r));
  }
  if (in.history_dir.empty()) return out;
  std::error_code ec;
  if (!fs::is_directory(in.history_dir, ec)) {
    print_error("--history: " + in.history_dir + " is not a directory");
    return std::nullopt;
  }
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(in.history_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec) && is_result_name(it->path().filename().string()))
      files.push_back(it->path());
  }
  if (ec) {
    print_error("--history: " + in.history_dir + ": " + ec.message());
    return std::nullopt;
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    try {
      out.history_.push_back(read_report_file(f.string()));
    } catch (const JsonError&) {
      ++out.unreadable_;
    }
  }
  return out;
}

gate::GateVerdict SessionInputs::compare(const RunReport& cur, const gate::Policy& policy) const {
  std::vector<const RunReport*> sessions{base_};
  for (const RunReport& r : more_) sessions.push_back(&r);
  std::vector<const RunReport*> known = sessions;
  int other = 0;
  for (const RunReport& h : history_) {
    if (gate::history_mismatch(h, cur).empty()) {
      known.push_back(&h);
    } else {
      ++other;
    }
  }
  gate::NoiseModel noise = gate::NoiseModel::from_sessions(known, policy);
  noise.set_environment(base_->environment, cur.environment);
  gate::GateVerdict g = gate::compare(sessions, cur, policy, noise);
  if (!history_.empty() || unreadable_ > 0) {
    g.noise += " (--history: " + std::to_string(history_.size() - static_cast<std::size_t>(other)) +
               " of " + std::to_string(history_.size()) +
               " results measured what this one did on this host" +
               (unreadable_ > 0 ? "; " + std::to_string(unreadable_) + " files not results" : "") +
               ")";
  }
  return g;
}

}  // namespace rtgate::cli
