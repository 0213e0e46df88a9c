#include "gate/noise/comparability.h"

#include <charconv>
#include <cmath>
#include <set>

#include "gate/noise/session_noise.h"
#include "results/load_spec.h"

namespace rtgate::gate {
namespace {

// The shortest text that reads back as the same double, so distinct values never print alike.
std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

// A recorded --load by its structure (results/load_spec.h): its canonical text, or the text as
// it stands when it does not parse (another tool's, or damaged), compared as it is.
std::string load_key(const std::string& recorded) {
  std::string why;
  const std::optional<load::LoadSpec> spec = load::parse_load_text(recorded, &why);
  return spec ? spec->text() : recorded;
}

std::string shown(const ParamValue& v) {
  struct Show {
    std::string operator()(std::int64_t x) const { return std::to_string(x); }
    std::string operator()(double x) const { return number(x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& x) const { return in_quotes(x); }
  };
  return std::visit(Show{}, v);
}

// An integer equals a double that holds exactly its value: files may carry either.
bool same_number(std::int64_t i, double d) {
  return std::isfinite(d) && std::trunc(d) == d && d >= -0x1p63 && d < 0x1p63 &&
         static_cast<std::int64_t>(d) == i;
}

bool same_value(const ParamValue& a, const ParamValue& b) {
  if (const auto* i = std::get_if<std::int64_t>(&a); i && std::holds_alternative<double>(b)) {
    return same_number(*i, std::get<double>(b));
  }
  if (const auto* i = std::get_if<std::int64_t>(&b); i && std::holds_alternative<double>(a)) {
    return same_number(*i, std::get<double>(a));
  }
  return a == b;
}

std::string change(const std::string& what, const std::string& b, const std::string& c) {
  return what + ": " + b + " -> " + c;
}

// "0.1.0" -> "0"; "" stays "" (unknown).
std::string major_of(const std::string& version) { return version.substr(0, version.find('.')); }

std::string or_empty(const std::string& s, const char* empty) {
  return s.empty() ? empty : in_quotes(s);
}

void option_differences(const RunOptionsRecord& b, const RunOptionsRecord& c,
                        std::vector<std::string>& out) {
  if (b.duration_s != c.duration_s) {
    out.push_back(change("duration_s", number(b.duration_s), number(c.duration_s)));
  }
  if (b.cpus != c.cpus) {
    out.push_back(
        change("cpus", or_empty(b.cpus, "(all allowed)"), or_empty(c.cpus, "(all allowed)")));
  }
  if (load_key(b.load) != load_key(c.load)) {
    out.push_back(change("load", or_empty(b.load, "(none)"), or_empty(c.load, "(none)")));
  }
}

std::vector<std::string> load_specs(const SuiteResult& s) {
  std::set<std::string> specs;
  for (const load::LoadReport& l : s.loads) specs.insert(load_key(l.spec));
  return {specs.begin(), specs.end()};
}

std::string joined(const std::vector<std::string>& specs) {
  if (specs.empty()) return "(none)";
  std::string out;
  for (const std::string& s : specs) out += (out.empty() ? "" : ", ") + in_quotes(s);
  return out;
}

// (what is compared, what is shown): the tool and its major version, and its full version.
std::pair<std::string, std::string> source_of(const SuiteResult& s) {
  if (!s.imported) return {"rtgate", "rtgate"};
  const ImportRecord& i = *s.imported;
  const std::string shown = i.tool + (i.version.empty() ? "" : " " + i.version) + " (imported)";
  return {i.tool + " " + major_of(i.version), shown};
}

}  // namespace

std::vector<std::string> suite_source_differences(const SuiteResult& base, const SuiteResult& cur) {
  const auto [b, b_shown] = source_of(base);
  const auto [c, c_shown] = source_of(cur);
  if (b == c) return {};
  return {change("measured by", in_quotes(b_shown), in_quotes(c_shown))};
}

std::vector<std::string> suite_param_differences(const SuiteResult& base, const SuiteResult& cur) {
  // One list by name, whichever side a parameter is on.
  std::set<std::string> names;
  for (const auto& [name, v] : base.params) names.insert(name);
  for (const auto& [name, v] : cur.params) names.insert(name);
  std::vector<std::string> out;
  for (const std::string& name : names) {
    const auto b = base.params.find(name), c = cur.params.find(name);
    const bool in_b = b != base.params.end(), in_c = c != cur.params.end();
    if (in_b && in_c && same_value(b->second, c->second)) continue;
    out.push_back(
        change(name, in_b ? shown(b->second) : "(absent)", in_c ? shown(c->second) : "(absent)"));
  }
  return out;
}

RunOptionsDiff run_option_differences(const RunReport& base, const RunReport& cur) {
  RunOptionsDiff d;
  if (base.schema != cur.schema) {
    d.differences.push_back(change("schema", in_quotes(base.schema), in_quotes(cur.schema)));
  }
  const std::string bm = major_of(base.tool_version), cm = major_of(cur.tool_version);
  if (bm.empty() || cm.empty()) {
    d.unknown = d.unknown || bm != cm;
  } else if (bm != cm) {
    d.differences.push_back(
        change("rtgate major version", in_quotes(base.tool_version), in_quotes(cur.tool_version)));
  }
  if (base.options.recorded && cur.options.recorded) {
    option_differences(base.options, cur.options, d.differences);
  } else {
    d.unknown = true;
  }
  return d;
}

std::vector<std::string> suite_load_differences(const SuiteResult& base, const SuiteResult& cur) {
  const std::vector<std::string> b = load_specs(base), c = load_specs(cur);
  if (b == c) return {};
  return {change("loads", joined(b), joined(c))};
}

std::string history_mismatch(const RunReport& stored, const RunReport& cur) {
  if (stored.environment.hostname != cur.environment.hostname) {
    return "host " + stored.environment.hostname;
  }
  if (session_id(stored) == session_id(cur)) return "the current session itself";
  for (const SuiteResult& cs : cur.suites) {
    const SuiteResult* ss = stored.find(cs.name);
    if (ss == nullptr) return "no " + cs.name;
    std::vector<std::string> d = suite_source_differences(*ss, cs);
    for (std::string& l : suite_param_differences(*ss, cs)) d.push_back(std::move(l));
    for (std::string& l : suite_load_differences(*ss, cs)) d.push_back(std::move(l));
    if (!d.empty()) return cs.name + " " + d.front();
  }
  const RunOptionsDiff o = run_option_differences(stored, cur);
  if (!o.differences.empty()) return o.differences.front();
  return "";
}

}  // namespace rtgate::gate
