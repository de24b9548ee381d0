// EU7B bytes checked against the format description, not against our own reader: the expected
// bytes and tables are built here by hand from the Polish spec and notes §6.2/§8, so a writer and
// a reader that agree with each other but not with the format still fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_source.hpp"

namespace sceneria::eu7b {
namespace {

using Bytes = std::vector<std::uint8_t>;

// ---- little-endian byte building and reading, independent of the codec ----

void put_u8(Bytes& b, std::uint8_t v) { b.push_back(v); }
void put_u16(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put_u32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put_i32(Bytes& b, std::int32_t v) { put_u32(b, static_cast<std::uint32_t>(v)); }
void put_f32(Bytes& b, float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, 4);
  put_u32(b, u);
}
void put_tag(Bytes& b, std::string_view tag) { b.insert(b.end(), tag.begin(), tag.end()); }

std::uint32_t get_u32(const Bytes& b, std::size_t at) {
  EXPECT_LE(at + 4, b.size());
  if (at + 4 > b.size()) return 0;
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

// The payload of the first chunk `tag`, found by walking the framing by hand: "EU7B", u32
// version, then (FourCC, u32 size including the 8-byte header) until the end.
std::optional<Bytes> chunk_payload(const Bytes& file, std::string_view tag) {
  std::size_t at = 8;
  while (at + 8 <= file.size()) {
    const std::uint32_t size = get_u32(file, at + 4);
    if (size < 8 || at + size > file.size()) return std::nullopt;
    if (std::string_view(reinterpret_cast<const char*>(file.data() + at), 4) == tag)
      return Bytes(file.begin() + static_cast<std::ptrdiff_t>(at + 8),
                   file.begin() + static_cast<std::ptrdiff_t>(at + size));
    at += size;
  }
  return std::nullopt;
}

Module decode(const Bytes& bytes) {
  MemorySource src(bytes, "oracle.eu7");
  auto m = read_module(src, {.load_pack = true, .decode_pack = true});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().describe());
  return m.ok() ? std::move(m).value() : Module{};
}

Bytes encode(const Module& m) {
  auto bytes = write_module(m);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().describe());
  return bytes.ok() ? std::move(bytes).value() : Bytes{};
}

// ---- PACK sub-chunk tables ----

constexpr Sid kHouse = 0, kLamp = 1, kHouseSkin = 2;

// One v7 module with a single flat section (row 250, col 250: x and z from 0 to 1000 m) holding
// `houses` identical houses and then `lamps` terrain lamps. Every placement lies in cell 0, so
// format 6's cell sort keeps the houses (the more frequent mesh) first, as formats 4 and 5 do.
Module one_section(std::size_t houses, std::size_t lamps) {
  Module m;
  m.container.version = 7;
  for (const char* s : {"dom.t3d", "lampa.t3d", "dom.dds"}) m.strings.push_back(s);
  m.chunks.push_back(Chunk{chunk::STRS, 0, StringsChunk{0, 3}, {}, false});
  PackSection s;
  for (std::size_t i = 0; i < houses + lamps; ++i) {
    Model mo;  // slim node flags 0: no name, ranges or bounds, so every record has one size
    const bool lamp = i >= houses;
    mo.terrain = lamp ? 1 : 0;  // terrain models are always solo (notes §6.4)
    mo.transition = 1;
    mo.location = {1.0f + static_cast<float>(i % 200), 0.0f, 1.0f + static_cast<float>(i / 200)};
    mo.scale = {1, 1, 1};
    mo.model_file = lamp ? kLamp : kHouse;
    mo.texture = lamp ? kNoString : kHouseSkin;
    s.solo.models.push_back(mo);
  }
  s.solo_count = static_cast<std::uint32_t>(s.solo.models.size());
  m.chunks.push_back(Chunk{chunk::PIDX, 0, std::vector<PidxEntry>{{250, 250, s.solo_count, 0}}, {}, false});
  PackChunk pack;
  pack.loaded = pack.decoded = true;
  pack.sections.push_back(std::move(s));
  m.chunks.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
  return m;
}

struct ExpectedChunk {
  std::uint32_t solo = 0, inst = 0, offset = 0;
};

TEST(Eu7bOracle, SubChunkTablesAtEveryBoundaryForFormats3To6) {
  constexpr std::size_t kLamps = 7;
  for (const SectionFormat f :
       {SectionFormat::chnk, SectionFormat::utex, SectionFormat::prot_inst, SectionFormat::v13}) {
    const int format = static_cast<int>(f);
    const bool with_inst = format >= 5;
    const std::uint32_t version = format == 6 ? 9 : format == 5 ? 8 : 7;
    for (const std::size_t n : {512u, 513u, 1024u, 1025u, 2048u, 2049u, 3000u}) {
      SCOPED_TRACE("format " + std::to_string(format) + ", " + std::to_string(n) + " models");
      auto converted = convert_module(one_section(n - kLamps, kLamps),
                                      {.version = version, .pack_format = f, .keep_pack_format = false});
      ASSERT_TRUE(converted.ok()) << converted.error().describe();
      const Bytes file = encode(*converted);

      // The rule, per format: the writer of format 3 (56d72fb2) always puts 512 models in a chunk;
      // those of formats 4, 5 and 6 (2ee5f933, 2f902469, tip) 256 once the section holds more than
      // 1024 models (runtime_module.hpp kPackSectionHeavyModelThreshold; packcounts samples).
      const std::size_t capacity = format >= 4 && n > 1024 ? 256 : 512;
      // Record sizes from notes §6.2 for flags-0 slim nodes without lights: MODL = 1 flags + 2
      // + 36 (loc, ang, scale) + 8 (two sids) + 8 (two empty counts); v13 solo swaps the sids for
      // two u16 and adds the cell byte; inst = u32 proto + 36 + sid name (+ cell in v13).
      const std::uint32_t solo_size = format == 6 ? 1 + 2 + 36 + 4 + 8 + 1 : 1 + 2 + 36 + 8 + 8;
      const std::uint32_t inst_size = format == 6 ? 4 + 36 + 4 + 1 : 4 + 36 + 4;
      // Houses come first (most frequent mesh; format 3 keeps the input order, which is the
      // same); in formats 5 and 6 they are the inst records, the terrain lamps stay solo.
      const std::size_t houses = n - kLamps;
      const std::size_t chunks = (n + capacity - 1) / capacity;
      const std::uint32_t umes = 2, utex = format >= 4 ? 1 : 0;  // dom.t3d, lampa.t3d; dom.dds
      const std::uint32_t header = 1 + 4 + 4 + (4 + 4 * umes) + (format >= 4 ? 4 + 4 * utex : 0) + 4 +
                                   static_cast<std::uint32_t>(chunks) * (with_inst ? 12 : 8);
      std::vector<ExpectedChunk> expected;
      std::uint32_t offset = header;
      for (std::size_t c = 0; c < chunks; ++c) {
        ExpectedChunk e;
        for (std::size_t i = c * capacity; i < std::min(n, (c + 1) * capacity); ++i)
          (with_inst && i < houses ? e.inst : e.solo) += 1;
        e.offset = offset;
        offset += e.solo * solo_size + e.inst * inst_size;
        expected.push_back(e);
      }
      const std::uint32_t section_size = offset;

      // The written bytes: PIDX has the one section at offset 0; PACK is exactly that section.
      const auto pidx = chunk_payload(file, "PIDX");
      const auto pack = chunk_payload(file, "PACK");
      ASSERT_TRUE(pidx && pack);
      ASSERT_EQ(pidx->size(), 4u + 16u);
      EXPECT_EQ(get_u32(*pidx, 0), 1u);
      EXPECT_EQ(get_u32(*pidx, 8), n);                           // u32 model_count
      EXPECT_EQ(get_u32(*pidx, 12) | get_u32(*pidx, 16), 0u);    // u64 pack_offset
      const Bytes& s = *pack;
      ASSERT_EQ(s.size(), section_size);
      EXPECT_EQ(s[0], format);
      EXPECT_EQ(get_u32(s, 1), with_inst ? kLamps : n);          // solo
      EXPECT_EQ(get_u32(s, 5), with_inst ? houses : 0u);         // inst
      std::size_t at = 9;
      EXPECT_EQ(get_u32(s, at), umes);
      at += 4 + 4 * umes;
      if (format >= 4) {
        EXPECT_EQ(get_u32(s, at), utex);
        at += 4 + 4 * utex;
      }
      ASSERT_EQ(get_u32(s, at), chunks);
      at += 4;
      for (std::size_t c = 0; c < chunks; ++c) {
        SCOPED_TRACE("sub-chunk " + std::to_string(c));
        EXPECT_EQ(get_u32(s, at), expected[c].solo);
        at += 4;
        if (with_inst) {
          EXPECT_EQ(get_u32(s, at), expected[c].inst);
          at += 4;
        }
        EXPECT_EQ(get_u32(s, at), expected[c].offset);
        at += 4;
      }
      EXPECT_EQ(at, header);

      // Each sub-chunk decodes from its own bytes, in any order, to the counts the table holds.
      const Module back = decode(file);
      EXPECT_TRUE(validate(back).empty());
      const SectionContext ctx = section_context(back, back.pidx()->front());
      auto head = decode_section_header(s, 0, ctx);
      ASSERT_TRUE(head.ok()) << head.error().describe();
      ASSERT_EQ(head->chunks.size(), chunks);
      for (std::size_t c = chunks; c-- > 0;) {
        PackSection one;
        ASSERT_FALSE(decode_section_chunk(s, 0, *head, c, ctx, one)) << "sub-chunk " << c;
        EXPECT_EQ(one.solo.models.size(), expected[c].solo);
        EXPECT_EQ(one.inst.size(), expected[c].inst);
        for (const Instance& i : one.inst) EXPECT_EQ(i.proto, 0u);  // the one house prototype
        if (with_inst)
          for (const Model& mo : one.solo.models) EXPECT_EQ(mo.terrain, 1);  // only lamps are solo
      }
    }
  }
}

// ---- TERR (notes §8, spec §16) ----

PackedVertex vertex(float x, float y, float z, std::uint16_t u, std::uint16_t v) {
  PackedVertex p;
  p.position[0] = x;
  p.position[1] = y;
  p.position[2] = z;
  p.normal[1] = 32767;  // (0, 1, 0) as snorm16
  p.uv[0] = u;
  p.uv[1] = v;
  return p;
}

void put_vertex(Bytes& b, const PackedVertex& p) {
  for (float c : p.position) put_f32(b, c);
  for (std::int16_t n : p.normal) put_u16(b, static_cast<std::uint16_t>(n));
  put_u16(b, p.uv[0]);
  put_u16(b, p.uv[1]);
}

TEST(Eu7bOracle, BatchedTerrainIsFlagsMaterialLightingThenSectionBatches) {
  const PackedVertex a = vertex(-500.5f, 1.25f, 1000.75f, 0x3C00, 0x4000);  // half 1.0, 2.0
  const PackedVertex b = vertex(-400.0f, 1.5f, 1100.0f, 0x0000, 0x3800);    // half 0.0, 0.5
  const PackedVertex c = vertex(-450.0f, 2.0f, 1200.0f, 0x3C00, 0x3C00);

  // Spec §16, batched: u8 flags (bit 1 lighting, bit 2 batched), sid material, the 48-byte
  // lighting block only because bit 1 is set, u32 batch count, then per batch i32 x, i32 z
  // (section indices), u32 vertex count, 22-byte vertices. No count before the flags.
  Bytes payload;
  put_u8(payload, 0x06);
  put_u32(payload, 0);  // "grass"
  for (float f : {0.5f, 0.6f, 0.7f, 1.0f, 0.1f, 0.2f, 0.3f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f}) put_f32(payload, f);
  put_u32(payload, 2);
  put_i32(payload, 249);
  put_i32(payload, 251);
  put_u32(payload, 3);
  for (const PackedVertex& v : {a, b, c}) put_vertex(payload, v);
  put_i32(payload, -3);  // unclamped: the reader ignores it, the writer does not clamp
  put_i32(payload, 250);
  put_u32(payload, 0);
  ASSERT_EQ(payload.size(), 1u + 4 + 48 + 4 + (12 + 3 * 22) + 12);

  Bytes file;
  put_tag(file, "EU7B");
  put_u32(file, 6);
  put_tag(file, "STRS");
  put_u32(file, 8 + 4 + 4 + 5);
  put_u32(file, 1);
  put_u32(file, 5);
  put_tag(file, "grass");
  put_tag(file, "TERR");
  put_u32(file, static_cast<std::uint32_t>(8 + payload.size()));
  file.insert(file.end(), payload.begin(), payload.end());

  // Our reader sees the spec's fields in the hand-built bytes...
  const Module m = decode(file);
  ASSERT_EQ(m.chunks.size(), 2u);
  const auto* t = std::get_if<Terrain>(&m.chunks[1].data);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->flags, terrain_flag::lighting | terrain_flag::batched);
  EXPECT_EQ(m.strings[t->material], "grass");
  EXPECT_EQ(t->lighting.diffuse[1], 0.6f);
  EXPECT_EQ(t->lighting.ambient[2], 0.3f);
  ASSERT_EQ(t->batches.size(), 2u);
  EXPECT_EQ(t->batches[0].section_x, 249);
  EXPECT_EQ(t->batches[0].section_z, 251);
  ASSERT_EQ(t->batches[0].vertices.size(), 3u);
  EXPECT_EQ(t->batches[0].vertices[0].position[2], 1000.75f);
  EXPECT_EQ(t->batches[0].vertices[1].uv[1], 0x3800);
  EXPECT_EQ(t->batches[1].section_x, -3);
  EXPECT_TRUE(t->batches[1].vertices.empty());
  EXPECT_TRUE(t->legacy.empty());

