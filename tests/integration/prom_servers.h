// Real Prometheus and Pushgateway servers for the integration tests: Debian's binaries, started on
// free loopback ports with temporary storage, stopped (SIGTERM) by the destructor. Tests that need
// them skip when the binaries are absent, saying so.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/integration/process.h"

namespace rtgate::test {

// A socket listening on 127.0.0.1 at a port the kernel chose; closed by the destructor.
class LoopbackListener {
 public:
  LoopbackListener();
  ~LoopbackListener();
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A port on 127.0.0.1 that was free a moment ago (a LoopbackListener's, then closed).
int free_loopback_port();
// `n` such ports, all different and none in `taken`: the listeners stay open until all are
// chosen. (Ports chosen one after the other can repeat: the kernel may hand a just-closed port
// out again, and two servers told the same port fail, or one scrape job reads another's target.)
std::vector<int> free_loopback_ports(std::size_t n, const std::vector<int>& taken = {});

// The value of one sample of a query's result vector ({"metric": ..., "value": [t, "v"]}).
double sample_value(const nlohmann::json& sample);

// GET (curl) `url`; returns the body, or "" on failure (*status gets the HTTP code, 0 if none).
std::string http_get(const std::string& url, int* status = nullptr);
// PUT (curl) the file at `body_path` to `url`; returns the reply body, *status as for http_get.
std::string http_put(const std::string& url, const std::string& body_path, int* status = nullptr);

// A child process that runs until the object dies (SIGTERM, then SIGKILL after 5 s).
class Background {
 public:
  Background(const std::vector<std::string>& argv, const std::string& log_path);
  ~Background();
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// "" when Debian's prometheus, prometheus-pushgateway and promtool are installed, else which is
// not.
std::string missing_prometheus_binaries();

class PrometheusStack {
 public:
  // Starts the Pushgateway, then Prometheus scraping it (honor_labels) and `serve_port` on
  // 127.0.0.1 every second, evaluating `rule_file` every second. Waits until both are ready.
  PrometheusStack(int serve_port, const std::string& rule_file);
  ~PrometheusStack();

  std::string pushgateway_url() const;  // http://127.0.0.1:PORT
  std::string prometheus_url() const;
  int prometheus_port() const { return prom_port_; }

  // An instant query; the parsed API response ({"status": ..., "data": {...}}).
  nlohmann::json query(const std::string& promql) const;
  // The query's result vector (empty on error or no data).
  nlohmann::json vector(const std::string& promql) const;
  // Polls `promql` until it returns data or `timeout_s` passes.
  nlohmann::json wait_for(const std::string& promql, double timeout_s = 20) const;

 private:
  TempDir dir_;
  int push_port_ = 0, prom_port_ = 0;
  std::unique_ptr<Background> pushgateway_, prometheus_;
};

}  // namespace rtgate::test
