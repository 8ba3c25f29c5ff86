#include "model/dense_table.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace qdt::model {
namespace {

struct Identity {
  size_t operator()(uint64_t k) const { return k; }
};

// The model's way: keys held by the caller, compared through an accessor.
// `collide` folds every hash onto a few tags, so that most probes meet
// slots of equal tag and only the key comparison tells keys apart.
class HeldStrings {
 public:
  explicit HeldStrings(bool collide) : collide_(collide) {}
  size_t size() const { return table_.size(); }
  size_t capacity() const { return table_.capacity(); }
  std::pair<uint32_t, bool> insert(const std::string& key) {
    const auto inserted = table_.insert(hash(key), [&](uint32_t n) { return keys_[n] == key; });
    if (inserted.second) keys_.push_back(key);
    return inserted;
  }
  std::optional<uint32_t> find(const std::string& key) const {
    return table_.find(hash(key), [&](uint32_t n) { return keys_[n] == key; });
  }
  const std::string& key(uint32_t n) const { return keys_.at(n); }

 private:
  uint64_t hash(const std::string& key) const {
    const uint64_t h = text_hash(key);
    return collide_ ? (h % 3) << 62 : h;  // three tags, three homes
  }
  bool collide_;
  DenseTable table_;
  std::vector<std::string> keys_;
};

// One operation of a sequence: insert (else find) a key.
struct Op {
  bool insert = false;
  std::string key;
};

// Numbers are given in first-insertion order; a key never inserted is not
// found; every number gives back its key; the table stays at most half full.
template <class Table, class ToKey, class FromKey>
void check_against_map(Table& table, const std::vector<Op>& ops, ToKey to_key, FromKey from_key) {
  std::unordered_map<std::string, uint32_t> expected;
  for (const Op& op : ops) {
    const auto it = expected.find(op.key);
    if (op.insert) {
      const auto [number, fresh] = table.insert(to_key(op.key));
      RC_ASSERT(fresh == (it == expected.end()));
      RC_ASSERT(number == (fresh ? expected.size() : it->second));
      if (fresh) expected.emplace(op.key, number);
    } else {
      const std::optional<uint32_t> number = table.find(to_key(op.key));
      RC_ASSERT(number.has_value() == (it != expected.end()));
      if (number) RC_ASSERT(*number == it->second);
    }
    RC_ASSERT(table.size() == expected.size());
  }
  for (const auto& [key, number] : expected) {
    RC_ASSERT(table.find(to_key(key)) == std::optional<uint32_t>(number));
    RC_ASSERT(from_key(table, number) == key);
  }
}

// Few distinct keys (collisions), sometimes a fresh one.
rc::Gen<std::vector<Op>> ops() {
  const auto key = rc::gen::oneOf(rc::gen::map(rc::gen::inRange(0, 24), [](int k) { return std::to_string(k); }),
                                  rc::gen::string<std::string>());
  return rc::gen::container<std::vector<Op>>(
      rc::gen::build<Op>(rc::gen::set(&Op::insert), rc::gen::set(&Op::key, key)));
}

TEST(DenseTable, EmptyFindsNothing) {
  const DenseTable table;
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.capacity(), 0u);
  EXPECT_FALSE(table.find(0, [](uint32_t) { return true; }));
  EXPECT_FALSE(table.find(~uint64_t{0}, [](uint32_t) { return true; }));
  EXPECT_FALSE((DenseValues<uint64_t, Identity>().find(0)));
  EXPECT_FALSE(DenseTexts<1>().find({""}));
  EXPECT_FALSE(DenseTexts<3>().find({"q", "p", "t"}));
  DenseTexts<1> reserved;
  reserved.reserve(100, 1000);
  EXPECT_FALSE(reserved.find({"x"}));
  EXPECT_EQ(reserved.size(), 0u);
}

RC_GTEST_PROP(DenseTable, HeldKeysAgreeWithUnorderedMap, (bool collide)) {
  HeldStrings table(collide);
  check_against_map(
      table, *ops(), [](const std::string& k) { return k; },
      [](const HeldStrings& t, uint32_t n) { return t.key(n); });
  RC_ASSERT(table.capacity() >= 2 * table.size());
}

RC_GTEST_PROP(DenseValues, AgreeWithUnorderedMap, ()) {
  DenseValues<std::string, std::hash<std::string>> table;
  check_against_map(
      table, *ops(), [](const std::string& k) { return k; },
      [](const DenseValues<std::string, std::hash<std::string>>& t, uint32_t n) { return t.key(n); });
}

RC_GTEST_PROP(DenseTexts, AgreeWithUnorderedMap, ()) {
  DenseTexts<1> table;
  check_against_map(
      table, *ops(), [](const std::string& k) { return DenseTexts<1>::Key{k}; },
      [](const DenseTexts<1>& t, uint32_t n) { return std::string(t.text(n)); });
}

// Three parts: where one part ends is part of the key ("ab" "c" is not "a" "bc").
RC_GTEST_PROP(DenseTexts, PartsAgreeWithUnorderedMap, ()) {
  DenseTexts<3> table;
  const auto split = [](const std::string& k) {  // "a|b|c" -> {a, b, c}; missing parts empty
    DenseTexts<3>::Key key;
    std::string_view rest = k;
    for (size_t p = 0; p < 3; ++p) {
      const size_t bar = p < 2 ? rest.find('|') : std::string_view::npos;
      key[p] = rest.substr(0, bar);
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
    }
    return key;
  };
  std::vector<Op> parted = *ops();
  for (Op& op : parted) {  // give every key three parts, so that split() and joining agree
    const size_t cut = op.key.size() / 3;
    std::string k;
    for (char c : op.key) k += c == '|' ? '_' : c;
    op.key = k.substr(0, cut) + "|" + k.substr(cut, cut) + "|" + k.substr(2 * cut);
  }
  check_against_map(table, parted, split, [](const DenseTexts<3>& t, uint32_t n) {
    return std::string(t.text(n, 0)) + "|" + std::string(t.text(n, 1)) + "|" + std::string(t.text(n, 2));
  });
}

