#include "impl/storage/postgres/conninfo_text.h"

#include <gtest/gtest.h>

namespace qdt::impl::postgres {
namespace {

TEST(RedactedConninfo, HidesAUrisPasswordInItsUserInfoAndItsQuery) {
  EXPECT_EQ(redacted_conninfo("postgresql://alice:s3cret@db.example:5432/shop"),
            "postgresql://alice:***@db.example:5432/shop");
  EXPECT_EQ(redacted_conninfo("postgres://alice:p%40ss@db/shop?sslmode=require&password=s3cret&application_name=qdt"),
            "postgres://alice:***@db/shop?sslmode=require&password=***&application_name=qdt");
  EXPECT_EQ(redacted_conninfo("postgresql://alice@db/shop?password=s3cret"), "postgresql://alice@db/shop?password=***");
  EXPECT_EQ(redacted_conninfo("postgresql:///shop?host=/tmp"), "postgresql:///shop?host=/tmp");
}

TEST(RedactedConninfo, HidesAKeyValuePasswordHoweverItIsQuoted) {
  for (const std::string conninfo : {"host=db user=alice password=s3cret dbname=shop",
                                     "host=db password = 's3cret with spaces' dbname=shop",
                                     "password='it\\'s s3cret' host=db"}) {
    const std::string shown = redacted_conninfo(conninfo);
    EXPECT_EQ(shown.find("s3cret"), std::string::npos) << shown;
    EXPECT_NE(shown.find("password='***'"), std::string::npos) << shown;
    EXPECT_NE(shown.find("host='db'"), std::string::npos) << shown;
  }
}

TEST(RedactedConninfo, AStringLibpqCannotParseIsNotShown) {
  const std::string shown = redacted_conninfo("host=db password='s3cret");
  EXPECT_EQ(shown.find("s3cret"), std::string::npos) << shown;
}

}  // namespace
}  // namespace qdt::impl::postgres
