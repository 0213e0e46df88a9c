#include "gate/pair/baseline_sessions.h"

#include "gate/noise/comparability.h"
#include "gate/noise/session_noise.h"
#include "gate/pair/compare.h"
#include "results/result_folder.h"
#include "results/result_json.h"

namespace rtgate::gate {

std::optional<BaselineSessions> BaselineSessions::load(
    const RunReport& base, const std::vector<std::string>& more_baselines,
    const std::string& history_dir, std::string* error) {
  BaselineSessions out;
  out.base_ = &base;
  for (const std::string& path : more_baselines) {
    try {
      out.more_.push_back(read_report_file(path));
    } catch (const JsonError& e) {
      *error = std::string("BASE: ") + e.what();
      return std::nullopt;
    }
  }
  if (history_dir.empty()) return out;
  const std::optional<std::vector<std::string>> files = result_files(history_dir, error);
  if (!files) {
    *error = "--history: " + *error;
    return std::nullopt;
  }
  for (const std::string& f : *files) {
    try {
      out.history_.push_back(read_report_file(f));
    } catch (const JsonError&) {
      ++out.unreadable_;
    }
  }
  return out;
}

GateVerdict BaselineSessions::compare(const RunReport& cur, const Policy& policy) const {
  std::vector<const RunReport*> sessions{base_};
  for (const RunReport& r : more_) sessions.push_back(&r);
  std::vector<const RunReport*> known = sessions;
  int other = 0;
  for (const RunReport& h : history_) {
    // The history is the baseline's host and setup: what the noise of sessions like the
    // baseline's is. Matched against the current, a current run under another load
    // (--allow-env-mismatch) would leave the gate without the history it was given. The current
    // session itself is never part of the noise it is judged against.
    if (session_id(h) != session_id(cur) && history_mismatch(h, *base_).empty()) {
      known.push_back(&h);
    } else {
      ++other;
    }
  }
  NoiseModel noise = prometheus_ ? prometheus_->model(sessions, cur, policy)
                                 : NoiseModel::from_sessions(known, policy);
  noise.set_environment(base_->environment, cur.environment);
  GateVerdict g = gate::compare(sessions, cur, policy, noise);
  if (prometheus_) g.noise += prometheus_->describe();
  if (!history_.empty() || unreadable_ > 0) {
    g.noise += " (--history: " + std::to_string(history_.size() - static_cast<std::size_t>(other)) +
               " of " + std::to_string(history_.size()) +
               " results measured what the baseline did, on its host" +
               (unreadable_ > 0 ? "; " + std::to_string(unreadable_) + " files not results" : "") +
               ")";
  }
  return g;
}

}  // namespace rtgate::gate
