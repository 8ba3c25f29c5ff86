#pragma once
// Files that are either the old version or the new one, never a part: the
// text goes to a temporary file beside the target, is fsynced, renamed over
// it, and the folder is fsynced so the rename survives a power loss. Campaign
// failure files and journal parts are written this way (campaign_journal.h),
// so a campaign killed at any moment leaves only whole files behind.
#include <string>

namespace qdt::sim {

// False, with the reason (and errno's text) in `error`, when it could not.
bool write_file_atomically(const std::string& path, const std::string& text, std::string* error = nullptr);

}  // namespace qdt::sim
