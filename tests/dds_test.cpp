// DDS textures: every sample's header and mip chain against its reference summary, block decodes
// of known blocks to known pixels (a real 1x1 DXT5 and a non-multiple-of-4 size among them),
// uncompressed formats by their masks, and broken files refused with what and where.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/dds/dds.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria::dds {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// A DDS header for `w`x`h` with `fourcc` (or uncompressed: `bits` and masks), then `data`.
std::vector<std::uint8_t> make_dds(std::uint32_t w, std::uint32_t h, const char* fourcc, std::uint32_t mips, const std::vector<std::uint8_t>& data,
                                   std::uint32_t bits = 0, std::array<std::uint32_t, 4> masks = {}) {
  std::vector<std::uint8_t> b(128, 0);
  const auto put = [&](std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); };
  std::memcpy(b.data(), "DDS ", 4);
  put(4, 124);
  put(8, 0x1007 | (mips ? 0x20000u : 0u));
  put(12, h), put(16, w), put(28, mips);
  put(76, 32);
  if (fourcc) {
    put(80, 0x4);
    std::memcpy(b.data() + 84, fourcc, 4);
  } else {
    put(80, 0x40 | (masks[3] ? 0x1u : 0u));
    put(88, bits);
    for (std::size_t i = 0; i < 4; ++i) put(92 + 4 * i, masks[i]);
  }
  put(108, 0x1000);
  b.resize(128 + data.size());  // (not insert: GCC 12 warns falsely about it here)
  if (!data.empty()) std::memcpy(b.data() + 128, data.data(), data.size());
  return b;
}

TEST(Dds, EverySampleMatchesItsReferenceSummary) {
  SCENERIA_REQUIRE_SAMPLES();
  int seen = 0;
  for (const auto& e : fs::directory_iterator(test::samples_dir() / "maszyna/models")) {
    if (e.path().extension() != ".dds") continue;
    ++seen;
    SCOPED_TRACE(e.path().filename().string());
    std::ifstream in(e.path().string() + ".reference-summary.json");
    const json ref = json::parse(in);
    const auto bytes = test::read_file(e.path());
    auto im = read_image(bytes);
    ASSERT_TRUE(im.ok()) << im.error().describe();
    EXPECT_EQ(im->width, ref["width"].get<std::uint32_t>());
    EXPECT_EQ(im->height, ref["height"].get<std::uint32_t>());
    EXPECT_EQ(im->mip_map_count, ref["mip_map_count"].get<std::uint32_t>());
    EXPECT_EQ(im->fourcc, ref["pixel_format"]["fourcc"].get<std::string>());
    EXPECT_EQ(fmt::format("{:#010x}", im->flags), ref["flags"].get<std::string>());
    EXPECT_EQ(im->engine_supported, ref["engine_supported"].get<bool>());
    EXPECT_EQ(im->expected_bytes, ref["expected_data_bytes"].get<std::uint64_t>());
    EXPECT_EQ(im->data_bytes, ref["actual_data_bytes"].get<std::uint64_t>());
    ASSERT_EQ(im->levels.size(), ref["mip_levels"].size());
    for (std::size_t i = 0; i < im->levels.size(); ++i) {
      const json& l = ref["mip_levels"][i];
      EXPECT_EQ(im->levels[i].width, l["width"].get<std::uint32_t>()) << i;
      EXPECT_EQ(im->levels[i].height, l["height"].get<std::uint32_t>()) << i;
      EXPECT_EQ(im->levels[i].offset, l["offset"].get<std::uint64_t>()) << i;
      EXPECT_EQ(im->levels[i].size, l["bytes"].get<std::uint64_t>()) << i;
    }
    // What `info --json` gives for it.
    MemorySource source(bytes, e.path().filename().string());
    auto doc = open_document(source);
    ASSERT_TRUE(doc.ok());
    const auto s = (*doc)->summary(0);
    EXPECT_EQ(s["width"].get<std::uint32_t>(), ref["width"].get<std::uint32_t>());
    EXPECT_EQ(s["height"].get<std::uint32_t>(), ref["height"].get<std::uint32_t>());
    EXPECT_EQ(s["mips"].get<std::size_t>(), ref["mip_levels"].size());
    EXPECT_EQ(s["fourcc"].get<std::string>(), ref["pixel_format"]["fourcc"].get<std::string>());
  }
  EXPECT_EQ(seen, 5);
}

