#pragma once
// Text from an input file, shown to a person: no character that can change
// how the text around it is read. A name can carry C0 and C1 controls (an
// ANSI escape recolours or clears a terminal), bidirectional controls (U+202E
// shows "evil.json" spelt backwards, Trojan Source's trick), line and
// paragraph separators (U+2028, U+2029: a line break to some viewers and
// none to others) and bytes that are not UTF-8. Every destination's escaper
// (html_escape, md_escape, md_code in html_page.h, terminal_text here)
// neutralises them through neutral_text, the one place that lists them.
#include <string>
#include <string_view>

namespace qdt::reports {

// `text` with each such character (or invalid UTF-8 byte) replaced by U+FFFD,
// the replacement character, so that its presence stays visible. Tab, line
// feed and carriage return are kept when `keep_line_breaks`, else made spaces.
std::string neutral_text(std::string_view text, bool keep_line_breaks);

// One line for a terminal or a log: neutral_text without line breaks.
std::string terminal_text(std::string_view text);

}  // namespace qdt::reports
