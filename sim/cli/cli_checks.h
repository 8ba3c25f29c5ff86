#pragma once
// The command line's checks on option values, shared by every command so
// that each rule is written once: numbers read strictly (decimal_text.h) and
// output paths checked before anything runs (output_file.h). Each is a CLI11
// validator; a value it refuses is exit 2 with the option and the reason.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace qdt::sim {

// A whole number in [lo, hi], decimal digits only.
CLI::Validator WholeIn(uint64_t lo, uint64_t hi);

// A finite number in [lo, hi].
CLI::Validator NumberIn(double lo, double hi);

// A file the command will write: its folder exists and takes a new file, or
// it is a device or FIFO that opens for writing.
CLI::Validator OutputFile();

// A base name the command appends suffixes to (BASE.md, BASE.html, ...).
CLI::Validator OutputBase(const char* suffix);

// A folder the command will write into, created if missing.
CLI::Validator OutputFolder();

// One of `names` (a profile, a variant, an engine, ...); a value outside
// them is refused as `unknown WHAT "X"; did you mean "Y"?` with the choices.
CLI::Validator NameIn(std::vector<std::string> names, const std::string& what);

}  // namespace qdt::sim