  // ...and our writer produces them from the record.
  Module built;
  built.container.version = 6;
  built.strings.push_back("grass");
  built.chunks.push_back(Chunk{chunk::STRS, 0, StringsChunk{0, 1}, {}, false});
  Terrain terrain;
  terrain.flags = terrain_flag::lighting | terrain_flag::batched;
  terrain.material = 0;
  terrain.lighting.diffuse = {0.5f, 0.6f, 0.7f, 1.0f};
  terrain.lighting.ambient = {0.1f, 0.2f, 0.3f, 1.0f};
  terrain.batches = {{249, 251, {a, b, c}}, {-3, 250, {}}};
  built.chunks.push_back(Chunk{chunk::TERR, 0, terrain, {}, false});
  EXPECT_EQ(encode(built), file);

  // Without bit 1 there is no lighting block: flags and material are followed by the count.
  terrain.flags = terrain_flag::batched;
  built.chunks[1].data = terrain;
  const auto plain = chunk_payload(encode(built), "TERR");
  ASSERT_TRUE(plain);
  ASSERT_EQ(plain->size(), payload.size() - 48);
  EXPECT_EQ((*plain)[0], 0x04);
  EXPECT_EQ(get_u32(*plain, 5), 2u);
  EXPECT_EQ(get_u32(*plain, 9), 249u);
}

