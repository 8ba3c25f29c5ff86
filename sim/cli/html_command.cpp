#include "sim/cli/html_command.h"

#include <iostream>
#include <optional>
#include <vector>

#include "reports/check_report.h"
#include "reports/replay_report.h"
#include "sim/base/output_file.h"
#include "sim/scenario/timeline.h"
#include "sim/world/pg_process.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

bool write_page(const std::string& path, const std::string& page) {
  std::string error;
  if (write_output_file(path, page, &error)) return true;
  std::cerr << "error: --html " << error << "\n";
  return false;
}

TimelineContext context_of(const std::string& command, const HtmlOutput& html) {
  TimelineContext c{command, std::nullopt};
  if (!html.commit.empty()) c.commit = html.commit;
  return c;
}

}  // namespace

bool write_replay_html(const Scenario& scenario, const RunOutcome& outcome, const std::string& command,
                       const HtmlOutput& html) {
  const json doc = timeline_document(scenario, outcome, context_of(command, html));
  return write_page(html.file, reports::replay_html(doc, html.gnuplot));
}

bool write_check_html(const json& summary, impl::Variant variant, const std::string& command,
                      const HtmlOutput& html) {
  std::vector<json> timelines;
  for (const json& f : summary["failures"]) {
    timelines.emplace_back();
    if (!f.contains("file") || f.contains("file_error")) continue;
    // The parent holds every worker's files once the shares are merged, so
    // this works the same for any --jobs.
    LoadResult loaded = load_scenario_file(f["file"].get<std::string>());
    if (!loaded.scenario) {
      for (const LoadError& e : loaded.errors) std::cerr << "warning: --html: " << e.to_string() << "\n";
      continue;
    }
    RunOptions options;
    options.variant = variant;
    // The failure is replayed on the engine it failed on, as its replay command says.
    if (f.value("replay", std::string()).find(" --storage postgres") != std::string::npos) {
      options.engine = StorageEngineKind::postgres;
      if (!pg_process_started()) {
        if (const auto problem = start_pg_process_problem({"", 1})) {
          std::cerr << "warning: --html: no timeline for " << f["file"].get<std::string>() << ": " << *problem << "\n";
          continue;
        }
      }
    }
    const RunOutcome outcome = run_scenario(*loaded.scenario, options);
    timelines.back() = timeline_document(*loaded.scenario, outcome,
                                         context_of(f.value("replay", std::string()), html));
  }
  return write_page(html.file, reports::check_html(summary, timelines, command, html.commit, html.gnuplot));
}

}  // namespace qdt::sim
