#pragma once
// Why an input file was refused: where (the file and a JSON pointer into it)
// and the reason, as every loader reports it before anything runs.
#include <string>

namespace qdt::sim {

struct LoadError {
  std::string file;
  std::string path;  // JSON pointer into the file; "/" for the whole document
  std::string reason;
  std::string to_string() const { return file + ": " + path + ": " + reason; }
};

}  // namespace qdt::sim
