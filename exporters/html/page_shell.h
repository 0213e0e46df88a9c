// What every HTML page rtgate writes shares: the head, whose Content-Security-Policy lets the
// page load nothing (no script, style, image or font from anywhere but itself), the style sheet
// its charts and tables are drawn with, and the one inline script (expand/collapse all). The
// report (html_report.h) and the history page (trend_section.h) are built in this shell, so a
// chart looks the same in both.
#pragma once

#include <string>

namespace rtgate::html {

// From <!DOCTYPE html> to <body>, with `title` (text) as the page's title.
std::string page_head(const std::string& title);

// The buttons that open and close every <details> of the page (page_tail's script drives them).
std::string expand_buttons();

// The script, </body> and </html>.
std::string page_tail();

}  // namespace rtgate::html
