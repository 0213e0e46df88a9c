// A key twice in one object is found wherever it is; the same key in different objects is not.
#include "results/duplicate_keys.h"

#include <gtest/gtest.h>

#include <string>

namespace rtgate {
namespace {

TEST(DuplicateKeys, FoundInAnyObjectAtAnyDepth) {
  EXPECT_EQ(first_duplicate_key(R"({"a": 1, "a": 2})"), "a");
  EXPECT_EQ(first_duplicate_key(R"({"x": [{"k": 1}, {"k": 2, "m": {"q": 1, "q": [1]}}]})"), "q");
  EXPECT_EQ(first_duplicate_key(R"({"s": "a\"b", "s": 0})"), "s");
}

TEST(DuplicateKeys, TheSameKeyInOtherObjectsOrValuesIsNoDuplicate) {
  EXPECT_EQ(first_duplicate_key(R"({"a": {"a": 1}, "b": ["a", "a"], "c": "a"})"), std::nullopt);
  EXPECT_EQ(first_duplicate_key(R"([{"k": 1}, {"k": 2}])"), std::nullopt);
  EXPECT_EQ(first_duplicate_key(R"({"a\\": 1, "a": 2, "b": "}", "d": "{\"a\": 1}"})"),
            std::nullopt);
  EXPECT_EQ(first_duplicate_key("{\"unterminated"), std::nullopt);
  EXPECT_EQ(first_duplicate_key("]]]}"), std::nullopt);
}

}  // namespace
}  // namespace rtgate
