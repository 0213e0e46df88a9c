// The few Prometheus HTTP API calls a history needs (query_range and instant queries), each reply
// bounded by --max-input and parsed into series; every failure is one line naming the server.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/io/http_get.h"

namespace rtgate::gate {

using PromLabels = std::map<std::string, std::string>;

struct PromSeries {
  PromLabels labels;
  std::vector<std::pair<double, double>> points;  // (evaluation time, value)
};

// A label's value, "" when absent.
const std::string& label_of(const PromLabels& l, const std::string& name);

// Seconds with milliseconds, as the API takes times and steps.
std::string seconds_text(double s);

class PromClient {
 public:
  PromClient(std::string url, io::HttpAuth auth, long timeout_s);
  // query_range over [start, end] at `step`, appended to *out; "" or the one-line error.
  std::string range(const std::string& query, double start, double end, double step,
                    std::vector<PromSeries>* out) const;
  // An instant query at `time`, appended to *out.
  std::string at(const std::string& query, double time, std::vector<PromSeries>* out) const;

 private:
  std::string get(const std::string& url, const std::string& query,
                  std::vector<PromSeries>* out) const;

  std::string base_;
  io::HttpAuth auth_;
  long timeout_s_;
};

}  // namespace rtgate::gate
