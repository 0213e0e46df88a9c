// The readiness fixes against the kernel's own documentation: every fix `rtgate env` writes (over
// the fixture machines that need them) and every one docs/tuning.md shows. A boot parameter must
// be an entry of admin-guide/kernel-parameters.txt, and each word of its value must appear in
// that entry (isolcpus' managed_irq and domain, preempt's full). A sysctl must be a section of
// admin-guide/sysctl/*.rst or a /proc/sys path the documents name; kernel.timer_migration alone is
// registered by kernel/time/timer.c without a document, and must then exist on this machine.
// The documents come from Debian's linux-doc package (ci/kernel-docs.sh puts them in
// $RTGATE_KERNEL_DOC, else ~/.cache/rtgate/kernel-doc); the test skips without them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "base/io/proc_files.h"
#include "tests/unit/readiness_fixtures.h"

namespace rtgate::readiness {
namespace {

namespace fs = std::filesystem;

// A document's text, "" when unreadable.
std::string slurp(const fs::path& p) { return proc::read_file(p.string()).value_or(""); }

struct KernelDocs {
  std::string version;
  std::map<std::string, std::string> params;  // boot parameter -> its entry's text
  std::set<std::string> sysctls;              // "kernel.soft_watchdog"
};

// kernel-parameters.txt: an entry starts with one tab and the parameter's name ("\tisolcpus=",
// "\trcu_nocbs[=cpu-list]", "\tnosmt\t"); deeper-indented and empty lines continue it.
void read_params(const std::string& text, KernelDocs& docs) {
  static const std::regex entry(R"(^\t([A-Za-z0-9_.-]+))");
  std::istringstream in(text);
  std::string* current = nullptr;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.size() > 1 && line[1] != '\t' && std::regex_search(line, m, entry)) {
      current = &docs.params[m[1].str()];
    } else if (!line.empty() && line[0] != '\t') {
      current = nullptr;
    }
    if (current != nullptr) *current += line + "\n";
  }
}

// sysctl/<table>.rst: each sysctl is a section ("soft_watchdog" over a line of '=' or '-');
// any document may name one by its path ("/proc/sys/kernel/sched_rt_runtime_us").
void read_sysctls(const fs::path& file, const std::string& table, KernelDocs& docs) {
  const std::string text = slurp(file);
  std::istringstream in(text);
  std::string previous;
  for (std::string line; std::getline(in, line); previous = line) {
    const bool rule = line.size() >= 3 && line.find_first_not_of(line[0]) == std::string::npos &&
                      (line[0] == '=' || line[0] == '-');
    if (rule && !table.empty() && !previous.empty() && std::islower(previous[0])) {
      std::istringstream names(previous);  // "sched_rt_period_us, sched_rt_runtime_us" titles
      for (std::string n; std::getline(names, n, ',');) {
        n.erase(0, n.find_first_not_of(' '));
        docs.sysctls.insert(table + "." + n.substr(0, n.find(' ')));
      }
    }
  }
  static const std::regex path(R"(/proc/sys/([a-z]+)/([a-z_]+))");
  for (std::sregex_iterator m(text.begin(), text.end(), path), end; m != end; ++m) {
    docs.sysctls.insert((*m)[1].str() + "." + (*m)[2].str());
  }
}

std::optional<KernelDocs> load_docs() {
  const char* env = std::getenv("RTGATE_KERNEL_DOC");
  const char* home = std::getenv("HOME");
  const fs::path dir =
      env != nullptr ? fs::path(env)
                     : fs::path(home != nullptr ? home : "/root") / ".cache/rtgate/kernel-doc";
  std::error_code ec;
  if (!fs::is_regular_file(dir / "admin-guide/kernel-parameters.txt", ec)) return std::nullopt;
  KernelDocs docs;
  docs.version = slurp(dir / "VERSION");
  read_params(slurp(dir / "admin-guide/kernel-parameters.txt"), docs);
  for (const auto& e : fs::directory_iterator(dir / "admin-guide/sysctl", ec)) {
    read_sysctls(e.path(), e.path().stem().string(), docs);
  }
  read_sysctls(dir / "scheduler/sched-rt-group.rst", "", docs);
  return docs;
}

// Boot parameters of a fix: the words of "add A B to the kernel command line" and "(or A on the
// kernel command line)".
std::vector<std::string> boot_params_in(const std::string& fix) {
  static const std::regex phrase(R"((?:add |\(or )([^()]*?) (?:to|on) the kernel command line)");
  std::vector<std::string> out;
  for (std::sregex_iterator m(fix.begin(), fix.end(), phrase), end; m != end; ++m) {
    std::istringstream words((*m)[1].str());
    for (std::string w; words >> w;) out.push_back(w);
  }
  return out;
}

