#include "reports/html_text.h"

namespace qdt::reports {

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\";
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>" + html_escape(title) + "</title>\n<style>\n"
         "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;padding:1rem;"
         "color:#1a1a1a;background:#fff;line-height:1.45}\n"
         "main{max-width:1100px;margin:0 auto}\n"
         "h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}\n"
         "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0;"
         "overflow-wrap:anywhere}\n"
         "code{font-size:.9em;background:#f4f4f4;padding:0 .2em}\n"
         ".scroll{overflow-x:auto}\n"
         "table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}\n"
         "th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right;white-space:nowrap}th{background:#f4f4f4}\n"
         "td.left{text-align:left}td.wrap{white-space:normal;min-width:16rem}\n"
         ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,480px),1fr));gap:1rem}\n"
         "figure{margin:0}figure svg{width:100%;height:auto;display:block}figcaption{font-size:.85rem;color:#444}\n"
         ".note{background:#fff4d6;border:1px solid #e0c060;padding:.5rem}\n"
         ".fail{color:#a00000;font-weight:600}\n"
         "</style>\n</head>\n<body>\n<main>\n";
}

std::string page_tail() { return "</main>\n</body>\n</html>\n"; }

}  // namespace qdt::reports