// The generator writes terrain the way the reference writer does (notes §8): one TERR, batched,
// each batch keyed by the section index of every triangle's centroid, whole triangles only.
TEST(Eu7bOracle, GeneratedTerrainBatchesAreKeyedByTheSectionOfEachTriangle) {
  auto m = generate_module({.models = 200, .seed = 4, .track_km = 3.0});
  ASSERT_TRUE(m.ok()) << m.error().describe();
  const Bytes file = encode(*m);
  const auto payload = chunk_payload(file, "TERR");
  ASSERT_TRUE(payload);
  const Bytes& p = *payload;
  ASSERT_GE(p.size(), 9u);
  EXPECT_EQ(p[0] & 0x04, 0x04);  // batched
  std::size_t at = 1 + 4 + ((p[0] & 0x02) ? 48 : 0);
  const std::uint32_t batches = get_u32(p, at);
  at += 4;
  // Rows -1 to 3 (3 km of line plus one on either side) by columns -1 and 0.
  EXPECT_EQ(batches, 10u);
  std::size_t triangles = 0;
  for (std::uint32_t i = 0; i < batches; ++i) {
    const auto x = static_cast<std::int32_t>(get_u32(p, at));
    const auto z = static_cast<std::int32_t>(get_u32(p, at + 4));
    const std::uint32_t vertices = get_u32(p, at + 8);
    at += 12;
    ASSERT_EQ(vertices % 3, 0u);
    ASSERT_LE(at + std::size_t{vertices} * 22, p.size());
    for (std::uint32_t v = 0; v < vertices; v += 3) {
      double cx = 0, cz = 0;
      for (std::uint32_t k = 0; k < 3; ++k) {
        float px, pz;
        std::memcpy(&px, p.data() + at + (v + k) * 22, 4);
        std::memcpy(&pz, p.data() + at + (v + k) * 22 + 8, 4);
        cx += px / 3.0;
        cz += pz / 3.0;
      }
      EXPECT_EQ(static_cast<std::int32_t>(std::floor(cx / 1000.0 + 250)), x);
      EXPECT_EQ(static_cast<std::int32_t>(std::floor(cz / 1000.0 + 250)), z);
      ++triangles;
    }
    at += std::size_t{vertices} * 22;
  }
  EXPECT_EQ(at, p.size());
  EXPECT_EQ(triangles, 10u * 200u);  // 10 x 10 quads of two triangles per batch
}

}  // namespace
}  // namespace sceneria::eu7b
