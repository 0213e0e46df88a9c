// --html FILE on `rtgate history`: the board's trend charts as a self-contained HTML page
// (trend_section.h), from the history's JSON document.
#include "base/io/output_file.h"
#include "exporters/export_registry.h"
#include "exporters/history_report.h"
#include "exporters/html/trend_section.h"

namespace rtgate {
namespace {

class HistoryPageExporter : public Exporter {
 public:
  explicit HistoryPageExporter(std::string path) : path_(std::move(path)) {}

  ExportStatus write(const ExportInput& in) override {
    if (in.history == nullptr) return ExportStatus::ok();
    const std::string page =
        html::render_history_page(history_json(in.history->history, in.history->report));
    const std::string w = write_output(path_, page);
    return ExportStatus::from(w.empty() ? w : "--html: " + w);
  }

 private:
  std::string path_;
};

}  // namespace
}  // namespace rtgate

RTGATE_EXPORTER({.name = "history-page",
                 .options = {{"--html", "FILE", "also write the trend charts as an HTML page"}},
                 .check =
                     [](const rtgate::ExportValues& v) {
                       return rtgate::check_output_option(v, "--html");
                     },
                 .make = [](const rtgate::ExportValues& v) -> std::unique_ptr<rtgate::Exporter> {
                   if (v.at("--html").empty()) return nullptr;
                   return std::make_unique<rtgate::HistoryPageExporter>(v.at("--html"));
                 },
                 .order = 20,
                 .documents = rtgate::kHistoryDocument})
