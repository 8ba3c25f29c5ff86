#include "sim/base/doomed_folders.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace qdt::sim {
namespace {

std::string fresh_folder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "qdt-doomed-test-XXXXXX").string();
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  std::ofstream(std::filesystem::path(pattern) / "qdt.db") << "rows";
  return pattern;
}

// Forks a child that runs `before_waiting`, reports, and waits to be
// killed; kills it with `signal_number` and returns its wait status.
template <typename Setup>
int killed_child_status(int signal_number, Setup before_waiting) {
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    before_waiting();
    const char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(1);
    for (;;) pause();
  }
  close(ready[1]);
  char byte = 0;
  EXPECT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  kill(child, signal_number);
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  return status;
}

TEST(DoomedFolders, AKilledProcessRemovesItsFolderAndStillDiesOfTheSignal) {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    const std::string folder = fresh_folder();
    const int status = killed_child_status(signal_number, [&] { new DoomedFolder(folder); });  // never destroyed
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << status;
    EXPECT_FALSE(std::filesystem::exists(folder)) << folder;
    std::filesystem::remove_all(folder);
  }
}

TEST(DoomedFolders, AChildKilledLeavesItsParentsFolder) {
  const std::string folder = fresh_folder();
  {
    const DoomedFolder mine(folder);
    const int status = killed_child_status(SIGTERM, [] {});
    EXPECT_TRUE(WIFSIGNALED(status)) << status;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(folder) / "qdt.db"));
  }
  std::filesystem::remove_all(folder);
}

TEST(DoomedFolders, AnUnregisteredFolderIsLeftToItsOwner) {
  const std::string folder = fresh_folder();
  const int status = killed_child_status(SIGTERM, [&] { const DoomedFolder gone(folder); });
  EXPECT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_TRUE(std::filesystem::exists(folder));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace qdt::sim
