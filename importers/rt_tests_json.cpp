#include "importers/rt_tests_json.h"

#include <ctime>

#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

using nlohmann::json;

const json* either(const json& j, const char* a, const char* b) {
  if (const json* v = optional_member(j, a)) return v;
  return optional_member(j, b);
}

std::string text_of(const json* v, const std::string& where) {
  if (v == nullptr) return "";
  if (!v->is_string()) throw ImportError(where + ": expected a string");
  return v->get<std::string>();
}

// What uname -v says of preemption, as the environment capture's uname fallback reads it: the
// file has no debugfs or kernel config to refine "dynamic" with.
std::string preempt_from_uname(const std::string& version, bool realtime) {
  const auto has = [&](const char* w) {
    for (const std::string& t : split_command(version)) {
      if (t == w) return true;
    }
    return false;
  };
  if (realtime || has("PREEMPT_RT")) return "rt";
  if (has("PREEMPT_DYNAMIC")) return "dynamic";
  if (has("PREEMPT")) return "full";
  return "unknown";
}

}  // namespace

const json* optional_member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json& member(const json& obj, const char* key, const std::string& where) {
  const json* v = optional_member(obj, key);
  if (v == nullptr) throw ImportError(where + ": missing field '" + key + "'");
  return *v;
}

const json& object(const json& v, const std::string& where) {
  if (!v.is_object()) throw ImportError(where + ": expected an object");
  return v;
}

std::uint64_t whole(const json& v, const std::string& where) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  }
  throw ImportError(where + ": expected a non-negative integer, not " + v.dump());
}

std::int64_t integer(const json& v, const std::string& where) {
  if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX)) {
    return v.get<std::int64_t>();
  }
  throw ImportError(where + ": expected an integer, not " + v.dump());
}

double number(const json& v, const std::string& where) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isfinite(d)) return d;
  }
  throw ImportError(where + ": expected a finite number, not " + v.dump());
}

bool is_rt_tests_json(const json* j) {
  return j != nullptr && j->is_object() && j->contains("file_version") && j->contains("sysinfo");
}

std::string rt_tests_program(const json& j) {
  const json* c = either(j, "cmdline:", "cmdline");
  if (c == nullptr || !c->is_string()) return "";
  const std::vector<std::string> words = split_command(c->get<std::string>());
  if (words.empty()) return "";
  const std::string& first = words.front();
  const std::size_t slash = first.rfind('/');
  return slash == std::string::npos ? first : first.substr(slash + 1);
}

std::optional<std::pair<std::string, std::int64_t>> rfc2822_to_rfc3339(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S %z", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  // strptime leaves the offset in tm_gmtoff; timegm reads tm as UTC.
  const long offset = tm.tm_gmtoff;
  const std::time_t t = timegm(&tm) - offset;
  std::tm utc{};
  if (gmtime_r(&t, &utc) == nullptr) return std::nullopt;
  char buf[32];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0) return std::nullopt;
  return std::pair{std::string(buf), static_cast<std::int64_t>(t)};
}

RtTestsHeader read_rt_tests_header(const json& j, const std::string& file) {
  RtTestsHeader h;
  h.cmdline = text_of(either(j, "cmdline:", "cmdline"), file + ": cmdline");
  h.args = split_command(h.cmdline);
  h.program = rt_tests_program(j);
  if (!h.args.empty()) h.args.erase(h.args.begin());
  h.version = text_of(either(j, "rt_test_version:", "rt_test_version"), file + ": rt_test_version");
  const auto start = rfc2822_to_rfc3339(text_of(optional_member(j, "start_time"), file));
  const auto end = rfc2822_to_rfc3339(text_of(optional_member(j, "end_time"), file));
  if (start) h.started_at = start->first;
  if (end) h.finished_at = end->first;
  if (start && end && end->second >= start->second) {
    h.wall_s = static_cast<double>(end->second - start->second);
  }
  if (const json* rc = optional_member(j, "return_code")) {
    h.return_code = static_cast<int>(integer(*rc, file + ": return_code"));
  }
  const json& s = object(member(j, "sysinfo", file), file + ": sysinfo");
  Environment& e = h.environment;
  e.hostname = text_of(optional_member(s, "nodename"), file + ": sysinfo.nodename");
  e.kernel_release = text_of(optional_member(s, "release"), file + ": sysinfo.release");
  e.kernel_version = text_of(optional_member(s, "version"), file + ": sysinfo.version");
  e.machine = text_of(optional_member(s, "machine"), file + ": sysinfo.machine");
  if (const json* rt = optional_member(s, "realtime")) {
    e.realtime = integer(*rt, file + ": sysinfo.realtime") == 1;
  }
  e.preempt_model = preempt_from_uname(e.kernel_version, e.realtime);
  e.extra["preempt_source"] = "uname (imported)";
  return h;
}

RunReport rt_tests_report(const RtTestsHeader& h, const ImportInput& in, const std::string& suite,
                          const std::string& format, std::optional<double> duration_s) {
  RunReport r;
  r.tool_version = RTGATE_VERSION;
  r.started_at = h.started_at;
  r.finished_at = h.finished_at;
  r.environment = h.environment;
  r.options.runs = 1;
  if (duration_s) {
    r.options.duration_s = *duration_s;
    r.options.recorded = true;
  }
  SuiteResult s;
  s.name = suite;
  s.runs = 1;
  s.duration_s = h.wall_s > 0 ? h.wall_s : duration_s.value_or(0);
  if (h.return_code != 0) {
    s.status = SuiteStatus::kFailed;
    s.reason = h.program + " exited with return code " + std::to_string(h.return_code);
  }
  s.imported = ImportRecord{.tool = h.program,
                            .version = h.version,
                            .format = format,
                            .files = {in.name},
                            .commands = {h.cmdline},
                            .notes = {}};
  if (h.started_at.empty()) {
    s.imported->notes.push_back("the file's start time is missing or unreadable");
  }
  r.suites.push_back(std::move(s));
  return r;
}

std::map<std::uint64_t, const json*> threads_by_index(const json& j, const std::string& file,
                                                      const std::string& what) {
  const json& threads = object(member(j, "thread", file), file + ": thread");
  std::map<std::uint64_t, const json*> by_index;
  for (const auto& [k, t] : threads.items()) {
    const auto i = parse_whole(k);
    if (!i) throw ImportError(file + ": thread." + k + ": not a " + what + " number");
    by_index[static_cast<std::uint64_t>(*i)] = &object(t, file + ": thread." + k);
  }
  if (by_index.empty()) throw ImportError(file + ": no " + what + " results");
  return by_index;
}

}  // namespace rtgate::importers
