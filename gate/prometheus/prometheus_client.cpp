#include "gate/prometheus/prometheus_client.h"

#include <nlohmann/json.hpp>

#include "base/io/input_limit.h"

namespace rtgate::gate {
namespace {

// One reply's series (a matrix, or an instant vector), or none and *error.
std::vector<PromSeries> parse_reply(const std::string& body, const std::string& query,
                                    std::string* error) {
  std::vector<PromSeries> out;
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "Prometheus' reply to " + query + " is not JSON";
    return out;
  }
  if (doc.value("status", "") != "success") {
    *error = "Prometheus refused " + query + ": " + doc.value("errorType", "") + ": " +
             doc.value("error", "");
    return out;
  }
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_object() || !data->contains("result")) return out;
  const nlohmann::json& result = (*data)["result"];
  if (!result.is_array()) return out;
  for (const nlohmann::json& r : result) {
    if (!r.is_object()) continue;
    PromSeries s;
    if (const auto m = r.find("metric"); m != r.end() && m->is_object()) {
      for (const auto& [k, v] : m->items()) {
        if (v.is_string()) s.labels[k] = v.get<std::string>();
      }
    }
    // A matrix's "values", or an instant vector's one "value".
    const nlohmann::json values = r.contains("values")
                                      ? r["values"]
                                      : nlohmann::json::array({r.value("value", nlohmann::json())});
    for (const nlohmann::json& p : values) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string()) continue;
      s.points.emplace_back(p[0].get<double>(),
                            std::strtod(p[1].get<std::string>().c_str(), nullptr));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

const std::string& label_of(const PromLabels& l, const std::string& name) {
  static const std::string none;
  const auto it = l.find(name);
  return it == l.end() ? none : it->second;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

PromClient::PromClient(std::string url, io::HttpAuth auth, long timeout_s)
    : base_(std::move(url)), auth_(std::move(auth)), timeout_s_(timeout_s) {
  while (!base_.empty() && base_.back() == '/') base_.pop_back();
}

std::string PromClient::range(const std::string& query, double start, double end, double step,
                              std::vector<PromSeries>* out) const {
  return get(base_ + "/api/v1/query_range?query=" + io::url_encode(query) + "&start=" +
                 seconds_text(start) + "&end=" + seconds_text(end) + "&step=" + seconds_text(step),
             query, out);
}

std::string PromClient::at(const std::string& query, double time,
                           std::vector<PromSeries>* out) const {
  return get(base_ + "/api/v1/query?query=" + io::url_encode(query) + "&time=" + seconds_text(time),
             query, out);
}

std::string PromClient::get(const std::string& url, const std::string& query,
                            std::vector<PromSeries>* out) const {
  std::string why;
  const auto reply = io::http_get(url, auth_, io::max_input_bytes(), timeout_s_, &why);
  if (!reply) return "Prometheus at " + base_ + ": " + why;
  if (reply->status == 401 || reply->status == 403) {
    return "Prometheus at " + base_ + ": HTTP " + std::to_string(reply->status) +
           " (the credentials were refused: --prometheus-bearer-file, --prometheus-basic-file)";
  }
  std::string error;
  std::vector<PromSeries> got = parse_reply(reply->body, query, &error);
  if (!error.empty()) return error + " (HTTP " + std::to_string(reply->status) + ")";
  if (reply->status != 200)
    return "Prometheus at " + base_ + ": HTTP " + std::to_string(reply->status);
  for (PromSeries& s : got) out->push_back(std::move(s));
  return "";
}

}  // namespace rtgate::gate
