// Conversions between versions and PACK section formats, the generator, JSON and validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "core/text.hpp"
#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_source.hpp"
#include "sample_files.hpp"

namespace sceneria::eu7b {
namespace {

Module decode(const std::vector<std::uint8_t>& bytes) {
  MemorySource src(bytes, "test.eu7");
  auto m = read_module(src, {.load_pack = true, .decode_pack = true});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().describe());
  return m.ok() ? std::move(m).value() : Module{};
}

std::vector<std::uint8_t> encode(const Module& m) {
  auto bytes = write_module(m);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().describe());
  return bytes.ok() ? std::move(bytes).value() : std::vector<std::uint8_t>{};
}

Result<std::vector<std::uint8_t>> convert_bytes(const std::vector<std::uint8_t>& bytes, std::uint32_t version,
                                                SectionFormat f, bool lossy = false) {
  auto converted = convert_module(decode(bytes), {.version = version, .pack_format = f, .keep_pack_format = false,
                                                  .allow_lossy = lossy});
  if (!converted) return converted.error();
  return write_module(*converted);
}

// A placement as a comparable value: (name, file, texture, location, angles, scale).
using Placed = std::tuple<std::string, std::string, std::string, std::array<float, 9>>;

std::multiset<Placed> placements(const Module& m, bool texture_as_format6) {
  std::multiset<Placed> out;
  auto str = [&](Sid id) { return id == kNoString ? std::string() : std::string(m.strings[id]); };
  for (const PackSection& s : m.pack()->sections)
    for (const ExpandedModel& e : expand_section(s, m.prototypes())) {
      std::string tex = str(e.texture);
      if (tex == "none") tex.clear();  // "none" and empty both mean "no replacement skin"
      // Format 6 solo records cannot hold filtered skins ('#', '*', ...); inst records keep them.
      if (texture_as_format6 && tex.find('#') != std::string::npos) tex.clear();
      out.insert({str(e.name), str(e.file), tex,
                  {e.location.x, e.location.y, e.location.z, e.angles.x, e.angles.y, e.angles.z, e.scale.x, e.scale.y,
                   e.scale.z}});
    }
  return out;
}

struct Target {
  std::uint32_t version;
  SectionFormat format;
};
const Target kTargets[] = {{7, SectionFormat::flat}, {7, SectionFormat::umes}, {7, SectionFormat::chnk},
                           {7, SectionFormat::utex}, {8, SectionFormat::prot_inst}, {9, SectionFormat::v13},
                           {9, SectionFormat::prot_inst}, {8, SectionFormat::v13}, {9, SectionFormat::flat}};

TEST(Eu7bConvert, FlatBecomesEveryReferenceFormatByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto dir = test::samples_dir() / "maszyna/eu7";
  const auto flat = test::read_file(dir / "historic/wrapinc_linia053.v7-flat.eu7");
  const std::tuple<std::uint32_t, SectionFormat, const char*> cases[] = {
      {7, SectionFormat::umes, "historic/wrapinc_linia053.v7-pack2.eu7"},
      {7, SectionFormat::chnk, "historic/wrapinc_linia053.v7-pack3.eu7"},
      {7, SectionFormat::utex, "historic/wrapinc_linia053.v7-pack4.eu7"},
      {8, SectionFormat::prot_inst, "historic/wrapinc_linia053.v8-pack5.eu7"},
      {9, SectionFormat::v13, "wrapinc_linia053.v9-pack6.eu7"}};
  for (const auto& [version, format, expected] : cases) {
    SCOPED_TRACE(expected);
    auto out = convert_bytes(flat, version, format, /*lossy=*/true);
    ASSERT_TRUE(out.ok()) << out.error().describe();
    EXPECT_TRUE(*out == test::read_file(dir / expected));
  }
}

