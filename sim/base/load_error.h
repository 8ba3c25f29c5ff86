#pragma once
// Why an input file was refused: where (the file and a JSON pointer into it)
// and the reason, as every loader reports it before anything runs.
#include <string>

#include "reports/display_text.h"

namespace qdt::sim {

struct LoadError {
  std::string file;
  std::string path;  // JSON pointer into the file; "/" for the whole document
  std::string reason;
  // For a terminal: a path or reason can quote an input's key or value, whose
  // controls and bidirectional characters are neutralised (display_text.h).
  std::string to_string() const { return reports::terminal_text(file + ": " + path + ": " + reason); }
};

}  // namespace qdt::sim
