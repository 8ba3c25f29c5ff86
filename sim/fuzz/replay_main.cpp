// A main for a harness outside libFuzzer (the normal g++ build): runs
// LLVMFuzzerTestOneInput once on every file of the folders or files named,
// so ctest checks each harness's contract on the seeds and on every input a
// fuzzer found, without clang. Exit 0 when all returned; a broken contract
// aborts, and a crash names the input it was on.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being replayed, for the signal handler (which may only write(2)).
char g_current[4096];
size_t g_current_bytes = 0;

void name_the_input(int signal) {
  constexpr char kOn[] = "replay crashed on input: ";
  (void)!write(STDERR_FILENO, kOn, sizeof kOn - 1);
  (void)!write(STDERR_FILENO, g_current, g_current_bytes);
  (void)!write(STDERR_FILENO, "\n", 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& entry : std::filesystem::directory_iterator(argv[i])) files.push_back(entry.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s DIR|FILE...: no inputs\n", argv[0]);
    return 2;
  }
  for (int s : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(s, name_the_input);
  for (const auto& file : files) {
    const std::string name = file.string();
    g_current_bytes = std::min(name.size(), sizeof g_current);
    std::copy_n(name.data(), g_current_bytes, g_current);
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs, every contract held\n", files.size());
  return 0;
}
