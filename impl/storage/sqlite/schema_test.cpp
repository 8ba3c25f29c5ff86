// qdt_match, the probe's matcher, against a plain reading of its contract
// (impl/storage/sqlite/schema.h), through real SQL: for each position of the sidecar row in
// order, every incoming index whose hash equals the row's there, ascending,
// unless an earlier position already named it.
#include "impl/storage/sqlite/schema.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace qdt::impl {
namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

Pairs reference(const std::vector<Hash128>& row, const std::vector<Hash128>& incoming) {
  Pairs out;
  std::vector<bool> named(incoming.size(), false);
  for (size_t pos = 0; pos < row.size(); ++pos) {
    for (size_t i = 0; i < incoming.size(); ++i) {
      if (named[i] || incoming[i] != row[pos]) continue;
      named[i] = true;
      out.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(pos));
    }
  }
  return out;
}

std::string blob_of(const std::vector<Hash128>& hashes) {
  std::string out;
  for (const Hash128& h : hashes) out.append(reinterpret_cast<const char*>(h.bytes.data()), 16);
  return out;
}

// What SELECT qdt_match(?1, ?2) answers, as pairs; nullopt for NULL.
std::optional<Pairs> run_match(Database& db, const std::string& row, const std::string& incoming) {
  Statement s(db.handle(), "SELECT qdt_match(?1, ?2)");
  s.bind_blob(1, row.data(), row.size()).bind_blob(2, incoming.data(), incoming.size());
  EXPECT_TRUE(s.step());
  if (s.column_is_null(0)) return std::nullopt;
  const std::string_view blob = s.column_blob(0);
  EXPECT_EQ(blob.size() % 8, 0u);
  Pairs out;
  for (size_t k = 0; k + 8 <= blob.size(); k += 8) out.emplace_back(match_u32(blob.data() + k), match_u32(blob.data() + k + 4));
  return out;
}

// Hashes drawn from a small pool, so rows and incoming lists share some,
// repeat some, and differ in a single word or byte from others.
rc::Gen<Hash128> pooled_hash() {
  return rc::gen::map(rc::gen::inRange(0, 12), [](int n) {
    Hash128 h = hash_transaction_id("k" + std::to_string(n / 3));
    if (n % 3 == 1) h.bytes[15] ^= 1;    // same first word (and filter bit), another second
    if (n % 3 == 2) h.bytes[7] ^= 0x80;  // another first word with the same low bits: the same filter bit
    return h;
  });
}

RC_GTEST_PROP(QdtMatch, AnswersWhatItsContractSays, ()) {
  const auto row = *rc::gen::container<std::vector<Hash128>>(pooled_hash());
  const auto incoming = *rc::gen::nonEmpty(rc::gen::container<std::vector<Hash128>>(pooled_hash()));
  Database db(":memory:");
  ProbeCounter counter;
  register_match_function(db, counter);
  const std::optional<Pairs> got = run_match(db, blob_of(row), blob_of(incoming));
  const Pairs want = reference(row, incoming);
  if (want.empty()) {
    RC_ASSERT(!got.has_value());
  } else {
    RC_ASSERT(got.has_value());
    RC_ASSERT(*got == want);
  }
  RC_ASSERT(counter.rows == 1u);
}

TEST(QdtMatch, RefusesBlobsThatAreNotWholeHashes) {
  Database db(":memory:");
  ProbeCounter counter;
  register_match_function(db, counter);
  const std::string hashes = blob_of({hash_transaction_id("a")});
  Statement s(db.handle(), "SELECT qdt_match(?1, ?2)");
  s.bind_blob(1, hashes.data(), 15).bind_blob(2, hashes.data(), 16);
  EXPECT_THROW(s.step(), StorageError);
}

}  // namespace
}  // namespace qdt::impl
