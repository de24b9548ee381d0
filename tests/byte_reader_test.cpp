#include <gtest/gtest.h>

#include "core/byte_reader.hpp"

namespace sceneria {
namespace {

TEST(ByteReader, ReadsLittleEndianAndTracksOffsets) {
  const std::uint8_t data[] = {0x01, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 0xaa, 0x00, 0x00, 0x80, 0x3f};
  ByteReader r(data, 100, "test");
  EXPECT_EQ(r.u8(), 0x01);
  EXPECT_EQ(r.u16(), 0x1234);
  EXPECT_EQ(r.u32(), 0x12345678u);
  EXPECT_EQ(r.offset(), 107u);
  r.skip(1, "pad");
  EXPECT_FLOAT_EQ(r.f32(), 1.0f);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.at_end());
}

TEST(ByteReader, FirstErrorSticksAndLaterReadsYieldZero) {
  const std::uint8_t data[] = {1, 2, 3};
  ByteReader r(data, 0x40, "chunk TEST at 0x38");
  EXPECT_EQ(r.u16(), 0x0201);
  EXPECT_EQ(r.u32(), 0u);  // only 1 byte left
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::truncated);
  EXPECT_EQ(r.error().offset, 0x42u);
  EXPECT_EQ(r.error().message, "chunk TEST at 0x38: needs 4 bytes at 0x42 but only 1 remain");
  EXPECT_EQ(r.u8(), 0u);  // sticky: even a read that would fit now fails
  EXPECT_EQ(r.error().offset, 0x42u);
}

TEST(ByteReader, AContextMadeOnDemandIsMadeOnlyForAMessage) {
  const std::uint8_t data[6] = {};
  int made = 0;
  const auto make = [&made] {
    ++made;
    return std::string("chunk 0x1005 at 0x30");
  };
  ByteReader fine(data, 0x38, make);
  EXPECT_EQ(fine.u32(), 0u);
  EXPECT_TRUE(fine.check_count(1, 2, "points"));
  EXPECT_TRUE(fine.ok());
  EXPECT_EQ(made, 0);
  ByteReader r(data, 0x38, make);
  EXPECT_FALSE(r.check_count(7, 1, "points"));
  EXPECT_EQ(r.error().message, "chunk 0x1005 at 0x30 claims 7 points but only 6 bytes remain");
  EXPECT_EQ(r.u32(), 0u);  // a second failure writes no second message
  EXPECT_EQ(made, 1);
  ByteReader cut(data, 0x38, make);
  cut.skip(4, "a count");
  EXPECT_EQ(cut.u32(), 0u);
  EXPECT_EQ(cut.error().message, "chunk 0x1005 at 0x30: needs 4 bytes at 0x3c but only 2 remain");
}

TEST(ByteReader, CountsAreCheckedAgainstRemainingBytes) {
  const std::uint8_t data[80] = {};
  ByteReader r(data, 0x1f2c, "chunk PACK at 0x1f2c: section 3");
  EXPECT_TRUE(r.check_count(20, 4, "models"));
  EXPECT_FALSE(r.check_count(4096, 60, "models"));
  EXPECT_EQ(r.error().code, Errc::bad_count);
  EXPECT_EQ(r.error().message, "chunk PACK at 0x1f2c: section 3 claims 4096 models but only 80 bytes remain");
}

TEST(ByteReader, TakeReturnsViewsOrNothing) {
  const std::uint8_t data[] = {9, 8, 7};
  ByteReader r(data, 0, "t");
  auto a = r.take(2, "pair");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1], 8);
  EXPECT_TRUE(r.take(5, "block").empty());
  EXPECT_NE(r.error().message.find("block needs 5 bytes"), std::string::npos);
}

}  // namespace
}  // namespace sceneria
