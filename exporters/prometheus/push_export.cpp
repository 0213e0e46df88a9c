// --push URL: the result to a Prometheus Pushgateway (pushgateway.h), one group per suite. A
// failed push is a warning, or exit 4 with --push-required; the local outputs are written first.
#include "exporters/export_registry.h"
#include "exporters/prometheus/pushgateway.h"

namespace rtgate::prom {
namespace {

class PushExporter : public Exporter {
 public:
  PushExporter(std::string url, PushTarget target, SeriesOptions series, bool required)
      : url_(std::move(url)),
        target_(std::move(target)),
        series_(std::move(series)),
        required_(required) {}

  ExportStatus write(const ExportInput& in) override {
    const std::string w = in.document == kHistoryDocument
                              ? push_history(target_, *in.history)
                              : push_report(target_, *in.report, in.gate, {}, series_);
    if (w.empty()) return ExportStatus::ok();
    return {required_ ? ExportStatus::Level::kEnvironment : ExportStatus::Level::kWarning,
            "push to " + url_ + " failed: " + w};
  }

 private:
  std::string url_;
  PushTarget target_;
  SeriesOptions series_;
  bool required_;
};

}  // namespace
}  // namespace rtgate::prom

RTGATE_EXPORTER(
    {.name = "push",
     .options = {{"--push", "URL",
                  "push the result to a Prometheus Pushgateway, http://HOST[:PORT] (one group per "
                  "suite: job=rtgate, instance=HOST, suite); a history's verdicts go to "
                  "job=rtgate_history, instance=HOST"},
                 {"--push-required", "",
                  "exit 4 when the push fails (default: warn; the other outputs are written "
                  "either way)"}},
     .check = [](const rtgate::ExportValues& v) -> std::string {
       if (v.at("--push").empty()) {
         return v.at("--push-required").empty() ? "" : "--push-required needs --push URL";
       }
       std::string why;
       return rtgate::prom::parse_push_url(v.at("--push"), &why) ? "" : "--push: " + why;
     },
     .make = [](const rtgate::ExportValues& v) -> std::unique_ptr<rtgate::Exporter> {
       if (v.at("--push").empty()) return nullptr;
       std::string why;
       auto target = rtgate::prom::parse_push_url(v.at("--push"), &why);
       if (!target) return nullptr;  // check() refused it before anything ran
       return std::make_unique<rtgate::prom::PushExporter>(v.at("--push"), *target,
                                                           rtgate::prom::series_options(v),
                                                           !v.at("--push-required").empty());
     },
     .order = 100,
     .documents = rtgate::kResultDocument | rtgate::kHistoryDocument})
