#include "sim/base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "sim/base/atomic_file.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Creates and removes a file in `folder`: the one test of "a new file can go
// here" that holds for root, read-only mounts and pseudo file systems alike.
std::optional<std::string> folder_takes_files(const std::string& folder) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    if (errno == ENOENT) return "no folder " + folder;
    return "cannot reach " + folder + ": " + std::strerror(errno);
  }
  if (!S_ISDIR(st.st_mode)) return folder + " is not a folder";
  std::string probe = (fs::path(folder) / ".qdt-write-check-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return "cannot create a file in " + folder + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return std::nullopt;
}

bool write_all(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::optional<std::string> output_file_problem(const std::string& path) {
  if (path.empty()) return std::string("an empty path");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return "cannot reach " + path + ": " + std::strerror(errno);
    return folder_takes_files(folder_of(path));
  }
  if (S_ISDIR(st.st_mode)) return path + " is a folder, not a file";
  // A regular file is replaced by a rename in its folder; a symbolic link is written through.
  struct stat link {};
  if (S_ISREG(st.st_mode) && ::lstat(path.c_str(), &link) == 0 && S_ISREG(link.st_mode)) {
    return folder_takes_files(folder_of(path));
  }
  // Opening a FIFO for writing waits for a reader: its kind is enough.
  if (S_ISFIFO(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path + " for writing: " + std::strerror(errno);
  ::close(fd);
  return std::nullopt;
}

std::optional<std::string> output_folder_problem(const std::string& dir) {
  if (dir.empty()) return std::string("an empty path");
  // The command creates missing folders below the nearest one that exists.
  fs::path existing(dir);
  std::error_code ec;
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing.parent_path() != existing) {
    existing = existing.parent_path();
  }
  if (!fs::exists(existing, ec)) existing = ".";
  if (!fs::is_directory(existing, ec)) return existing.string() + " is not a folder";
  return folder_takes_files(existing.string());
}

bool write_output_file(const std::string& path, const std::string& text, std::string* error) {
  // Only a regular file (or none) is replaced by a rename: a rename over
  // /dev/stdout or a symbolic link would replace the link or the device itself.
  struct stat st {};
  const bool replace = ::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
  if (replace) {
    std::string reason;
    if (write_file_atomically(path, text, &reason)) return true;
    if (error) *error = path + ": " + reason;
    return false;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  const bool ok = write_all(fd, text);
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (ok && closed) return true;
  if (error) *error = path + ": cannot write: " + std::strerror(ok ? errno : write_errno);
  return false;
}

std::optional<std::string> standard_output_problem() {
  errno = 0;
  std::cout.flush();
  const bool stream_ok = static_cast<bool>(std::cout);
  const int flushed = std::fflush(stdout);
  const int saved = errno;
  if (stream_ok && flushed == 0 && !std::ferror(stdout)) return std::nullopt;
  return std::string("standard output: cannot write") + (saved ? std::string(": ") + std::strerror(saved) : "");
}

}  // namespace qdt::sim
