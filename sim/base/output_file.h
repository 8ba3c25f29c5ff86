#pragma once
// Where qdt's outputs go (--report, --html, --trace, --out, --json on
// standard output): a path is checked before anything runs, and every write
// is flushed and checked, so an output that cannot be written is exit 2
// naming the path, never a quiet exit 0 with the output lost.
#include <optional>
#include <string>

namespace qdt::sim {

// Why `path` cannot take an output file, or nullopt when it can: its folder
// must exist and accept a new file, or the file (a regular file or a device
// such as /dev/null) must open for writing. Nothing is left behind.
std::optional<std::string> output_file_problem(const std::string& path);

// Why `dir` cannot take output files, or nullopt when it can: an existing
// folder that accepts a new file, or a missing one whose nearest existing
// ancestor does (the command creates the rest). Nothing is left behind.
std::optional<std::string> output_folder_problem(const std::string& dir);

// Writes `text` to `path`: a regular (or new) file atomically
// (atomic_file.h), a device, FIFO or symbolic link in place. False with "PATH: reason" in
// `error` when any byte could not be written.
bool write_output_file(const std::string& path, const std::string& text, std::string* error);

// Flushes standard output (C++ and C streams) and says why it failed, if it
// did: a full disk or a closed pipe must not pass for a printed result.
std::optional<std::string> standard_output_problem();

}  // namespace qdt::sim
