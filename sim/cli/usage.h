#pragma once
// What qdt says about its own command line rather than about a command's
// work: `qdt --version`, `qdt help [COMMAND]` (and `qdt` alone), and a
// command or option nobody knows, refused with the nearest known name (exit
// 2, nothing run).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace qdt::sim {

// "qdt VERSION (commit HASH)", as `qdt --version` prints it.
std::string version_text();

// `qdt --version`; and `qdt help [COMMAND]`, whose COMMAND goes to `topic`.
// Call after every command is added, so that help can name them.
CLI::App* add_version_and_help(CLI::App& app, std::string& topic);

// Prints the top-level help, or `topic`'s own: exit 0, or 2 when no command
// is called `topic`.
int run_help(CLI::App& app, const std::string& topic);

// Before parsing: no argument at all prints the usage (exit 0); a first
// argument that is neither an option nor a command is refused as `unknown
// command "X"; did you mean "Y"?` with the list of commands, exit 2; nullopt
// when the arguments start well.
std::optional<int> refuse_unknown_command(CLI::App& app, int argc, char** argv);

// After parsing failed on arguments no option took (CLI::ExtrasError): names
// the first and the command it was given to, with the nearest option of that
// command. Returns exit 2.
int refuse_extras(CLI::App& app);

}  // namespace qdt::sim