TEST(DenseTexts, PartBoundariesTellKeysApart) {
  DenseTexts<3> table;
  EXPECT_EQ(table.insert({"ab", "c", ""}), std::make_pair(0u, true));
  EXPECT_EQ(table.insert({"a", "bc", ""}), std::make_pair(1u, true));
  EXPECT_EQ(table.insert({"", "", "abc"}), std::make_pair(2u, true));
  EXPECT_EQ(table.insert({"", "", ""}), std::make_pair(3u, true));
  EXPECT_EQ(table.insert({"a", "bc", ""}), std::make_pair(1u, false));
  EXPECT_EQ(table.find({"abc", "", ""}), std::nullopt);
  EXPECT_EQ(table.find({"", "", ""}), std::optional<uint32_t>(3));
  EXPECT_EQ(table.text(0, 0), "ab");
  EXPECT_EQ(table.text(0, 1), "c");
  EXPECT_EQ(table.text(1, 1), "bc");
  EXPECT_EQ(table.text(2, 2), "abc");
  EXPECT_EQ(table.text(3, 0), "");
}

// Every hash equal: each probe meets equal tags, only keys differ.
TEST(DenseTable, EqualHashesAreToldApartByTheKey) {
  std::vector<uint64_t> keys;
  DenseTable table;
  const auto equal_to = [&](uint64_t key) { return [&keys, key](uint32_t n) { return keys[n] == key; }; };
  for (uint64_t k = 0; k < 100; ++k) {
    const auto [number, fresh] = table.insert(0x0123456789abcdefULL, equal_to(k * 7));
    ASSERT_TRUE(fresh);
    ASSERT_EQ(number, k);
    keys.push_back(k * 7);
  }
  for (uint64_t k = 0; k < 100; ++k) {
    EXPECT_EQ(table.find(0x0123456789abcdefULL, equal_to(k * 7)), std::optional<uint32_t>(k));
    EXPECT_EQ(table.insert(0x0123456789abcdefULL, equal_to(k * 7)), std::make_pair(static_cast<uint32_t>(k), false));
    EXPECT_EQ(table.find(0x0123456789abcdefULL, equal_to(k * 7 + 1)), std::nullopt);
  }
  EXPECT_EQ(table.size(), 100u);
}

// Grown across many doublings (16 slots to 2^19), every key stays found
// under its number, and keys never inserted are not found.
TEST(DenseTable, GrowthKeepsEveryKey) {
  std::mt19937_64 random(20261203);
  DenseValues<uint64_t, Identity> values;
  DenseTexts<1> texts;
  std::vector<uint64_t> keys;
  std::unordered_map<uint64_t, uint32_t> numbers;
  constexpr size_t kKeys = 200'000;
  size_t capacity = 0;
  size_t doublings = 0;
  while (keys.size() < kKeys) {
    const uint64_t key = keys.size() % 5 == 0 ? random() : random() & 0xffff'0000'0000'ffffULL;  // shared bits too
    const auto [number, fresh] = values.insert(key);
    ASSERT_EQ(texts.insert({std::to_string(key)}), std::make_pair(number, fresh));
    if (!fresh) {
      ASSERT_EQ(number, numbers.at(key));
      continue;
    }
    ASSERT_EQ(number, keys.size());
    numbers.emplace(key, number);
    keys.push_back(key);
    if (std::has_single_bit(keys.size())) {  // check everything at each power of two
      for (uint32_t n = 0; n < keys.size(); ++n) {
        ASSERT_EQ(values.find(keys[n]), std::optional<uint32_t>(n));
        ASSERT_EQ(values.key(n), keys[n]);
        ASSERT_EQ(texts.find({std::to_string(keys[n])}), std::optional<uint32_t>(n));
        ASSERT_EQ(texts.text(n), std::to_string(keys[n]));
      }
    }
    const uint64_t absent = random() | 1;  // maybe present: then found under its own number
    const auto it = numbers.find(absent);
    ASSERT_EQ(values.find(absent), it == numbers.end() ? std::nullopt : std::optional<uint32_t>(it->second));
  }
  HeldStrings held(false);
  for (uint64_t key : keys) {
    held.insert(std::to_string(key));
    if (held.capacity() != capacity) ++doublings;
    capacity = held.capacity();
    ASSERT_GE(capacity, 2 * held.size());
  }
  EXPECT_GE(doublings, 15u);
  for (uint32_t n = 0; n < keys.size(); ++n) ASSERT_EQ(held.find(std::to_string(keys[n])), std::optional<uint32_t>(n));
}

TEST(DenseTable, ReserveKeepsNumbers) {
  DenseValues<uint64_t, Identity> table;
  for (uint64_t k = 0; k < 40; ++k) ASSERT_EQ(table.insert(k * 3).first, k);
  table.reserve(10'000);
  for (uint64_t k = 0; k < 40; ++k) ASSERT_EQ(table.find(k * 3), std::optional<uint32_t>(k));
  for (uint64_t k = 40; k < 10'000; ++k) ASSERT_EQ(table.insert(k * 3), std::make_pair(static_cast<uint32_t>(k), true));
}

}  // namespace
}  // namespace qdt::model
