// Times as results write them: RFC 3339 UTC with milliseconds ("2026-11-29T23:26:57.123Z").
#pragma once

#include <optional>
#include <string>

namespace rtgate::text {

// Unix seconds of an RFC 3339 UTC time, with its fraction; nullopt when it does not parse.
std::optional<double> unix_seconds(const std::string& rfc3339);

// Unix seconds as RFC 3339 UTC with milliseconds.
std::string rfc3339(double unix_s);

}  // namespace rtgate::text
