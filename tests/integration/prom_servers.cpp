#include "tests/integration/prom_servers.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace rtgate::test {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What a shell command prints on stdout.
std::string stdout_of(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  if (pipe) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0) out.append(buf, n);
  }
  return out;
}

bool wait_ready(const std::string& url, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    http_get(url, &status);
    if (status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace

LoopbackListener::LoopbackListener() : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd_, 1) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd_ >= 0) close(fd_);
    throw std::runtime_error("no free loopback port");
  }
  port_ = ntohs(addr.sin_port);
}

LoopbackListener::~LoopbackListener() { close(fd_); }

int free_loopback_port() { return LoopbackListener().port(); }

std::vector<int> free_loopback_ports(std::size_t n, const std::vector<int>& taken) {
  std::vector<std::unique_ptr<LoopbackListener>> open;
  std::vector<int> ports;
  while (ports.size() < n) {
    auto l = std::make_unique<LoopbackListener>();
    if (std::find(taken.begin(), taken.end(), l->port()) == taken.end()) {
      ports.push_back(l->port());
    }
    open.push_back(std::move(l));  // held, so the kernel cannot hand its port out again
  }
  return ports;
}

double sample_value(const nlohmann::json& sample) {
  return std::stod(sample["value"][1].get<std::string>());
}

namespace {

// curl prints the body, then the status code on its own last line.
std::string curl_reply(const std::string& args, int* status) {
  const std::string out = stdout_of("curl -s -m 10 -w '\\n%{http_code}' " + args);
  const std::size_t nl = out.rfind('\n');
  const int code = nl == std::string::npos ? 0 : std::atoi(out.c_str() + nl + 1);
  if (status != nullptr) *status = code;
  return nl == std::string::npos ? "" : out.substr(0, nl);
}

}  // namespace

std::string http_get(const std::string& url, int* status) {
  return curl_reply(shell_quote(url), status);
}

std::string http_put(const std::string& url, const std::string& body_path, int* status) {
  return curl_reply("-X PUT --data-binary @" + shell_quote(body_path) + " " + shell_quote(url),
                    status);
}

Background::Background(const std::vector<std::string>& argv, const std::string& log_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
}

Background::~Background() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

std::string missing_prometheus_binaries() {
  for (const char* bin : {"prometheus", "prometheus-pushgateway", "promtool", "curl"}) {
    const std::string cmd = std::string("command -v ") + bin + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      return std::string(bin) +
             " is not installed (Debian packages prometheus, "
             "prometheus-pushgateway, curl; ci/setup.sh installs them)";
    }
  }
  return "";
}

PrometheusStack::PrometheusStack(int serve_port, const std::string& rule_file) {
  const std::vector<int> ports = free_loopback_ports(2, {serve_port});
  push_port_ = ports[0];
  prom_port_ = ports[1];
  pushgateway_ = std::make_unique<Background>(
      // Debian's build persists to /var/lib/prometheus/pushgateway.data by default: point it at
      // the temporary directory so no other run's groups load into this one.
      std::vector<std::string>{"prometheus-pushgateway",
                               "--web.listen-address=127.0.0.1:" + std::to_string(push_port_),
                               "--persistence.file=" + dir_.file("pushgateway.data")},
      dir_.file("pushgateway.log"));
  {
    std::ofstream cfg(dir_.file("prometheus.yml"));
    cfg << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        << "rule_files: ['" << rule_file << "']\n"
        << "scrape_configs:\n"
        << "  - job_name: pushgateway\n"
        << "    honor_labels: true\n"
        << "    static_configs: [{targets: ['127.0.0.1:" << push_port_ << "']}]\n"
        << "  - job_name: rtgate-serve\n"
        << "    static_configs: [{targets: ['127.0.0.1:" << serve_port << "']}]\n";
  }
  prometheus_ = std::make_unique<Background>(
      std::vector<std::string>{"prometheus", "--config.file=" + dir_.file("prometheus.yml"),
                               "--storage.tsdb.path=" + dir_.file("data"),
                               "--web.listen-address=127.0.0.1:" + std::to_string(prom_port_)},
      dir_.file("prometheus.log"));
  if (!wait_ready(pushgateway_url() + "/-/ready", 20) ||
      !wait_ready(prometheus_url() + "/-/ready", 30)) {
    std::ifstream log(dir_.file("prometheus.log"));
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    throw std::runtime_error("Prometheus or the Pushgateway did not start: " + text);
  }
}

PrometheusStack::~PrometheusStack() {
  prometheus_.reset();
  pushgateway_.reset();
}

std::string PrometheusStack::pushgateway_url() const {
  return "http://127.0.0.1:" + std::to_string(push_port_);
}

std::string PrometheusStack::prometheus_url() const {
  return "http://127.0.0.1:" + std::to_string(prom_port_);
}

nlohmann::json PrometheusStack::query(const std::string& promql) const {
  const std::string cmd = "curl -s -m 10 " + shell_quote(prometheus_url() + "/api/v1/query") +
                          " --data-urlencode " + shell_quote("query=" + promql);
  const std::string out = stdout_of(cmd);
  return nlohmann::json::parse(out, nullptr, false);
}

nlohmann::json PrometheusStack::vector(const std::string& promql) const {
  const nlohmann::json r = query(promql);
  if (r.is_discarded() || r.value("status", "") != "success") return nlohmann::json::array();
  return r["data"]["result"];
}

nlohmann::json PrometheusStack::wait_for(const std::string& promql, double timeout_s) const {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    nlohmann::json v = vector(promql);
    if (!v.empty() || std::chrono::steady_clock::now() > end) return v;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace rtgate::test
