// Names from the kernel (a thread's comm, the host name, the command line, module names) are
// bytes, not text: any byte but NUL (and '/' in a comm) may be in them. Every format rtgate
// writes needs valid UTF-8, so such a name is made valid where it enters, keeping what it said.
#pragma once

#include <string>
#include <string_view>

namespace rtgate::text {

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool is_valid_utf8(std::string_view s);

// `s` with every byte that is not part of a well-formed sequence written as the four characters
// \xNN (lower-case hex), as `ps` and `cat -v` show such names; a valid string comes back
// unchanged.
std::string to_valid_utf8(std::string_view s);

// The same, and every control character (C0, DEL, C1) as \xNN too: a name from elsewhere (a file
// name, a comm) printed on a terminal can neither break a one-line message nor start an escape
// sequence. keep_lines: a table's newlines and tabs stay as they are.
std::string for_terminal(std::string_view s, bool keep_lines = false);

}  // namespace rtgate::text
