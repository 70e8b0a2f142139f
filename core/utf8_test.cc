#include "core/utf8.h"

#include "gtest/gtest.h"

namespace graphd {
namespace {

TEST(Utf8Test, WellFormed) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80"));  // 2, 3 and 4 bytes
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));                          // U+10FFFF
}

TEST(Utf8Test, IllFormed) {
  EXPECT_FALSE(IsValidUtf8("\xFF"));
  EXPECT_FALSE(IsValidUtf8("\x80"));              // a continuation byte alone
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong, 3 bytes
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xE4\xB8"));          // cut short
  EXPECT_FALSE(IsValidUtf8("ok\xC3"));
}

TEST(Utf8Test, RepairReplacesEachBadByte) {
  EXPECT_EQ(ToValidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(ToValidUtf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(ToValidUtf8("\xE4\xB8"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(IsValidUtf8(ToValidUtf8("\xC0\xAF\xED\xA0\x80\xF4\x90\x80\x80")));
}

}  // namespace
}  // namespace graphd
