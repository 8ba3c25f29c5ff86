#include "sim/base/output_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir() {
  std::string pattern = (fs::temp_directory_path() / "qdt-output-XXXXXX").string();
  EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
  return pattern;
}

bool empty_folder(const std::string& dir) { return fs::is_empty(dir); }

TEST(OutputFile, APathIsCheckedWithoutLeavingAnythingBehind) {
  const std::string dir = fresh_dir();
  EXPECT_EQ(output_file_problem(dir + "/report.md"), std::nullopt);
  EXPECT_EQ(output_file_problem("/dev/null"), std::nullopt);
  EXPECT_TRUE(empty_folder(dir));
  const auto missing = output_file_problem(dir + "/no/such/report.md");
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->find("no folder " + dir + "/no/such"), std::string::npos) << *missing;
  const auto proc = output_file_problem("/proc/x.md");  // exists, but takes no new file, even for root
  ASSERT_TRUE(proc);
  EXPECT_NE(proc->find("cannot create a file in /proc"), std::string::npos) << *proc;
  EXPECT_TRUE(output_file_problem(dir));
  EXPECT_TRUE(output_file_problem(""));
  fs::remove_all(dir);
}

TEST(OutputFile, AFolderMayBeMissingBelowOneThatTakesFiles) {
  const std::string dir = fresh_dir();
  EXPECT_EQ(output_folder_problem(dir), std::nullopt);
  EXPECT_EQ(output_folder_problem(dir + "/a/b/c"), std::nullopt);
  EXPECT_TRUE(empty_folder(dir)) << "checking creates nothing";
  EXPECT_TRUE(output_folder_problem("/proc/qdt-out"));
  EXPECT_TRUE(output_folder_problem("/dev/null/out"));
  fs::remove_all(dir);
}

TEST(OutputFile, AFailedWriteIsAnErrorNamingThePath) {
  std::string error;
  EXPECT_FALSE(write_output_file("/dev/full", "lost\n", &error));
  EXPECT_NE(error.find("/dev/full: cannot write"), std::string::npos) << error;
  EXPECT_TRUE(write_output_file("/dev/null", "gone\n", &error)) << error;
  EXPECT_FALSE(write_output_file("/proc/x.md", "x", &error));
  EXPECT_NE(error.find("/proc/x.md"), std::string::npos) << error;
  const std::string dir = fresh_dir();
  ASSERT_TRUE(write_output_file(dir + "/r.md", "kept\n", &error)) << error;
  EXPECT_EQ(fs::file_size(dir + "/r.md"), 5u);
  // A symbolic link (as /dev/stdout is) is written through, never replaced.
  fs::create_symlink(dir + "/r.md", dir + "/link.md");
  EXPECT_EQ(output_file_problem(dir + "/link.md"), std::nullopt);
  ASSERT_TRUE(write_output_file(dir + "/link.md", "through\n", &error)) << error;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.md"));
  EXPECT_EQ(fs::file_size(dir + "/r.md"), 8u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qdt::sim
