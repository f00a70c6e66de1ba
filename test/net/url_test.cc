#include "net/url.h"

#include <gtest/gtest.h>

namespace carbonroute::net {
namespace {

TEST(Url, QueryEncodesValues) {
  EXPECT_EQ(Query({{"location", "regionid/13"}, {"q", "a b&c"}}),
            "?location=regionid%2F13&q=a%20b%26c");
  EXPECT_EQ(Query({}), "");
}

TEST(Url, QueryParameterDecodesWhatQueryEncodes) {
  const std::string query = Query({{"x", "1"}, {"location", "DE \"&%/+"}}).substr(1);
  EXPECT_EQ(QueryParameter(query, "location"), "DE \"&%/+");
  EXPECT_EQ(QueryParameter(query, "x"), "1");
}

TEST(Url, JoinUrlPutsOneSlashBetween) {
  EXPECT_EQ(JoinUrl("http://h:9090/", "/api/v1/query"), "http://h:9090/api/v1/query");
  EXPECT_EQ(JoinUrl("http://h:9090", "api/v1/query"), "http://h:9090/api/v1/query");
  EXPECT_EQ(JoinUrl("http://h/prom//", "/api"), "http://h/prom/api");
}

TEST(Url, QueryParameterEdgeCases) {
  EXPECT_EQ(QueryParameter("a=1&b=2", "c"), std::nullopt);
  EXPECT_EQ(QueryParameter("", "a"), std::nullopt);
  EXPECT_EQ(QueryParameter("a", "a"), "");
  EXPECT_EQ(QueryParameter("a=x+y", "a"), "x y");
  EXPECT_EQ(QueryParameter("a=1&a=2", "a"), "1");
  EXPECT_EQ(QueryParameter("a=%4", "a"), "%4");    // truncated escape kept as is
  EXPECT_EQ(QueryParameter("a=%zz", "a"), "%zz");  // not hexadecimal
  EXPECT_EQ(QueryParameter("ab=1", "a"), std::nullopt);
}

}  // namespace
}  // namespace carbonroute::net
