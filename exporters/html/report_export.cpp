// --report FILE: the self-contained HTML report (html_report.h), with the gate's verdicts and the
// baseline overlaid when a gate ran, and the host's trend charts when a history goes with it.
#include "base/io/output_file.h"
#include "exporters/export_registry.h"
#include "exporters/history_report.h"
#include "exporters/html/html_report.h"
#include "exporters/html/trend_section.h"

namespace rtgate {
namespace {

class HtmlExporter : public Exporter {
 public:
  explicit HtmlExporter(std::string path) : path_(std::move(path)) {}

  ExportStatus write(const ExportInput& in) override {
    if (in.report == nullptr) return ExportStatus::ok();
    const std::string trend =
        in.history == nullptr
            ? ""
            : html::trend_section(history_json(in.history->history, in.history->report));
    const std::string page = html::render_report(*in.report, in.baseline, in.gate, trend);
    const std::string w = write_output(path_, page);
    return ExportStatus::from(w.empty() ? w : "--report: " + w);
  }

 private:
  std::string path_;
};

}  // namespace
}  // namespace rtgate

RTGATE_EXPORTER(
    {.name = "report",
     .options = {{"--report", "FILE",
                  "write the HTML report (rtgate report's; with the verdicts when a gate ran)"}},
     .check =
         [](const rtgate::ExportValues& v) { return rtgate::check_output_option(v, "--report"); },
     .make = [](const rtgate::ExportValues& v) -> std::unique_ptr<rtgate::Exporter> {
       if (v.at("--report").empty()) return nullptr;
       return std::make_unique<rtgate::HtmlExporter>(v.at("--report"));
     },
     .order = 20})
