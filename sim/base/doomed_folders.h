#pragma once
// Folders a run creates and removes when it ends (file storage's database
// folder), also removed when the process is ended by SIGINT, SIGTERM or an
// assertion's SIGABRT: a destructor never runs then, and a killed campaign
// would leave one folder per worker in TMPDIR. Only the registering process
// removes a folder, never a forked child that inherited the registry.
#include <string>

namespace qdt::sim {

class DoomedFolder {
 public:
  // Registers `path` (an absolute folder path); the folder itself is still
  // removed by its owner, and only a signal makes this class remove it.
  explicit DoomedFolder(const std::string& path);
  ~DoomedFolder();  // unregisters (does not remove)
  DoomedFolder(const DoomedFolder&) = delete;
  DoomedFolder& operator=(const DoomedFolder&) = delete;

 private:
  int slot_ = -1;  // -1: the registry was full; the folder is then left to its owner only
};

}  // namespace qdt::sim
