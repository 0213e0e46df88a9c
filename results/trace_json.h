// The trace evidence of a result in JSON (--trace): "analysis" and "causes" on a case, "trace" on
// a suite.
// Both are optional; results without them (untraced, or written before tracing existed) load as
// before. They are evidence, not measurements: the reader takes what it understands and never
// refuses a result for them, and the gate does not read them.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "results/report.h"

namespace rtgate {

nlohmann::ordered_json analyses_json(const std::vector<trace::SampleAnalysis>& analyses);
nlohmann::ordered_json trace_record_json(const TraceRecord& record);
nlohmann::ordered_json cause_profile_json(const trace::CauseProfile& profile);

std::vector<trace::SampleAnalysis> analyses_from(const nlohmann::json& j);
TraceRecord trace_record_from(const nlohmann::json& j);
trace::CauseProfile cause_profile_from(const nlohmann::json& j);

}  // namespace rtgate
