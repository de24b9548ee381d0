#include <gtest/gtest.h>

#include "core/text.hpp"

namespace sceneria {
namespace {

TEST(Text, Utf8Validation) {
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("Słup \xe2\x82\xac"));
  EXPECT_FALSE(is_valid_utf8("S\xb3up"));          // CP1250 ł
  EXPECT_FALSE(is_valid_utf8("\xc3"));             // cut off
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));         // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));     // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
}

TEST(Text, DisplayDecodesCp1250) {
  EXPECT_EQ(display_text("plot_S\xb3up_A.t3d"), "plot_Słup_A.t3d");
  EXPECT_EQ(display_text("\xa5\xb9\xe6\xea\x9c\x9f\xbf"), "Ąąćęśźż");
  EXPECT_EQ(display_text("already UTF-8: ż"), "already UTF-8: ż");
  EXPECT_EQ(display_text("\x81"), "\xef\xbf\xbd");  // undefined in CP1250
}

}  // namespace
}  // namespace sceneria
