// --format json: the gate's verdicts (gate_table.h's gate_json) or a board's history
// ("rtgate.history/1", history_report.h) for machines, streamed as they are made.
#include <iomanip>

#include "base/io/file_ostream.h"
#include "exporters/export_registry.h"
#include "exporters/gate_table.h"
#include "exporters/history_report.h"

namespace rtgate {
namespace {

// Every series' values are in the history's JSON: written through a stream, never whole.
void write_history_json(const HistoryDocument& h, std::FILE* out) {
  FileOStream os(out);
  os << std::setw(2) << history_json(h.history, h.report) << '\n' << std::flush;
}

class JsonExporter : public Exporter {
 public:
  ExportStatus write(const ExportInput& in) override {
    if (in.document == kVerdictsDocument && in.gate != nullptr) {
      write_gate_json(*in.gate, in.out);
    } else if (in.document == kHistoryDocument && in.history != nullptr) {
      write_history_json(*in.history, in.out);
    }
    return ExportStatus::ok();
  }
};

}  // namespace
}  // namespace rtgate

RTGATE_EXPORTER({.name = "json",
                 .make = [](const rtgate::ExportValues&) -> std::unique_ptr<rtgate::Exporter> {
                   return std::make_unique<rtgate::JsonExporter>();
                 },
                 .order = -1,
                 .documents = rtgate::kVerdictsDocument | rtgate::kHistoryDocument,
                 .format = "json"})
