#include "sim/cli/mutants_command.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "reports/mutants_page.h"
#include "sim/base/output_file.h"
#include "sim/cli/cli_checks.h"
#include "sim/cli/exit_codes.h"

namespace qdt::sim {

CLI::App* add_mutants(CLI::App& app, MutantsCommand& command, const std::vector<std::string>& profile_choices) {
  MutantsOptions& args = command.options;
  auto* cmd = app.add_subcommand(
      "mutants", "Run the campaign against every design variant (docs/semantics.md §7): which are caught, within how many seeds");
  cmd->add_flag("--list", args.list, "List the variants, their descriptions and harmless arguments");
  cmd->add_option("--seeds", args.seeds, "Seeds per profile")->check(WholeIn(1, 100'000'000));
  cmd->add_option("--seed", args.first_seed, "First seed")->check(WholeIn(0, UINT64_MAX));
  cmd->add_option("--profile", args.profile, "Workload profile, or all")->check(NameIn(profile_choices, "profile"));
  cmd->add_option("--variant", args.variants, "Run only this variant (repeatable; default every one)")->default_str("");
  cmd->add_option("--jobs", args.jobs, "Worker processes (variants run in parallel)")->check(WholeIn(1, 64));
  cmd->add_option("--out", args.out_dir, "Where shrunk failures are written (OUT/VARIANT/...)")->check(OutputFolder());
  cmd->add_flag("--json", args.as_json, "Print {variants, survivors, holes} as JSON");
  cmd->add_flag("--quiet", args.quiet, "No progress on stderr");
  cmd->add_option("--report", command.report,
                  "Also write the catalogue as BASE.md, BASE.html (charts) and BASE.json; its folder must exist")
      ->check(OutputBase(".json"));
  return cmd;
}

int run_mutants_command(MutantsCommand& command, const std::string& command_line, const WallClock& wall) {
  if (!command.report.empty()) {
    const std::string base = command.report;
    const std::filesystem::path folder = std::filesystem::path(base).parent_path();
    const char* commit = std::getenv("QDT_COMMIT");
    const char* gnuplot = std::getenv("QDT_GNUPLOT");
    command.options.on_document = [=](nlohmann::json doc) {
      doc["command"] = command_line;
      if (commit && *commit) doc["commit"] = commit;
      const std::string dir = folder.empty() ? "." : folder.string();
      const std::string program = gnuplot && *gnuplot ? gnuplot : "gnuplot";
      std::string error;
      const bool ok = write_output_file(base + ".json", doc.dump(2) + "\n", &error) &&
                      write_output_file(base + ".md", reports::mutants_markdown(doc, dir), &error) &&
                      write_output_file(base + ".html", reports::mutants_html(doc, dir, program), &error);
      if (!ok) std::cerr << "error: --report " << error << "\n";
      else std::cerr << "wrote " << base << ".{md,html,json}\n";
      return ok;
    };
  }
  return exit_code(run_mutants(command.options, wall));
}

}  // namespace qdt::sim
