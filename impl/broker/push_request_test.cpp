#include "impl/broker/push_request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace qdt::impl {
namespace {

std::string error_of(const char* text) {
  const nlohmann::json request = nlohmann::json::parse(text);
  const auto result = validate_push_request(request);
  const auto* error = std::get_if<std::string>(&result);
  return error ? *error : "";
}

TEST(PushRequest, AcceptsValidItemsWithDefaults) {
  // The items view the request, which must outlive them.
  const nlohmann::json request = nlohmann::json::parse(
      R"([{"queue":"q","data":{}},{"queue":"q","partition":"p","transactionId":"t","data":null}])");
  const auto result = validate_push_request(request);
  const auto& items = std::get<std::vector<PushItem>>(result);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].partition, "Default");
  EXPECT_EQ(items[0].transaction_id, "");
  EXPECT_EQ(items[1].transaction_id, "t");
}

TEST(PushRequest, EmptyArrayIsValid) { EXPECT_EQ(error_of("[]"), ""); }

TEST(PushRequest, RejectsWithThePath) {
  EXPECT_EQ(error_of(R"({"queue":"q"})"), "/: expected an array of items");
  EXPECT_EQ(error_of(R"([1])"), "/0: expected an object");
  EXPECT_EQ(error_of(R"([{"data":1}])"), "/0/queue: required");
  EXPECT_EQ(error_of(R"([{"queue":"","data":1}])"), "/0/queue: must be 1-255 bytes, got 0");
  EXPECT_EQ(error_of(R"([{"queue":"q","data":1},{"queue":"q","transactionId":7,"data":1}])"),
            "/1/transactionId: expected a string");
  EXPECT_EQ(error_of(R"([{"queue":"q","partition":null,"data":1}])"), "/0/partition: expected a string");
  EXPECT_EQ(error_of(R"([{"queue":"q"}])"), "/0/data: required");
  const std::string long_name(256, 'x');
  EXPECT_EQ(error_of(("[{\"queue\":\"" + long_name + "\",\"data\":1}]").c_str()),
            "/0/queue: must be 1-255 bytes, got 256");
}

}  // namespace
}  // namespace qdt::impl
