#include "tests/integration/result_json.h"

#include <fstream>

namespace rtgate::test {

nlohmann::json load_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in);
}

nlohmann::json run_json(const std::vector<std::string>& args, int expect_exit, ProcessOptions opt) {
  TempDir dir;
  std::vector<std::string> full = args;
  full.insert(full.end(), {"--no-progress", "-o", dir.file("r.json")});
  const ProcessResult r = run_rtgate(full, opt);
  EXPECT_EQ(r.exit_code, expect_exit) << r.out << r.err;
  return load_json(dir.file("r.json"));
}

namespace {

const nlohmann::json& placeholder() {
  static const nlohmann::json none = {{"name", "(missing)"},
                                      {"labels", nlohmann::json::object()},
                                      {"metrics", nlohmann::json::array()},
                                      {"summary",
                                       {{"count", 0},
                                        {"min", 0},
                                        {"mean", 0},
                                        {"p50", 0},
                                        {"p90", 0},
                                        {"p99", 0},
                                        {"p999", 0},
                                        {"max", 0}}},
                                      {"samples", {0}}};
  return none;
}

// The member of `parent`'s array `key` whose "name" is `name`, or the placeholder.
const nlohmann::json& named(const nlohmann::json& parent, const char* key,
                            const std::string& name) {
  const auto list = parent.find(key);
  if (list == parent.end() || !list->is_array()) return placeholder();
  for (const auto& x : *list) {
    const auto n = x.find("name");
    if (n != x.end() && *n == name) return x;
  }
  return placeholder();
}

}  // namespace

const nlohmann::json& case_named(const nlohmann::json& suite, const std::string& name) {
  const nlohmann::json& c = named(suite, "cases", name);
  if (&c == &placeholder()) ADD_FAILURE() << "no case " << name;
  return c;
}

const nlohmann::json& metric_named(const nlohmann::json& c, const std::string& name) {
  const nlohmann::json& m = named(c, "metrics", name);
  if (&m == &placeholder())
    ADD_FAILURE() << "no metric " << name << " in " << (c.contains("name") ? c["name"].dump() : "");
  return m;
}

double count_value(const nlohmann::json& c, const std::string& name) {
  return metric_named(c, name)["samples"][0].get<double>();
}

}  // namespace rtgate::test
