#pragma once
// One argument of a command qdt prints for a person to paste (a replay
// command, a failure's file name): as it is when the shell reads it back
// unchanged, else in single quotes, so a path with spaces or quotes runs as
// printed and never runs anything else.
#include <string>

namespace qdt::sim {

// "a/b.json" → a/b.json; "my dir/x" → 'my dir/x'; "it's" → 'it'\''s'.
std::string shell_word(const std::string& word);

// A command printed for a person to paste: the prose that says what it does
// ends its own line, and the command stands alone on the next, two columns
// further in, so selecting the line copies a command and nothing else.
// ("  ", "replay it", CMD) → "  replay it:\n    CMD\n".
std::string command_below(const std::string& indent, const std::string& prose, const std::string& command);

}  // namespace qdt::sim