TEST(Eu7bConvert, Format6RefusesToDropASkinUnlessAskedAndListsEachLoss) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto flat = test::read_file(test::samples_dir() / "maszyna/eu7/historic/wrapinc_linia053.v7-flat.eu7");
  auto strict = convert_bytes(flat, 9, SectionFormat::v13);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().message.find("texture 'bud/#ZabrzegStacja.tga'"), std::string::npos) << strict.error().message;
  std::vector<std::string> losses;
  auto lossy = convert_module(decode(flat), {.version = 9, .pack_format = SectionFormat::v13, .keep_pack_format = false,
                                             .allow_lossy = true, .losses = &losses});
  ASSERT_TRUE(lossy.ok());
  ASSERT_EQ(losses.size(), 2u);
  EXPECT_NE(losses[0].find("bud/#ZabrzegStacja.tga"), std::string::npos);
  EXPECT_NE(losses[1].find("pm/#red.tga"), std::string::npos);
}

TEST(Eu7bConvert, EverySectionFormatConvertsToEveryOtherAndKeepsTheModels) {
  SCENERIA_REQUIRE_SAMPLES();
  int conversions = 0;
  for (const auto& path : test::eu7_samples()) {
    const auto bytes = test::read_file(path);
    const Module source = decode(bytes);
    if (!source.pack() || source.pack()->sections.empty()) continue;
    SCOPED_TRACE(path.string());
    const bool source6 = source.pack()->sections.front().format == SectionFormat::v13;
    for (const Target& t : kTargets) {
      SCOPED_TRACE(std::to_string(t.version) + "/" + std::string(section_format_name(t.format)));
      auto out = convert_bytes(bytes, t.version, t.format, /*lossy=*/true);
      ASSERT_TRUE(out.ok()) << out.error().describe();
      const Module back = decode(*out);
      EXPECT_EQ(back.version(), t.version);
      EXPECT_TRUE(validate(back).empty()) << validate(back).front().message;
      for (const PackSection& s : back.pack()->sections) EXPECT_EQ(s.format, t.format);
      const bool lossy6 = source6 || t.format == SectionFormat::v13;
      EXPECT_EQ(placements(back, lossy6), placements(source, lossy6));
      ++conversions;
    }
  }
  EXPECT_EQ(conversions, 7 * static_cast<int>(std::size(kTargets)));
}

TEST(Eu7bConvert, UnrepresentableTargetsAreClearErrors) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto pack6 = test::read_file(test::samples_dir() / "maszyna/eu7/wrapinc_linia053.v9-pack6.eu7");
  auto v6 = convert_module(decode(pack6), {.version = 6});
  ASSERT_FALSE(v6.ok());
  EXPECT_NE(v6.error().message.find("version 6 has no PIDX/PACK: the 77 PACK models cannot be stored"), std::string::npos);
  auto v7_inst = convert_bytes(pack6, 7, SectionFormat::prot_inst);
  ASSERT_FALSE(v7_inst.ok());
  EXPECT_NE(v7_inst.error().message.find("needs prototypes (PROT), which exist from version 8"), std::string::npos);
}

TEST(Eu7bGenerator, DeterministicRealisticAndComplete) {
  GeneratorOptions o;
  o.models = 7000;
  o.seed = 42;
  auto a = generate_module(o);
  ASSERT_TRUE(a.ok()) << a.error().describe();
  const auto bytes = encode(*a);
  EXPECT_TRUE(encode(*generate_module(o)) == bytes);
  o.seed = 43;
  EXPECT_FALSE(encode(*generate_module(o)) == bytes);

  const Module m = decode(bytes);
  EXPECT_TRUE(validate(m).empty()) << validate(m).front().message;
  EXPECT_EQ(m.version(), 9u);
  std::set<std::string> ids;
  for (const Chunk& c : m.chunks) ids.insert(chunk_name(c.id));
  EXPECT_EQ(ids, (std::set<std::string>{"STRS", "INCL", "PLAC", "TRAK", "TERR", "MESH", "LINE", "MODL", "PIDX", "PROT",
                                        "PACK", "TRAC", "PWRS", "MEMC", "LAUN", "DYNM", "SOND", "TRSE", "EVNT", "FINT"}));
  const auto s = summary_json(m);
  EXPECT_EQ(s["counts"]["pack_models"], 7000);
  EXPECT_GE(s["counts"]["pidx_entries"].get<int>(), 3);
  EXPECT_GT(s["counts"]["prototypes"].get<int>(), 10);
  EXPECT_GT(s["counts"]["tracks"].get<int>(), 40);
  EXPECT_GT(s["counts"]["terrain_shapes"].get<int>(), 0);
  // Repeated model files became prototypes; lamps and signals (with lights) stayed solo.
  std::size_t inst = 0, lit = 0, chunks256 = 0;
  for (const PackSection& sec : m.pack()->sections) {
    inst += sec.inst.size();
    for (const Model& mo : sec.solo.models) lit += mo.lights.count > 0;
    if (sec.model_count() > 1024)
      for (const SectionChunkEntry& c : sec.chunks) chunks256 += c.solo + c.inst == 256;
  }
  EXPECT_GT(inst, 6000u);
  EXPECT_GT(lit, 50u);
  EXPECT_GT(chunks256, 0u);  // sections above 1024 models use 256-model sub-chunks
}

