#pragma once
// Names of files qdt writes, derived from input (profile, property, variant,
// sweep and scenario names): cleaned so that a name stays one path component
// inside the folder the user named, whatever the input says.
#include <string>

namespace qdt::sim {

// `text` with every byte outside [A-Za-z0-9._-] replaced by '_', a leading
// '.' too (no "..", no hidden files), cut to 128 bytes; "_" when empty.
std::string file_name_part(const std::string& text);

}  // namespace qdt::sim
