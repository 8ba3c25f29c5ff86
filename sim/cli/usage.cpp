#include "sim/cli/usage.h"

#include <algorithm>
#include <cassert>
#include <iostream>
#include <vector>

#include "sim/base/nearest_name.h"
#include "sim/base/shell_word.h"
#include "sim/cli/build_info.h"
#include "sim/cli/exit_codes.h"

namespace qdt::sim {
namespace {

std::vector<CLI::App*> commands(CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* cmd : commands(app)) names.push_back(cmd->get_name());
  return names;
}

CLI::App* command_named(CLI::App& app, const std::string& name) {
  for (CLI::App* cmd : commands(app)) {
    if (cmd->get_name() == name) return cmd;
  }
  return nullptr;
}

// "--seeds", "-h", ...: every name an option of `cmd` answers to.
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& name : opt->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : opt->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// "qdt" or "qdt check": how the user called the command that refused an argument.
std::string called_as(const CLI::App& cmd) {
  return cmd.get_parent() == nullptr ? "qdt" : "qdt " + cmd.get_name();
}

// An unknown command refused: the nearest known name and every command's name, so the next try can be right.
int refuse_command(CLI::App& app, const std::string& name) {
  std::string names;
  for (const std::string& known : command_names(app)) names += (names.empty() ? "" : ", ") + known;
  std::cerr << "error: unknown command \"" << name << "\"" << did_you_mean(name, command_names(app))
            << "\nqdt's commands: " << names << "\n"
            << command_below("", "what each does", "qdt help");
  return kExitBadInput;
}

}  // namespace

std::string version_text() { return std::string("qdt ") + build_version() + " (commit " + build_commit() + ")"; }

CLI::App* add_version_and_help(CLI::App& app, std::string& topic) {
  app.set_version_flag("--version", version_text(), "Print the version and the git commit qdt was built from");
  CLI::App* help = app.add_subcommand("help", "Print this help, or a command's (qdt help COMMAND)");
  help->add_option("command", topic, "The command whose options to print");
  return help;
}

int run_help(CLI::App& app, const std::string& topic) {
  // Through the formatter: App::help() would print the parsed command's help, which is `help` itself.
  if (topic.empty()) {
    std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  if (CLI::App* cmd = command_named(app, topic)) {
    std::cout << cmd->get_formatter()->make_help(cmd, app.get_name() + " " + topic, CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  return refuse_command(app, topic);
}

std::optional<int> refuse_unknown_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2) {  // nothing asked: the usage, as qdt help prints it
    if (argc == 1 && app.get_name().empty()) app.name(argv[0]);  // as parsing would name it
    return run_help(app, "");
  }
  const std::string first = argv[1];
  if (first.size() > 1 && first[0] == '-') {
    // CLI11 would report the missing command instead of the option it does not know.
    const std::string typed = first.substr(0, first.find('='));
    const std::vector<std::string> options = option_names(app);
    if (std::find(options.begin(), options.end(), typed) != options.end()) return std::nullopt;
    std::cerr << "error: unknown option \"" << typed << "\" for qdt" << did_you_mean(typed, options)
              << "\n" << command_below("", "the list of commands", "qdt help");
    return kExitBadInput;
  }
  if (first.empty() || command_named(app, first) != nullptr) return std::nullopt;
  return refuse_command(app, first);
}

int refuse_extras(CLI::App& app) {
  // The innermost command given arguments it did not take; the top level when none was.
  CLI::App* refusing = &app;
  std::vector<std::string> extras = app.remaining();
  for (CLI::App* cmd : commands(app)) {
    if (cmd->parsed() && !cmd->remaining().empty()) {
      refusing = cmd;
      extras = cmd->remaining();
    }
  }
  if (extras.empty()) extras = app.remaining(true);
  assert(!extras.empty());
  const std::string& arg = extras.front();
  if (arg.size() > 1 && arg[0] == '-') {
    const std::vector<std::string> options = option_names(*refusing);
    const std::string typed = arg.substr(0, arg.find('='));  // --name=value names --name
    std::cerr << "error: unknown option \"" << typed << "\" for " << called_as(*refusing)
              << did_you_mean(typed, options);
  } else {
    std::cerr << "error: unexpected argument \"" << arg << "\" for " << called_as(*refusing);
  }
  std::cerr << "\n" << command_below("", "its options", std::string("qdt help") + (refusing == &app ? "" : " " + refusing->get_name()));
  return kExitBadInput;
}

}  // namespace qdt::sim
