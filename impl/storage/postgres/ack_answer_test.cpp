#include "impl/storage/postgres/ack_answer.h"

#include <gtest/gtest.h>

namespace qdt::impl::postgres {
namespace {

const Hash128 kHash = hash_transaction_id("k");

std::string hex_of_k() {
  std::string out;
  for (uint8_t b : kHash.bytes) {
    char two[3];
    std::snprintf(two, sizeof two, "%02X", b);
    out += two;
  }
  return out;
}

TEST(AckAnswer, ResolvedUnlessNamedUnresolved) {
  const std::string base = R"({"ok":true,"acked":1,"off":4,"staleHashes":[],)";
  EXPECT_TRUE(read_ack_answer(base + R"("noopHashes":[],"unresolvedHashes":[]})", kHash).resolved);
  const AckAnswerRead noop = read_ack_answer(base + R"("noopHashes":[")" + hex_of_k() + R"("],"unresolvedHashes":[]})", kHash);
  EXPECT_TRUE(noop.resolved);
  EXPECT_EQ(noop.problem, "");
  const AckAnswerRead gone =
      read_ack_answer(base + R"("noopHashes":[],"unresolvedHashes":[")" + hex_of_k() + R"("]})", kHash);
  EXPECT_FALSE(gone.resolved);
  EXPECT_EQ(gone.problem, "");
}

TEST(AckAnswer, WhatCannotBeReadIsAProblemNeverASkip) {
  for (const char* answer : {"", "[]", "{}", R"({"ok":"yes"})", R"({"ok":true,"resolved":[{"i":0,"off":1}]})",
                             R"({"ok":true,"noopHashes":[1],"unresolvedHashes":[]})"}) {
    const AckAnswerRead read = read_ack_answer(answer, kHash);
    EXPECT_FALSE(read.resolved) << answer;
    EXPECT_NE(read.problem, "") << answer;
  }
  const AckAnswerRead lease = read_ack_answer(R"({"ok":false,"error":"invalid or expired lease"})", kHash);
  EXPECT_FALSE(lease.resolved);
  EXPECT_NE(lease.problem.find("invalid or expired lease"), std::string::npos) << lease.problem;
}

}  // namespace
}  // namespace qdt::impl::postgres
