#include "impl/json_text.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace qdt::impl {
namespace {

// Strings that take each path: plain ASCII; plain but for one character
// nlohmann escapes (or DEL), which alone must send it down the slow path;
// and mixtures.
rc::Gen<std::string> tricky_string() {
  const auto plain = rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f));
  const auto special = rc::gen::element('"', '\\', '\n', '\t', '\b', '\f', '\r', '\x01', '\x1f', '\x7f', '/');
  return rc::gen::oneOf(
      plain,
      rc::gen::map(rc::gen::tuple(plain, special, plain),
                   [](const std::tuple<std::string, char, std::string>& t) {
                     return std::get<0>(t) + std::get<1>(t) + std::get<2>(t);
                   }),
      rc::gen::container<std::string>(rc::gen::oneOf(rc::gen::inRange<char>(0x20, 0x7f), special)));
}

nlohmann::json value_of_depth(int depth) {
  const int kind = *rc::gen::inRange(0, depth > 0 ? 10 : 7);
  switch (kind) {
    case 0: return nullptr;
    case 1: return *rc::gen::arbitrary<bool>();
    case 2: return *rc::gen::arbitrary<int64_t>();
    case 3: return *rc::gen::arbitrary<uint64_t>();
    case 4: return *rc::gen::element(0.5, -1e300, 3.0, 1.0 / 3.0, 0.0);
    case 5: return *tricky_string();
    case 6:
      return *rc::gen::element(std::string("é"), std::string("日本"), std::string("a\xf0\x9f\x98\x80z"),
                               std::string("partition-7 日本語 queue"));
    case 7: {
      nlohmann::json object = nlohmann::json::object();
      const int n = *rc::gen::inRange(0, 4);
      for (int i = 0; i < n; ++i) object[*tricky_string()] = value_of_depth(depth - 1);
      return object;
    }
    case 8: {  // a request: items of plain names around tricky values
      nlohmann::json item = nlohmann::json::object();
      item["queue"] = "q";
      item["transactionId"] = *tricky_string();
      item["data"] = value_of_depth(depth - 1);
      return nlohmann::json::array({item});
    }
    default: {
      nlohmann::json array = nlohmann::json::array();
      const int n = *rc::gen::inRange(0, 4);
      for (int i = 0; i < n; ++i) array.push_back(value_of_depth(depth - 1));
      return array;
    }
  }
}

// The text is the stored payload and the trace's hashed body: it must be
// nlohmann's, byte for byte, whatever the value.
RC_GTEST_PROP(JsonText, IsWhatDumpWrites, ()) {
  const nlohmann::json value = value_of_depth(3);
  RC_ASSERT(json_text(value) == value.dump());
  RC_ASSERT(json_text_bytes(value) == value.dump().size());
}

TEST(JsonText, AppendsToWhatIsThere) {
  std::string out = "body=";
  append_json(out, nlohmann::json::parse(R"({"queue":"q","data":{"n":-3,"x":[1.5,null,true]},"t":"k\"1"})"));
  EXPECT_EQ(out, R"(body={"data":{"n":-3,"x":[1.5,null,true]},"queue":"q","t":"k\"1"})");
}

// Every byte nlohmann escapes or validates, at every position of a 17-byte
// string, and every byte it writes unchanged: the fast path for plain
// strings must agree with dump() on each.
TEST(JsonText, EveryByteAtEveryPositionIsWhatDumpWrites) {
  for (int byte = 1; byte < 256; ++byte) {
    for (size_t at = 0; at < 17; ++at) {
      std::string text(17, 'a');
      text[at] = static_cast<char>(byte);
      const nlohmann::json value = text;
      std::string dumped;
      try {
        dumped = value.dump();
      } catch (const nlohmann::json::type_error&) {
        EXPECT_THROW(json_text(value), nlohmann::json::type_error) << byte << " at " << at;
        continue;
      }
      EXPECT_EQ(json_text(value), dumped) << byte << " at " << at;
      EXPECT_EQ(json_text_bytes(value), dumped.size()) << byte << " at " << at;
    }
  }
}

// Strings are quoted in a 128-byte buffer when they fit, straight into the
// text when they do not: lengths on both sides of the edge, plain and with
// a byte to escape, as values, as keys, in empty and full objects.
TEST(JsonText, StringsAroundTheBufferEdgeAreWhatDumpWrites) {
  for (size_t n = 118; n <= 130; ++n) {
    for (const char odd : {'a', '"', '\n'}) {
      std::string text(n, 'x');
      text[n / 2] = odd;
      const nlohmann::json values[] = {text, nlohmann::json::object({{text, text}}),
                                       nlohmann::json::object({{"a", 1}, {text, nlohmann::json::object()}}),
                                       nlohmann::json::array({text, nlohmann::json::object(), text})};
      for (const nlohmann::json& value : values) {
        EXPECT_EQ(json_text(value), value.dump()) << n << " " << static_cast<int>(odd);
        EXPECT_EQ(json_text_bytes(value), value.dump().size()) << n;
      }
    }
  }
}

// Invalid UTF-8 is refused as dump() refuses it, not written.
TEST(JsonText, RefusesInvalidUtf8AsDumpDoes) {
  const nlohmann::json bad = std::string("a\xff");
  EXPECT_THROW(bad.dump(), nlohmann::json::type_error);
  EXPECT_THROW(json_text(bad), nlohmann::json::type_error);
}

}  // namespace
}  // namespace qdt::impl
