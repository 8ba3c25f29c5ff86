// libFuzzer harness: the renderers on hostile names. The input is split at
// 0x01 bytes into strings that take the place of every name a page or a chart
// shows (scenario, step ids, partitions, keys, details, chart titles and tick
// labels). Each string is prefixed with "<qdtfuzz", so a string that reached
// a page unescaped shows as that tag; the gnuplot script must hold no byte
// that gnuplot's command line acts on (` @ $), and the data file no row a
// name added.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/gnuplot.h"
#include "reports/html_page.h"
#include "reports/replay_report.h"
#include "sim/fuzz/fuzz_contract.h"

namespace {

using json = nlohmann::json;
using qdt::fuzz::contract_broken;

constexpr const char* kSentinel = "<qdtfuzz";

std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at = 0; at <= text.size() && out.size() < 16; ++at) {
    if (at == text.size() || text[at] == '\x01') {
      out.push_back(kSentinel + text.substr(start, at - start));
      start = at + 1;
    }
  }
  return out;
}

// A timeline document (sim/scenario/timeline.h) whose every shown string is a piece.
json timeline(const std::vector<std::string>& s) {
  const auto at = [&](size_t i) { return s[i % s.size()]; };
  json step = {{"id", at(0)}, {"path", "/steps/0"}, {"depth", 0}, {"op", "push"}, {"summary", at(1)},
               {"started_ms", 0}, {"ended_ms", 5}, {"answer", at(2)}, {"faults", {at(3)}},
               {"responses", {{{"index", 0}, {"status", "queued"}, {"message_id", at(4)}, {"transaction_id", at(5)}}}},
               {"highlighted", true}};
  json event = {{"index", 0}, {"kind", "push"}, {"at_ms", 2}, {"partition", at(6)}, {"step", at(0)},
                {"summary", at(7)}, {"answer", at(8)}, {"model", at(9)}, {"agrees", false}, {"highlighted", true},
                {"in_failing_partition", true}};
  json failure = {{"kind", "property"}, {"property", at(10)}, {"step", at(0)}, {"partition", at(6)},
                  {"detail", at(11)}, {"events", {0}}};
  json answer = {{"step", at(0)}, {"request", 1}, {"item", 0}, {"partition", at(6)}, {"transaction_id", at(5)},
                 {"got_status", "duplicate"}, {"got_message_id", at(4)}, {"model_statuses", {"queued"}},
                 {"model_message_ids", json::array()}, {"model_on_arrival", at(12)}, {"because", at(13)},
                 {"agrees", false}, {"highlighted", true}};
  return {{"kind", "qdt-timeline"}, {"scenario", at(14)}, {"description", at(15)}, {"file", at(14)}, {"seed", 1},
          {"variant", "none"}, {"passed", false}, {"trace_hash", "00"}, {"commit", "c"}, {"command", at(14)},
          {"virtual_duration_ms", 5}, {"failures", {failure}}, {"steps", {step}}, {"events", {event}},
          {"offsets", {{{"partition", at(6)}, {"points", {{{"at_ms", 2}, {"offset", 0}, {"kind", "stored"},
                                                          {"step", at(0)}}}}}}},
          {"model_answers", {answer}}};
}

void check_html(const std::string& page) {
  if (page.find(kSentinel) != std::string::npos) contract_broken("a name reached the page unescaped", page.substr(0, 200));
  if (page.find("<script") != std::string::npos) contract_broken("a <script> on the page", "");
  if (page.find('\0') != std::string::npos) contract_broken("a NUL on the page", "");
}

void check_chart(const std::vector<std::string>& s) {
  qdt::reports::Chart chart{s[0], s[1 % s.size()], s[2 % s.size()]};
  chart.categorical_x = true;
  chart.legend_title = s[3 % s.size()];
  for (size_t i = 0; i < s.size(); ++i) {
    chart.series.push_back({s[i], {{0, s[(i + 1) % s.size()], 1, 0, 2}, {1, s[(i + 2) % s.size()], 2, 1, 3}}});
  }
  const std::string script = qdt::reports::gnuplot_script({chart});
  for (const char c : {'`', '@', '$', '\0'}) {
    if (script.find(c) != std::string::npos) contract_broken("a byte gnuplot acts on in the script", std::string(1, c));
  }
  const std::string data = qdt::reports::gnuplot_data(chart);
  size_t lines = 0;
  for (const char c : data) lines += c == '\n' ? 1 : 0;
  // Per series a comment and two rows, and a blank pair before every series but the first.
  if (lines != 3 * chart.series.size() + 2 * (chart.series.size() - 1)) contract_broken("a name added rows", data);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> s = pieces(text);
  for (const std::string& piece : s) {
    const std::string escaped = qdt::reports::html_escape(piece);
    if (escaped.find_first_of("<>\"'") != std::string::npos) contract_broken("html_escape left markup", escaped);
    const std::string cell = qdt::reports::md_escape(piece);
    if (cell.find('\n') != std::string::npos) contract_broken("md_escape left a newline", cell);
  }
  check_html(qdt::reports::replay_html(timeline(s), "/nonexistent/gnuplot"));
  check_chart(s);
  return 0;
}
