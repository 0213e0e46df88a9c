// `rtgate report` rendered in a real browser (Debian's chromium, headless): a cyclic +
// lock.latency result gated against a baseline measured without load. In a copy of the page
// with a checking script appended, Chromium must load nothing (no resource entries, DNS mapped
// to nowhere), log no console message (a script error or a CSP refusal is one), draw every
// chart's data (each SVG element that carries data points has a non-empty bounding box once
// every section is open), and the page's own buttons must collapse and expand every section.
// The report itself is screenshotted to <build>/report_screenshot.png for people to look at.
// Skips, saying why, without chromium or SCHED_FIFO.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

// Runs a shell command; returns its stdout (stderr goes to `err_path`).
std::string shell(const std::string& cmd, const std::string& err_path, int* status) {
  std::string out;
  FILE* p = popen((cmd + " 2>'" + err_path + "'").c_str(), "r");
  if (p == nullptr) return out;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  *status = pclose(p);
  return out;
}

std::string chromium_flags() {
  // --no-sandbox: the tests run as root, which Chromium's sandbox refuses. The resolver rule
  // sends every host name nowhere: a page that needed the network could not get it.
  return "chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
         "--no-first-run --disable-background-networking --disable-extensions "
         "--host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 ";
}

// Appended to a copy of the report: records errors from the start, then opens every section,
// measures every chart, exercises the expand/collapse buttons, and leaves its findings as JSON
// in <pre id="rtgate-check">.
constexpr const char* kErrorHook =
    "<script>window.__errors=[];window.addEventListener('error',function(e){"
    "window.__errors.push(String(e.message));});</script>";
constexpr const char* kCheck = R"(<script>
(function () {
  var out = {charts: 0, with_points: 0, empty: [], resources: 0, errors: window.__errors,
             collapse_ok: false, expand_ok: false};
  var all = function () { return [].slice.call(document.querySelectorAll('details')); };
  document.querySelector('button[data-open="0"]').click();
  out.collapse_ok = all().every(function (d) { return !d.open; });
  document.querySelector('button[data-open="1"]').click();
  out.expand_ok = all().every(function (d) { return d.open; });
  [].slice.call(document.querySelectorAll('svg.chart')).forEach(function (svg) {
    out.charts++;
    var points = 0, drawn = 0;
    [].slice.call(svg.querySelectorAll('[data-points]')).forEach(function (el) {
      points += Number(el.getAttribute('data-points'));
      var b = el.getBBox();
      if (b.width > 0 || b.height > 0) drawn++;
    });
    if (points > 0 && drawn > 0) out.with_points++;
    else out.empty.push(svg.querySelector('text.t').textContent);
  });
  out.resources = performance.getEntriesByType('resource').length;
  var pre = document.createElement('pre');
  pre.id = 'rtgate-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>)";

class ReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "chromium is not installed (Debian package chromium; ci/setup.sh "
                      "installs it)";
    }
    if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(ReportBrowser, ACyclicAndLockLatencyReportLoadsOfflineWithoutErrorsAndDrawsEveryChart) {
  const TempDir dir;
  const std::vector<std::string> sel = {
      "run",    "cyclic", "lock.latency",  "--duration", "1",
      "--runs", "2",      "--no-progress", "-p",         "locks=pi_mutex,pthread_mutex"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = sel;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const ProcessResult base = run_rtgate(with({"-o", dir.file("base.json")}));
  ASSERT_EQ(base.exit_code, 0) << base.err;
  // The current side under load (a CPU hog on each CPU): something for the overlay to show.
  const ProcessResult cur = run_rtgate(with({"--load", "cpu:2", "-o", dir.file("cur.json")}));
  ASSERT_EQ(cur.exit_code, 0) << cur.err;
  const std::string report = dir.file("report.html");
  const ProcessResult r = run_rtgate(
      {"report", dir.file("cur.json"), "--baseline", dir.file("base.json"), "-o", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::string page = read_all(report);
  const std::size_t head = page.find("<meta charset=\"utf-8\">");
  const std::size_t body = page.rfind("</body>");
  ASSERT_NE(head, std::string::npos);
  ASSERT_NE(body, std::string::npos);
  page.insert(body, kCheck);
  page.insert(head + 22, kErrorHook);
  write_all(dir.file("check.html"), page);

  int status = -1;
  const std::string dom =
      shell(chromium_flags() + "--virtual-time-budget=10000 --dump-dom 'file://" +
                dir.file("check.html") + "'",
            dir.file("chromium.err"), &status);
  ASSERT_EQ(status, 0) << read_all(dir.file("chromium.err"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("<pre id=\"rtgate-check\">([^<]*)</pre>")))
      << "the check script did not run: " << dom.substr(0, 400);
  const std::string text = std::regex_replace(std::string(m[1]), std::regex("&amp;"), "&");
  const nlohmann::json check = nlohmann::json::parse(text);
  std::printf("chromium: %s\n", check.dump().c_str());
  // cyclic: 2 CPUs, lock.latency: 2 locks x 3 latency metrics; a histogram and a per-run chart
  // each: 16 charts.
  EXPECT_EQ(check["charts"], 16);
  EXPECT_EQ(check["with_points"], check["charts"]) << check["empty"].dump();
  EXPECT_EQ(check["resources"], 0) << "the page loaded something";
  EXPECT_TRUE(check["errors"].empty()) << check["errors"].dump();
  EXPECT_TRUE(check["collapse_ok"]);
  EXPECT_TRUE(check["expand_ok"]);
  // Console messages (script errors, CSP refusals) are logged as CONSOLE lines.
  const std::string log = read_all(dir.file("chromium.err"));
  EXPECT_EQ(log.find("CONSOLE"), std::string::npos) << log;

  // The screenshot people look at: the report as written, its sections as the page opens them.
  const std::string png = std::string(RTGATE_BUILD_DIR) + "/report_screenshot.png";
  std::filesystem::remove(png);
  shell(chromium_flags() + "--window-size=1280,5000 --screenshot='" + png + "' 'file://" + report +
            "'",
        dir.file("shot.err"), &status);
  ASSERT_EQ(status, 0) << read_all(dir.file("shot.err"));
  ASSERT_TRUE(std::filesystem::exists(png));
  // A blank 1280 x 5000 PNG compresses to a few kB; a page of tables and charts does not.
  EXPECT_GT(std::filesystem::file_size(png), 50'000u);
  std::filesystem::copy_file(report, std::string(RTGATE_BUILD_DIR) + "/report_screenshot.html",
                             std::filesystem::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace rtgate::test
