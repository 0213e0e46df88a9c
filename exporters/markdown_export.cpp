// --format markdown: the gate's verdicts as a markdown table, for a merge request's comment.
#include "exporters/export_registry.h"
#include "exporters/gate_table.h"

namespace rtgate {
namespace {

class MarkdownExporter : public Exporter {
 public:
  ExportStatus write(const ExportInput& in) override {
    if (in.gate != nullptr) write_gate_table(*in.gate, TableFormat::kMarkdown, in.out);
    return ExportStatus::ok();
  }
};

}  // namespace
}  // namespace rtgate

RTGATE_EXPORTER({.name = "markdown",
                 .make = [](const rtgate::ExportValues&) -> std::unique_ptr<rtgate::Exporter> {
                   return std::make_unique<rtgate::MarkdownExporter>();
                 },
                 .order = -2,
                 .documents = rtgate::kVerdictsDocument,
                 .format = "markdown"})
