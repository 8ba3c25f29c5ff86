#pragma once
// The frame every qdt HTML page shares (sweep, replay and campaign reports):
// escaping, and one stylesheet inlined in <head> that reflows from a phone to
// a wide screen. No scripts, no network, no external references — a page is
// one file a person can mail or attach to an incident.
#include <string>
#include <vector>

namespace qdt::reports {

// Text for an HTML element or a double- or single-quoted attribute; controls
// (NUL among them), bidirectional controls and line separators become U+FFFD
// (display_text.h), tab and line breaks stay.
std::string html_escape(const std::string& text);

// Text for Markdown, a table cell included, that renders as the text itself:
// one line (tab and line breaks made spaces, other controls, bidirectional
// controls and line separators U+FFFD as display_text.h says), no HTML
// (< as &lt;), and a backslash before every character that could end a cell
// or open a code span, emphasis, link, heading or strikethrough
// (\ ` * _ [ ] # | ~ &; not _ inside a word, which emphasises nothing), and
// before what would open a list, a quote or a setext heading at the start of
// a line ("-", "+", "=", ">", "1.", "1)").
std::string md_escape(const std::string& text);

// `text` as one Markdown code span, on one line (neutralised as md_escape's): fenced by one backtick more
// than the longest run inside it, so a name's backticks cannot end it.
std::string md_code(const std::string& text);

// From <!DOCTYPE html> to the opening <main>, titled `title` (escaped here).
std::string page_begin(const std::string& title);

// A table that scrolls sideways on a narrow screen: the opening tags up to
// <tbody> with one <th> per header (escaped), and the closing tags.
std::string table_begin(const std::vector<std::string>& headers);
std::string table_end();

// Closes what page_begin opened.
std::string page_end();

}  // namespace qdt::reports