// Checks one boot parameter ("isolcpus=managed_irq,domain,2-3", "nosmt"); returns how many.
int check_param(const KernelDocs& docs, const std::string& param, const std::string& where) {
  const std::string name = param.substr(0, param.find('='));
  const auto it = docs.params.find(name);
  EXPECT_NE(it, docs.params.end()) << where << ": " << name << " is not in kernel-parameters.txt";
  if (it == docs.params.end() || name.size() == param.size()) return 1;
  std::istringstream values(param.substr(name.size() + 1));
  for (std::string v; std::getline(values, v, ',');) {
    const bool word = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!word) continue;  // a number, a CPU list, a placeholder
    EXPECT_NE(it->second.find(v), std::string::npos)
        << where << ": " << name << "'s entry does not document " << v;
  }
  return 1;
}

int check_sysctls(const KernelDocs& docs, const std::string& text, const std::string& where) {
  static const std::regex sysctl(R"(sysctl -w ([a-z_.]+)=)");
  int n = 0;
  for (std::sregex_iterator m(text.begin(), text.end(), sysctl), end; m != end; ++m, ++n) {
    const std::string name = (*m)[1].str();
    if (name == "kernel.timer_migration") {
      if (access("/proc/sys/kernel/timer_migration", F_OK) != 0) continue;  // !CONFIG_SMP
      EXPECT_EQ(access("/proc/sys/kernel/timer_migration", W_OK) == 0, geteuid() == 0) << where;
      continue;
    }
    EXPECT_TRUE(docs.sysctls.contains(name)) << where << ": " << name << " is not documented";
  }
  return n;
}

TEST(ReadinessDocs, EveryFixIsWhatTheKernelDocuments) {
  const std::optional<KernelDocs> docs = load_docs();
  if (!docs) GTEST_SKIP() << "no kernel documentation (ci/kernel-docs.sh fetches it)";
  ASSERT_GT(docs->params.size(), 500u) << docs->version;
  ASSERT_TRUE(docs->sysctls.contains("kernel.soft_watchdog")) << docs->version;
  int params = 0, sysctls = 0;
  for (const Finding& f : fixture::untuned_findings()) {
    for (const std::string& p : boot_params_in(f.fix)) params += check_param(*docs, p, f.item);
    sysctls += check_sysctls(*docs, f.fix, f.item);
  }
  EXPECT_GE(params, 8);
  EXPECT_GE(sysctls, 5);
}

// docs/tuning.md: the fixes in its code spans, and the command-line phrases of its example.
TEST(ReadinessDocs, EveryFixInTheTuningGuideIsWhatTheKernelDocuments) {
  const std::optional<KernelDocs> docs = load_docs();
  if (!docs) GTEST_SKIP() << "no kernel documentation (ci/kernel-docs.sh fetches it)";
  const std::string guide = slurp(fs::path(RTGATE_SOURCE_DIR) / "docs/tuning.md");
  ASSERT_FALSE(guide.empty());
  int params = 0;
  for (const std::string& p : boot_params_in(guide)) params += check_param(*docs, p, "example");
  // Outside the example (a fenced block), a span that is only boot parameters: `preempt=full`,
  // `nosmt`, `intel_idle.max_cstate=1 processor.max_cstate=1`.
  const std::string text = std::regex_replace(guide, std::regex("```[^`]*```"), "");
  static const std::regex span("`([^`\n]+)`");
  static const std::regex param(R"(^(no[a-z_]+|[a-z][a-z0-9_]*(\.[a-z0-9_]+)?=\S*)$)");
  for (std::sregex_iterator m(text.begin(), text.end(), span), end; m != end; ++m) {
    std::istringstream words((*m)[1].str());
    std::vector<std::string> ws;
    bool all = true;
    for (std::string w; words >> w;) {
      all = all && std::regex_match(w, param);
      ws.push_back(w);
    }
    if (!all || ws.empty()) continue;
    for (const std::string& w : ws) params += check_param(*docs, w, "docs/tuning.md");
  }
  const int sysctls = check_sysctls(*docs, guide, "docs/tuning.md");
  EXPECT_GE(params, 8);
  EXPECT_GE(sysctls, 5);
}

}  // namespace
}  // namespace rtgate::readiness
