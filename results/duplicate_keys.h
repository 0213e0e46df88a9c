// A key given twice in one JSON object means two things to two readers (simdjson's ondemand
// find_field takes the first, a loop over the fields ends with the last): in a result from
// elsewhere it is refused before anything reads it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rtgate {

// The first key that appears twice in one object of `json` (as written, escapes included), or
// nullopt. One pass over the text, memory for the keys of the objects open at a time. Text that
// is not JSON is not judged here (nullopt): the parser says what is wrong with it.
std::optional<std::string> first_duplicate_key(std::string_view json);

}  // namespace rtgate
