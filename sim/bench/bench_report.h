#pragma once
// qdt bench's document (sim/cli/bench_command.h): a figure is a value with its
// unit, the command line that reproduces it, an optional target and whether
// the value met it, and a note; the document names the commit (git describe
// at build time), the machine, the date and the load before and after, and
// is printed as a table or as JSON. Lives in the qdt executable.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace qdt::sim {

struct BenchFigure {
  std::string name;
  double value = 0;
  std::string unit;
  std::string command;
  std::string target;  // "" when the figure has none (">= 50000", "<= 1.3")
  std::optional<bool> met;
  std::string note;
};

// A figure; with a target when `op` is '>' (at least `bound`) or '<' (at most).
BenchFigure bench_figure(std::string name, double value, std::string unit, std::string command, char op = 0,
                         double bound = 0, std::string note = "");

// {"commit", "machine": {"cpu", "cores", "load_before", "load_after"}, "date", "quick", "figures": [...]}
nlohmann::json bench_document(const std::vector<BenchFigure>& figures, bool quick, double load_before,
                              double load_after);

// The document as a table: a header line, then a row per figure.
void print_bench_table(const nlohmann::json& doc, const std::vector<BenchFigure>& figures);

}  // namespace qdt::sim
