// --textfile DIR: the result as DIR/rtgate.prom for node_exporter's textfile collector
// (textfile.h), with the series --prom-buckets and --prom-cases choose.
#include "exporters/export_registry.h"
#include "exporters/prometheus/textfile.h"

namespace rtgate::prom {
namespace {

class TextfileExporter : public Exporter {
 public:
  TextfileExporter(std::string dir, SeriesOptions options)
      : dir_(std::move(dir)), options_(std::move(options)) {}

  ExportStatus write(const ExportInput& in) override {
    const std::string w = in.document == kHistoryDocument
                              ? write_history_textfile(dir_, *in.history)
                              : write_textfile(dir_, *in.report, in.gate, options_);
    return ExportStatus::from(w.empty() ? w : "--textfile: " + w);
  }

 private:
  std::string dir_;
  SeriesOptions options_;
};

}  // namespace
}  // namespace rtgate::prom

RTGATE_EXPORTER(
    {.name = "textfile",
     .options = {{"--textfile", "DIR",
                  "write DIR/rtgate.prom for node_exporter's textfile collector (atomically); a "
                  "history's verdicts go to DIR/rtgate_history.prom"}},
     .check = [](const rtgate::ExportValues& v) -> std::string {
       const std::string& dir = v.at("--textfile");
       if (dir.empty()) return "";
       const std::string w = rtgate::prom::check_textfile_dir(dir);
       return w.empty() ? w : "--textfile: " + w;
     },
     .make = [](const rtgate::ExportValues& v) -> std::unique_ptr<rtgate::Exporter> {
       if (v.at("--textfile").empty()) return nullptr;
       return std::make_unique<rtgate::prom::TextfileExporter>(v.at("--textfile"),
                                                               rtgate::prom::series_options(v));
     },
     .order = 30,
     .documents = rtgate::kResultDocument | rtgate::kHistoryDocument})
