#include "sim/cli/promote_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "sim/base/atomic_file.h"
#include "sim/base/json_input.h"
#include "sim/base/shell_word.h"
#include "sim/campaign/campaign.h"
#include "sim/campaign/failure_file.h"
#include "sim/cli/exit_codes.h"
#include "sim/scenario/replay_line.h"
#include "sim/scenario/scenario.h"
#include "sim/world/cache_module_choice.h"
#include "reports/display_text.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using reports::terminal_text;

constexpr size_t kNameBytesMax = 100;
constexpr const char* kFillIn = "FILL IN: what broke, in one sentence, and what the reference answers instead.";

// Why `name` cannot name a regression, or nullopt: it becomes a file name, a
// ctest name and a word on a command line, so only plain characters pass.
std::optional<std::string> name_problem(const std::string& name) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  };
  if (name.empty() || name.size() > kNameBytesMax) return "must be 1 to 100 characters";
  if (name.size() > 5 && name.substr(name.size() - 5) == ".json") return "is given without .json";
  if (!std::all_of(name.begin(), name.end(), plain)) {
    return "may hold only letters, digits, '-', '_' and '.' (no '/', spaces or shell characters)";
  }
  if (name.front() == '.' || name.front() == '-') return "must start with a letter or digit";
  return std::nullopt;
}

int bad_input(const std::string& where, const std::string& reason) {
  std::cerr << "error: " << where << ": " << reason << "\nnothing was written (exit 2)\n";
  return kExitBadInput;
}

// The failure's document, checked as replay checks it.
std::optional<json> load_failure(const std::string& file) {
  std::string reason;
  const std::optional<std::string> text = read_input_file(file, reason);
  if (!text) {
    bad_input(file, reason);
    return std::nullopt;
  }
  const LoadResult loaded = load_scenario_text(*text, file);
  if (!loaded.scenario) {
    for (const LoadError& e : loaded.errors) std::cerr << "error: " << e.to_string() << "\n";
    std::cerr << "nothing was written (exit 2)\n";
    return std::nullopt;
  }
  return parse_json_input(*text).doc;
}

// name and description first, as people write scenario files, then the rest.
nlohmann::ordered_json regression_document(const json& promoted, const std::string& name) {
  nlohmann::ordered_json out;
  out["name"] = name;
  out["description"] = std::string(kFillIn) + " Promoted from: " + promoted.value("description", std::string(""));
  for (const auto& [key, value] : promoted.items()) {
    if (key != "name" && key != "description") out[key] = nlohmann::ordered_json::parse(value.dump());
  }
  return out;
}

}  // namespace

CLI::App* add_promote(CLI::App& app, PromoteOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "promote", "Turn a shrunk failure file into a regression scenario DIR/NAME.json whose expect block holds the "
                 "reference's answers; never overwrites; prints the ctest that runs it");
  cmd->add_option("failure", o.failure, "The failure file (a scenario, e.g. from qdt check --out)")->required();
  cmd->add_option("name", o.name, "The regression's name, after what broke (letters, digits, '-', '_', '.')")
      ->required();
  cmd->add_option("--dir", o.dir, "The folder to write NAME.json into (it must exist)")->capture_default_str();
  return cmd;
}

int run_promote(const PromoteOptions& o) {
  if (const auto problem = name_problem(o.name)) return bad_input("NAME " + shell_word(o.name), *problem);
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) {
    return bad_input(o.dir, "no such folder (run from the repository root, or name one with --dir)");
  }
  const std::string target = (fs::path(o.dir) / (o.name + ".json")).string();
  if (fs::exists(fs::symlink_status(target, ec))) {
    return bad_input(target, "already exists; promote never overwrites (choose another NAME)");
  }
  const std::optional<json> failure = load_failure(o.failure);
  if (!failure) return kExitBadInput;
  // A regression runs the reference (the variant a failure names is
  // dropped), so the line that shows the variant caught is printed instead.
  const std::string variant = failure->value("world", json::object()).value("variant", std::string());
  // The reference's own run: its answers become the expectations.
  const json promoted = with_reference_expectations(*failure);
  if (!promoted.contains("expect")) {
    const std::optional<RunResult> reference = run_document(promoted, impl::Variant::none);
    std::cerr << "error: " << o.failure << ": the reference implementation";
    if (const std::string note = cache_module_note(); !note.empty()) std::cerr << " on the " << terminal_text(note);
    std::cerr << " fails it too";
    if (reference && !reference->failures.empty()) {
      std::cerr << " (" << reference->failures[0].signature() << " at step " << reference->failures[0].step << ")";
    }
    std::cerr << ": it is no regression test\nnothing was written (exit 1)\n";
    return kExitFailed;
  }
  std::string error;
  if (!write_file_atomically(target, regression_document(promoted, o.name).dump(2) + "\n", &error)) {
    return bad_input(target, error);
  }
  std::cout << "wrote " << target << " (expect: the reference's answers)\n"
            << "  fill in its \"description\": what broke, in one sentence\n"
            << command_below("  ", "it passes on the reference", replay_command({target}));
  if (!variant.empty()) {
    const std::optional<impl::Variant> v = impl::parse_variant(variant);
    std::cout << command_below("  ", "world.variant " + variant + " was dropped; it fails under the variant",
                               replay_command({target, v.value_or(impl::Variant::none)}));
  }
  if (fs::path(o.dir).lexically_normal() == fs::path("scenarios/regress")) {
    std::cout << "  ctest runs it as scenario.regress." << o.name
              << " once scenarios/CMakeLists.txt lists it: add the line\n    " << o.name
              << "\n  to set(QDT_REGRESSIONS ...), and a row to scenarios/README.md\n";
  } else {
    std::cout << "  no ctest runs it until it is in scenarios/regress/ and listed in QDT_REGRESSIONS "
                 "(scenarios/CMakeLists.txt)\n";
  }
  return kExitOk;
}

}  // namespace qdt::sim
