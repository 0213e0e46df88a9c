// --format table (the default): the tables people read on a terminal. The gate's verdicts
// (gate_table.h), a board's history (history_report.h) and a host's calibration
// (calibration_table.h).
#include "base/text/utf8.h"
#include "exporters/calibration_table.h"
#include "exporters/export_registry.h"
#include "exporters/gate_table.h"
#include "exporters/history_report.h"

namespace rtgate {
namespace {

void write_history(const HistoryDocument& h, std::FILE* out) {
  std::fputs(text::for_terminal(render_history_table(h.history, h.report), true).c_str(), out);
  if (h.not_results > 0) {
    std::fprintf(out, "(%d files under the directories were not results and were skipped)\n",
                 h.not_results);
  }
}

void write_calibration(const CalibrationDocument& c, std::FILE* out) {
  if (c.noise != nullptr) {
    std::fputs(
        text::for_terminal(render_calibration(*c.noise, *c.defaults, *c.options), true).c_str(),
        out);
  }
  if (c.sessions != nullptr) {
    std::fputs(
        text::for_terminal(render_session_noise(*c.sessions, c.session_count, c.sessions_dir), true)
            .c_str(),
        out);
  }
}

class TableExporter : public Exporter {
 public:
  ExportStatus write(const ExportInput& in) override {
    if (in.document == kVerdictsDocument && in.gate != nullptr) {
      write_gate_table(*in.gate, TableFormat::kTable, in.out);
    } else if (in.document == kHistoryDocument && in.history != nullptr) {
      write_history(*in.history, in.out);
    } else if (in.document == kCalibrationDocument && in.calibration != nullptr) {
      write_calibration(*in.calibration, in.out);
    }
    return ExportStatus::ok();
  }
};

}  // namespace
}  // namespace rtgate

RTGATE_EXPORTER({.name = "table",
                 .make = [](const rtgate::ExportValues&) -> std::unique_ptr<rtgate::Exporter> {
                   return std::make_unique<rtgate::TableExporter>();
                 },
                 .order = -3,
                 .documents = rtgate::kVerdictsDocument | rtgate::kHistoryDocument |
                              rtgate::kCalibrationDocument,
                 .format = "table"})
