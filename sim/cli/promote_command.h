#pragma once
// qdt promote FAILURE NAME: turns a shrunk failure file into a regression
// scenario, DIR/NAME.json (default scenarios/regress), with the reference
// implementation's answers as its `expect` block and a description left for
// a person to write, so that a failure becomes a test in one step. Refuses
// a NAME that is not one plain file name and a file that already exists;
// says which ctest runs the file and the line that registers it. With
// --cache-impl or --cache-lib the reference runs on that module, and the
// printed replay lines name it. Lives in
// the qdt executable, beside main.cpp.
#include <CLI/CLI.hpp>
#include <string>

namespace qdt::sim {

struct PromoteOptions {
  std::string failure;                  // the shrunk failure file (any scenario file)
  std::string name;                     // the regression's name: [a-z0-9][a-z0-9.-]*
  std::string dir = "scenarios/regress";  // --dir, which must exist
};

// Registers `promote` on `app`; fills `options` when parsed.
CLI::App* add_promote(CLI::App& app, PromoteOptions& options);

// 0 written; 1 the reference itself fails the scenario (no regression to
// keep); 2 bad input (unreadable failure, bad name, existing file).
int run_promote(const PromoteOptions& options);

}  // namespace qdt::sim
