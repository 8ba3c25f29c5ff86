#include "sim/base/shell_word.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(ShellWord, PlainWordsStayAsTheyAre) {
  EXPECT_EQ(shell_word("reports/out/failures/default-1-offsets.json"), "reports/out/failures/default-1-offsets.json");
  EXPECT_EQ(shell_word("/tmp/a_b-c.d:e,f+g@h%i"), "/tmp/a_b-c.d:e,f+g@h%i");
}

TEST(ShellWord, AnythingTheShellReadsIsQuoted) {
  EXPECT_EQ(shell_word("my dir/x.json"), "'my dir/x.json'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word("$(touch /tmp/pwned)"), "'$(touch /tmp/pwned)'");
  EXPECT_EQ(shell_word("`id`"), "'`id`'");
  EXPECT_EQ(shell_word("a;b"), "'a;b'");
  EXPECT_EQ(shell_word("~root"), "'~root'");
  EXPECT_EQ(shell_word("*.json"), "'*.json'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("=x"), "'=x'");
}

TEST(CommandBelow, TheCommandIsAloneOnItsLine) {
  EXPECT_EQ(command_below("  ", "replay it", "qdt replay 'a b.json'"), "  replay it:\n    qdt replay 'a b.json'\n");
}

}  // namespace
}  // namespace qdt::sim
