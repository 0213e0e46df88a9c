#include "gate/model/cause_diff.h"

#include <cstdio>

#include "base/text/units.h"
#include "gate/model/format.h"

namespace rtgate::gate {
std::string over(std::int64_t threshold_ns) { return "over " + text::in_us(threshold_ns, 0); }

std::string CauseComparison::headline() const {
  if (grew.empty()) return "";
  const CauseChange& c = grew.front();
  return std::string(c.in_base < kMinRise ? "new cause " : "grown cause ") + c.cause + " in " +
         fmt::share(c.in_cur) + " of samples " + over(threshold_ns) + " (was " +
         fmt::share(c.in_base) + ")";
}

std::string CauseComparison::title() const {
  if (case_name.empty()) return suite + ": kernel lock contention";
  std::string t = suite + "/" + case_name + ": causes " + over(threshold_ns);
  if (!threshold_from.empty()) t += " (" + threshold_from + ")";
  return t + ", " + std::to_string(samples_cur) + " samples (baseline " +
         std::to_string(samples_base) + ")";
}

std::vector<std::string> CauseComparison::lines() const {
  std::vector<std::string> out = {title()};
  for (const CauseChange& c : grew)
    out.push_back(std::string(c.is_new ? "new: " : "grew: ") + describe(c));
  for (const CauseChange& c : shrank) {
    out.push_back(std::string(c.is_gone ? "gone: " : "shrank: ") + describe(c));
  }
  for (const LockChange& l : locks)
    out.push_back(std::string(l.is_new ? "new lock: " : "lock grew: ") + describe(l));
  if (!note.empty()) out.push_back("note: " + note);
  if (out.size() == 1) {
    out.push_back(case_name.empty() ? "no lock's contention grew" : "no cause grew or shrank");
  }
  return out;
}

std::string CauseComparison::block() const {
  const std::vector<std::string> all = lines();
  std::string out = all.front() + "\n";
  for (std::size_t i = 1; i < all.size(); ++i) out += "    " + all[i] + "\n";
  return out;
}

std::string CauseComparison::describe(const CauseChange& c) {
  std::string s = c.cause + ": in " + fmt::share(c.in_cur) + " of samples (was " +
                  fmt::share(c.in_base) + "), " + fmt::share(c.share_cur) +
                  " of the latency (was " + fmt::share(c.share_base) + ")";
  if (!std::isnan(c.p)) s += ", " + fmt::p_value(c.p);
  return s;
}

std::string CauseComparison::describe(const LockChange& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                ": %.0f waits per run (was %.0f), %.2f ms waited per run (was %.2f)", c.waits_cur,
                c.waits_base, c.wait_ms_cur, c.wait_ms_base);
  std::string s = c.lock + buf;
  if (!std::isnan(c.p)) s += ", " + fmt::p_value(c.p);
  return s;
}

}  // namespace rtgate::gate
