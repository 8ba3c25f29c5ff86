#include "sim/base/json_input.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace qdt::sim {
namespace {

TEST(JsonInput, AcceptsADocumentAndSkipsAByteOrderMark) {
  const JsonInput in = parse_json_input("\xEF\xBB\xBF{\"a\": [1, {\"b\": null}]}");
  ASSERT_TRUE(in.doc);
  EXPECT_EQ((*in.doc)["a"][1].count("b"), 1u);
}

TEST(JsonInput, DuplicateKeyNamesItsPath) {
  const JsonInput in = parse_json_input(R"({"steps": [{"op": "push"}, {"op": "a", "op": "b"}]})");
  ASSERT_FALSE(in.doc);
  EXPECT_EQ(in.path, "/steps/1/op");
  EXPECT_NE(in.reason.find("duplicate key"), std::string::npos);
}

TEST(JsonInput, DepthIsBoundedOnBothSidesOfTheLimit) {
  const auto nested = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(parse_json_input(nested(kMaxJsonDepth)).doc);
  const JsonInput deep = parse_json_input(nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.doc);
  EXPECT_NE(deep.reason.find("nested deeper than 64"), std::string::npos);
  // Far past the limit: refused without recursion (this overflowed the stack before).
  EXPECT_FALSE(parse_json_input(nested(1'000'000)).doc);
}

TEST(JsonInput, RejectsWhatJsonDoesNotAllow) {
  for (const char* text : {"[NaN]", "[Infinity]", "[1e400]", "{\"a\": 1} x", "[\"\xff\"]", "{\"\x80\": 1}", "[\"\\ud800\"]", ""}) {
    const JsonInput in = parse_json_input(text);
    EXPECT_FALSE(in.doc) << text;
    EXPECT_EQ(in.path.front(), '/') << text;
    EXPECT_FALSE(in.reason.empty()) << text;
  }
}

TEST(JsonInput, NumbersKeepTheirKinds) {
  const JsonInput in = parse_json_input("[-0, 1e2, 18446744073709551616, 18446744073709551615]");
  ASSERT_TRUE(in.doc);
  EXPECT_TRUE((*in.doc)[0].is_number_integer());
  EXPECT_TRUE((*in.doc)[1].is_number_float());
  EXPECT_TRUE((*in.doc)[2].is_number_float());
  EXPECT_TRUE((*in.doc)[3].is_number_unsigned());
}

TEST(JsonInput, PointerTokensAreEscaped) {
  EXPECT_EQ(json_pointer_token("a/b~c"), "a~1b~0c");
  const JsonInput in = parse_json_input(R"({"a/b": 1, "a/b": 2})");
  ASSERT_FALSE(in.doc);
  EXPECT_EQ(in.path, "/a~1b");
}

TEST(JsonInput, ReadsOnlyRegularFiles) {
  std::string reason;
  EXPECT_FALSE(read_input_file("/nonexistent/file.json", reason));
  EXPECT_EQ(reason, "no such file or folder");
  EXPECT_FALSE(read_input_file("/dev/zero", reason));
  EXPECT_EQ(reason, "not a regular file (a character device)");
  const std::string fifo = testing::TempDir() + "qdt_json_input_test.fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(read_input_file(fifo, reason));
  EXPECT_EQ(reason, "not a regular file (a FIFO)");
  ::unlink(fifo.c_str());
  EXPECT_FALSE(read_input_file("/tmp", reason));
  EXPECT_EQ(reason, "a folder, not a file");
}

// Read back byte for byte across chunk boundaries; refused one byte past the bound.
TEST(JsonInput, ReadsWholeFilesUpToTheBound) {
  const std::string file = testing::TempDir() + "qdt_json_input_test.json";
  std::string body(200'000, 'x');
  for (size_t i = 0; i < body.size(); i += 997) body[i] = static_cast<char>('a' + i % 26);
  std::ofstream(file, std::ios::binary) << body;
  std::string reason;
  const std::optional<std::string> read = read_input_file(file, reason);
  ASSERT_TRUE(read) << reason;
  EXPECT_EQ(*read, body);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << std::string(kMaxJsonBytes + 1, ' ');
  EXPECT_FALSE(read_input_file(file, reason));
  EXPECT_EQ(reason, "larger than 64 MiB");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << std::string(kMaxJsonBytes, ' ');
  EXPECT_TRUE(read_input_file(file, reason));
  std::remove(file.c_str());
}

}  // namespace
}  // namespace qdt::sim