TEST(Eu7bGenerator, EveryVersionAndFormat) {
  for (const Target& t : kTargets) {
    SCOPED_TRACE(std::to_string(t.version) + "/" + std::string(section_format_name(t.format)));
    auto m = generate_module({.models = 1500, .seed = 5, .version = t.version, .pack_format = t.format,
                              .keep_default_format = false});
    ASSERT_TRUE(m.ok()) << m.error().describe();
    const Module back = decode(encode(*m));
    EXPECT_TRUE(validate(back).empty());
    EXPECT_EQ(pack_model_count(back), 1500u);
  }
}

TEST(Eu7bJson, EverySampleAndAGeneratedModuleRoundTripThroughJson) {
  std::vector<std::vector<std::uint8_t>> files;
  if (test::samples_available())
    for (const auto& path : test::eu7_samples()) files.push_back(test::read_file(path));
  files.push_back(encode(*generate_module({.models = 3000, .seed = 9})));
  files.push_back(encode(*generate_module({.models = 500, .seed = 9, .version = 7, .pack_format = SectionFormat::flat,
                                           .keep_default_format = false})));
  for (const auto& bytes : files) {
    auto j = module_to_json(decode(bytes));
    ASSERT_TRUE(j.ok()) << j.error().describe();
    const std::string text = j->dump();
    auto parsed = nlohmann::json::parse(text);
    auto m = module_from_json(parsed);
    ASSERT_TRUE(m.ok()) << m.error().describe();
    EXPECT_TRUE(encode(*m) == bytes);
  }
}

TEST(Eu7bJson, StringsKeepTheirBytes) {
  EXPECT_EQ(string_to_json("plain"), "plain");
  EXPECT_EQ(string_to_json("plot_S\xb3up_A.t3d").dump(), R"({"cp1250":"plot_Słup_A.t3d"})");
  EXPECT_EQ(string_to_json("\x81\x01").dump(), R"({"hex":"8101"})");
  std::string back;
  ASSERT_TRUE(string_from_json(nlohmann::json::parse(R"({"cp1250":"plot_Słup_A.t3d"})"), back));
  EXPECT_EQ(back, "plot_S\xb3up_A.t3d");
  ASSERT_TRUE(string_from_json(nlohmann::json::parse(R"({"hex":"8101"})"), back));
  EXPECT_EQ(back, "\x81\x01");
  EXPECT_FALSE(string_from_json(nlohmann::json::parse(R"({"cp1250":"€漢"})"), back));  // no CP1250 byte for 漢
}

TEST(Eu7bJson, BadDocumentsSayWhere) {
  auto j = *module_to_json(*generate_module({.models = 100, .seed = 1}));
  nlohmann::json doc = nlohmann::json::parse(j.dump());
  doc["chunks"][3]["records"][2]["paths"][0].erase("p2");
  auto m = module_from_json(doc);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, "chunks[3].records[2].paths[0].p2: missing");

  doc = nlohmann::json::parse(j.dump());
  doc["chunks"][3]["records"][0]["type"] = 300;
  m = module_from_json(doc);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, "chunks[3].records[0].type: expected an integer in [0, 255]");

  doc = nlohmann::json::parse(j.dump());
  doc["schema"] = 99;
  EXPECT_FALSE(module_from_json(doc).ok());
}

