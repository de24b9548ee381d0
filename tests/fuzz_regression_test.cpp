// Inputs found by the fuzz targets (fuzz/), reduced to what mattered. Each stays fixed here.
#include <gtest/gtest.h>

#include "formats/eu7b/pack.hpp"

namespace sceneria::eu7b {
namespace {

// eu7b_section_fuzzer: a format-4 section with no models and no sub-chunks, followed by bytes.
// The decoder ignored what followed the header, so re-encoding lost those bytes.
TEST(FuzzRegression, ChunkedSectionWithoutSubChunksKeepsItsTrailingBytes) {
  const std::vector<std::uint8_t> bytes = {4,    0, 0, 0, 0, 0, 0, 0, 0,  // format 4, 0 solo, 0 inst
                                           0,    0, 0, 0,                 // no meshes
                                           0,    0, 0, 0,                 // no textures
                                           0,    0, 0, 0,                 // no sub-chunks
                                           0xff, 0x4d, 9};                // stray bytes
  std::vector<Problem> problems;
  auto s = decode_section(bytes, 0x100, {.model_count = 0, .prototype_count = 0, .string_count = 10, .problems = &problems});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->format, SectionFormat::utex);
  EXPECT_EQ(s->trailing, (std::vector<std::uint8_t>{0xff, 0x4d, 9}));
  EXPECT_EQ(encode_section(*s), bytes);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].offset, 0x100u + 21u);
  EXPECT_NE(problems[0].message.find("3 bytes after its 0 models"), std::string::npos);
}

}  // namespace
}  // namespace sceneria::eu7b
