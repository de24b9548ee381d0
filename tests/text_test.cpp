#include <gtest/gtest.h>

#include "core/string_index.hpp"
#include "core/text.hpp"

#include <string>
#include <vector>

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

namespace sceneria {
namespace {

// Strings that differ only past a word, only by a trailing NUL, or only by length, among enough
// others that the index grows many times and its probe runs meet.
std::vector<std::string> awkward_strings() {
  std::vector<std::string> out = {"", std::string(1, '\0'), std::string(2, '\0'), "a", std::string("a\0", 2),
                                  "abcdefgh", std::string("abcdefgh\0", 9), "abcdefghi", "abcdefghabcdefgh",
                                  "abcdefghabcdefgx", "none", "NONE"};
  for (int i = 0; i < 60000; ++i) out.push_back("m" + std::to_string(i / 2500) + "_" + std::to_string(i % 2500));
  for (int i = 0; i < 300; ++i) out.push_back(std::string(static_cast<std::size_t>(i % 47 + 2), static_cast<char>('p' + i / 47)));
  return out;
}

TEST(StringIndex, EveryStringOnceWithItsOwnId) {
  const std::vector<std::string> strings = awkward_strings();
  StringTable table;
  StringIndex index;
  for (const std::string& s : strings) EXPECT_EQ(index.find(table, s), StringIndex::kMissing) << s;
  std::vector<std::uint32_t> ids;
  for (const std::string& s : strings) ids.push_back(index.intern(table, s));
  // The list has no repeats: each took the next id, in order.
  ASSERT_EQ(table.size(), strings.size());
  ASSERT_EQ(index.size(), strings.size());
  for (std::size_t i = 0; i < strings.size(); ++i) {
    EXPECT_EQ(ids[i], i);
    EXPECT_EQ(table[i], strings[i]);
  }
  // Again: the same ids, nothing added.
  for (std::size_t i = 0; i < strings.size(); ++i) {
    EXPECT_EQ(index.intern(table, strings[i]), i);
    EXPECT_EQ(index.find(table, strings[i]), i);
  }
  EXPECT_EQ(table.size(), strings.size());
  EXPECT_EQ(index.find(table, std::string(3, '\0')), StringIndex::kMissing);
  EXPECT_EQ(index.find(table, "abcdefgha"), StringIndex::kMissing);
  EXPECT_EQ(index.find(table, "m24_0"), StringIndex::kMissing);
}

TEST(StringIndex, ATableWithRepeatsIsFoundByItsFirst) {
  StringTable table;
  for (const char* s : {"x", "track", "x", "", "track", ""}) table.push_back(s);
  StringIndex index;
  index.index_all(table);
  EXPECT_EQ(index.size(), 3u);
  EXPECT_EQ(index.find(table, "x"), 0u);
  EXPECT_EQ(index.find(table, "track"), 1u);
  EXPECT_EQ(index.find(table, ""), 3u);
  EXPECT_EQ(index.intern(table, "y"), 6u);
  index.clear();
  EXPECT_EQ(index.find(table, "x"), StringIndex::kMissing);
}

// A new string read from the table's own text (a substring of one it holds) is copied before the
// table's storage moves.
TEST(StringIndex, AStringOfTheTablesOwnText) {
  StringTable table;
  StringIndex index;
  std::uint32_t last = index.intern(table, "abcdefghijklmnopqrstuvwxyz0123456789");
  for (;;) {
    const std::string_view tail = table[last].substr(table[last].empty() ? 0 : 1);
    const std::string expected(tail);
    const std::uint32_t id = index.intern(table, tail);  // grows the text it reads
    ASSERT_EQ(table[id], expected);
    if (id == last) break;  // the empty string, found again
    EXPECT_EQ(id, last + 1);
    last = id;
  }
  EXPECT_EQ(table.size(), 37u);  // the whole, its 35 non-empty tails, the empty one
  EXPECT_EQ(table[36], "");
}

}  // namespace
}  // namespace sceneria