TEST(Dds, TheOneByOneDxt5DecodesToItsPixel) {
  SCENERIA_REQUIRE_SAMPLES();
  // szyba_1_refl.dds: alpha endpoints 229/229 (index 0); colours 0x8BF1 and 0x7C0F, index 3 =
  // (c0 + 2 c1) / 3 of the expanded 565 colours: (140,125,140) and (123,130,123) -> (128,128,128).
  const auto bytes = test::read_file(test::samples_dir() / "maszyna/models/szyba_1_refl.dds");
  auto im = read_image(bytes);
  ASSERT_TRUE(im.ok());
  const scene::Texture t = to_texture(*im, bytes, "szyba");
  ASSERT_EQ(t.format, scene::Texture::Format::bc3);
  const auto px = scene::decode_blocks(t.format, t.width, t.height, t.levels[0]);
  EXPECT_EQ(px, (std::vector<std::uint8_t>{128, 128, 128, 229}));
}

TEST(Dds, ASizeThatIsNotAMultipleOfFourDecodesItsEdgeBlocks) {
  // 5x3 in DXT3: 2x1 blocks. The second block is solid green with alpha 8/15; only its first
  // column lies inside the image.
  std::vector<std::uint8_t> blocks(32, 0);
  for (int i = 0; i < 8; ++i) blocks[static_cast<std::size_t>(i)] = 0xFF;  // block 0: alpha 15 everywhere
  blocks[8] = 0x00, blocks[9] = 0xF8;                                      // block 0: red
  for (int i = 16; i < 24; ++i) blocks[static_cast<std::size_t>(i)] = 0x88;  // block 1: alpha 8
  blocks[24] = 0xE0, blocks[25] = 0x07;                                    // block 1: green
  const auto file = make_dds(5, 3, "DXT3", 0, blocks);
  auto im = read_image(file);
  ASSERT_TRUE(im.ok()) << im.error().describe();
  ASSERT_EQ(im->levels.size(), 1u);
  EXPECT_EQ(im->levels[0].size, 32u);
  const scene::Texture t = to_texture(*im, file, "t");
  const auto px = scene::decode_blocks(t.format, 5, 3, t.levels[0]);
  ASSERT_EQ(px.size(), 5u * 3 * 4);
  const auto at = [&](int x, int y) { return std::vector<std::uint8_t>(px.begin() + (y * 5 + x) * 4, px.begin() + (y * 5 + x) * 4 + 4); };
  EXPECT_EQ(at(0, 0), (std::vector<std::uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(at(3, 2), (std::vector<std::uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(at(4, 0), (std::vector<std::uint8_t>{0, 255, 0, 136}));
  EXPECT_EQ(at(4, 2), (std::vector<std::uint8_t>{0, 255, 0, 136}));
}

TEST(Dds, UncompressedPixelsAreReadByTheirMasksWithTheirMips) {
  // 2x2 BGR (24-bit) with a 1x1 mip: blue, green / red, white; then grey.
  const std::vector<std::uint8_t> data = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 128, 128, 128};
  const auto file = make_dds(2, 2, nullptr, 2, data, 24, {0xFF0000, 0xFF00, 0xFF, 0});
  auto im = read_image(file);
  ASSERT_TRUE(im.ok()) << im.error().describe();
  ASSERT_EQ(im->levels.size(), 2u);
  EXPECT_FALSE(im->engine_supported);  // the engine loads DXT1/3/5 only
  const scene::Texture t = to_texture(*im, file, "t");
  ASSERT_EQ(t.format, scene::Texture::Format::rgba8);
  EXPECT_EQ(t.levels[0], (std::vector<std::uint8_t>{0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 255, 255, 255, 255}));
  EXPECT_EQ(t.levels[1], (std::vector<std::uint8_t>{128, 128, 128, 255}));
  // A 16-bit 4444 ARGB pixel: the masks scale each field to 8 bits.
  const auto argb = make_dds(1, 1, nullptr, 0, {0x4F, 0x8C}, 16, {0x0F00, 0x00F0, 0x000F, 0xF000});
  auto im2 = read_image(argb);
  ASSERT_TRUE(im2.ok());
  EXPECT_EQ(to_texture(*im2, argb, "t").levels[0], (std::vector<std::uint8_t>{0xCC, 0x44, 0xFF, 0x88}));
}

TEST(Dds, EachFourCCNamesItsBlocksAndWhatTheEngineLoads) {
  // DXT2 and DXT4 (premultiplied alpha) decode as DXT3 and DXT5 but the engine's load_DDS takes
  // DXT1, DXT3 and DXT5 only; a FourCC differing in a letter's case is none of them.
  using F = scene::Texture::Format;
  struct Case {
    const char* cc;
    F format;
    bool engine;
  };
  for (const Case& c : {Case{"DXT1", F::bc1, true}, Case{"DXT2", F::bc2, false}, Case{"DXT3", F::bc2, true},
                        Case{"DXT4", F::bc3, false}, Case{"DXT5", F::bc3, true}}) {
    SCOPED_TRACE(c.cc);
    const auto file = make_dds(4, 4, c.cc, 0, std::vector<std::uint8_t>(16));
    auto im = read_image(file);
    ASSERT_TRUE(im.ok()) << im.error().describe();
    EXPECT_EQ(im->format, c.format);
    EXPECT_EQ(im->fourcc, c.cc);
    EXPECT_EQ(im->engine_supported, c.engine);
  }
  auto lower = read_image(make_dds(4, 4, "DXt1", 0, std::vector<std::uint8_t>(16)));
  ASSERT_FALSE(lower.ok());
  EXPECT_NE(lower.error().describe().find("FourCC \"DXt1\""), std::string::npos) << lower.error().describe();
}

TEST(Dds, BrokenFilesAreRefusedWithWhatAndWhere) {
  struct Case {
    std::vector<std::uint8_t> bytes;
    Errc code;
    std::uint64_t offset;
    std::string says;
  };
  auto bad_size = make_dds(4, 4, "DXT1", 0, std::vector<std::uint8_t>(8));
  bad_size[4] = 100;
  auto huge = make_dds(4, 4, "DXT1", 0, std::vector<std::uint8_t>(8));
  huge[16] = 0, huge[17] = 0, huge[18] = 1;  // width 65536
  for (const Case& c : {Case{{'D', 'D', 'S', ' '}, Errc::truncated, 0, "128-byte header"},
                        Case{make_dds(4, 4, "ATI2", 0, std::vector<std::uint8_t>(16)), Errc::bad_value, 84, "FourCC \"ATI2\""},
                        Case{make_dds(8, 8, "DXT5", 0, std::vector<std::uint8_t>(40)), Errc::truncated, 128, "needs 64 bytes; 40 follow"},
                        Case{bad_size, Errc::bad_value, 4, "header size 100"},
                        Case{huge, Errc::bad_value, 12, "65536x4"}}) {
    SCOPED_TRACE(c.says);
    auto im = read_image(c.bytes);
    ASSERT_FALSE(im.ok());
    EXPECT_EQ(im.error().code, c.code);
    EXPECT_EQ(im.error().offset, c.offset);
    EXPECT_NE(im.error().message.find(c.says), std::string::npos) << im.error().message;
  }
  // A chain cut short is a cut file: refused at the level it breaks in (the engine would read
  // past its end), as is one a byte short; the whole chain reads.
  const auto cut = make_dds(8, 8, "DXT1", 4, std::vector<std::uint8_t>(32 + 8 + 4));
  auto im = read_image(cut);
  ASSERT_FALSE(im.ok());
  EXPECT_EQ(im.error().code, Errc::truncated);
  EXPECT_EQ(im.error().offset, 128u + 32 + 8);
  EXPECT_NE(im.error().message.find("level 2 of 4 (2x2) needs 8 bytes at 0xa8; the file ends at 0xac"), std::string::npos) << im.error().message;
  EXPECT_FALSE(read_image(make_dds(8, 8, "DXT1", 4, std::vector<std::uint8_t>(32 + 8 + 8 + 7))).ok());
  auto whole = read_image(make_dds(8, 8, "DXT1", 4, std::vector<std::uint8_t>(32 + 8 + 8 + 8)));
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->levels.size(), 4u);
  EXPECT_EQ(whole->expected_bytes, 32u + 8 + 8 + 8);
}

}  // namespace
}  // namespace sceneria::dds
