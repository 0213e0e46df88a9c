// --junit FILE: JUnit XML (Ant schema) of the result: a testcase per case and metric, or, when a
// gate ran, per metric verdict with the evidence (junit_exporter.h).
#include "base/io/output_file.h"
#include "exporters/export_registry.h"
#include "exporters/junit_exporter.h"

namespace rtgate {
namespace {

class JunitExporter : public Exporter {
 public:
  explicit JunitExporter(std::string path) : path_(std::move(path)) {}

  ExportStatus write(const ExportInput& in) override {
    if (in.report == nullptr) return ExportStatus::ok();
    const std::vector<JunitSuite> suites =
        in.gate != nullptr ? junit_from_gate(*in.gate, *in.report, in.fail_on_inconclusive)
                           : junit_from_run(*in.report);
    const std::string w = write_output(path_, render_junit(suites));
    return ExportStatus::from(w.empty() ? w : "--junit: " + w);
  }

 private:
  std::string path_;
};

}  // namespace
}  // namespace rtgate

RTGATE_EXPORTER(
    {.name = "junit",
     .options =
         {{"--junit", "FILE",
           "write JUnit XML: a testcase per case and metric, or per verdict when a gate ran"}},
     .check =
         [](const rtgate::ExportValues& v) { return rtgate::check_output_option(v, "--junit"); },
     .make = [](const rtgate::ExportValues& v) -> std::unique_ptr<rtgate::Exporter> {
       if (v.at("--junit").empty()) return nullptr;
       return std::make_unique<rtgate::JunitExporter>(v.at("--junit"));
     },
     .order = 10,
     .documents = rtgate::kResultDocument | rtgate::kVerdictsDocument})