TEST(Eu7bValidate, FindsInconsistenciesWithOffsets) {
  Module m = decode(encode(*generate_module({.models = 300, .seed = 2})));
  ASSERT_TRUE(validate(m).empty());
  // A track whose name points past STRS, trailing bytes in MESH, a PIDX entry listed twice.
  auto* tracks = m.first<RecordList<Track>>();
  tracks->records[1].node.name = 999999;
  for (Chunk& c : m.chunks)
    if (c.id == chunk::MESH) c.trailing = {1, 2, 3};
  auto* pidx = m.first<std::vector<PidxEntry>>();
  PidxEntry twin = pidx->front();
  pidx->push_back(twin);
  const Module bad = decode(encode(m));
  const auto problems = validate(bad);
  std::string all;
  for (const auto& p : problems) all += p.message + "\n";
  EXPECT_NE(all.find("name 999999 is outside STRS"), std::string::npos) << all;
  EXPECT_NE(all.find("3 bytes after its records"), std::string::npos) << all;
  EXPECT_NE(all.find("twice"), std::string::npos) << all;
  for (const auto& p : problems) EXPECT_GT(p.offset, 0u) << p.message;
}

}  // namespace
}  // namespace sceneria::eu7b

namespace sceneria::eu7b {
namespace {

// TERR in both modes (the writer only emits batched; the document allows legacy and repeats).
TEST(Eu7bTerrain, LegacyAndBatchedChunksRoundTripAndCount) {
  Module m;
  m.container.version = 5;
  m.strings.push_back("grass");
  m.chunks.push_back(Chunk{chunk::STRS, 0, StringsChunk{0, 1}, {}, false});
  Terrain legacy;
  legacy.flags = terrain_flag::translucent | terrain_flag::lighting;
  legacy.material = 0;
  legacy.lighting.diffuse = {0.5f, 0.6f, 0.7f, 1.0f};
  for (int i = 0; i < 6; ++i) {
    PackedVertex v;
    v.position[0] = static_cast<float>(i);
    v.normal[1] = 32767;
    legacy.legacy.push_back(v);
  }
  Terrain batched;
  batched.flags = terrain_flag::batched;
  batched.material = 0;
  batched.batches.resize(3);
  batched.batches[1].section_x = 251;
  batched.batches[1].vertices.resize(9);
  m.chunks.push_back(Chunk{chunk::TERR, 0, legacy, {}, false});
  m.chunks.push_back(Chunk{chunk::TERR, 0, batched, {}, false});
  const auto bytes = encode(m);
  const Module back = decode(bytes);
  ASSERT_EQ(back.chunks.size(), 3u);
  const auto& t0 = std::get<Terrain>(back.chunks[1].data);
  EXPECT_EQ(t0.legacy.size(), 6u);
  EXPECT_EQ(t0.lighting.diffuse[2], 0.7f);
  EXPECT_EQ(t0.legacy[5].position[0], 5.0f);
  const auto& t1 = std::get<Terrain>(back.chunks[2].data);
  ASSERT_EQ(t1.batches.size(), 3u);
  EXPECT_EQ(t1.batches[1].section_x, 251);
  EXPECT_EQ(t1.batches[1].vertices.size(), 9u);
  // 2 legacy triangles + 3 batches, summed over both chunks as the reference reader appends.
  EXPECT_EQ(summary_json(back)["counts"]["terrain_shapes"], 5);
  EXPECT_TRUE(encode(back) == bytes);
  // Legacy payload: u8 flags, sid, 48-byte lighting, u32 triangle count, 6 x 22-byte vertices.
  EXPECT_EQ(back.container.chunks[1].payload_size(), 1u + 4 + 48 + 4 + 6 * 22);
}

}  // namespace
}  // namespace sceneria::eu7b
