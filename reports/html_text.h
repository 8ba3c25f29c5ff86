#pragma once
// What every qdt HTML page and Markdown report shares: escaping, and the head
// and tail of one self-contained page (responsive CSS inline, no scripts, no
// external references), so that the sweep, mutants and replay pages look
// alike and none of them can be broken by a hostile name.
#include <string>

namespace qdt::reports {

std::string html_escape(const std::string& text);
std::string md_escape(const std::string& text);  // a Markdown table cell: | escaped

// <!DOCTYPE html> ... <body><main>, with `title` escaped.
std::string page_head(const std::string& title);
// </main></body></html>
std::string page_tail();

}  // namespace qdt::reports
