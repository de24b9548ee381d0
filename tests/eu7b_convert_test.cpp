// Conversions between versions and PACK section formats, the generator, JSON and validation.
#include <gtest/gtest.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>

#include "core/text.hpp"
#include "formats/eu7b/codec.hpp"
#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/fields.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_sink.hpp"
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
  EXPECT_EQ(conversions, 19 * static_cast<int>(std::size(kTargets)));  // every sample with PACK
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

// The source's own version and section format, given explicitly: the reference's bytes back.
// Formats 5 and 6 number prototypes by first occurrence in the writer's input order, which the
// written (sorted) sections no longer show; the source's PROT must be kept, not renumbered.
TEST(Eu7bConvert, ExplicitSameFormatReencodingIsTheIdentityForEverySample) {
  SCENERIA_REQUIRE_SAMPLES();
  std::set<std::string> formats;
  std::size_t files = 0;
  for (const auto& path : test::eu7_samples()) {
    SCOPED_TRACE(path.string());
    const auto bytes = test::read_file(path);
    const Module source = decode(bytes);
    const PackChunk* pack = source.pack();
    const SectionFormat f = pack && !pack->sections.empty() ? pack->sections.front().format
                                                            : default_section_format(source.version());
    if (pack && !pack->sections.empty()) formats.insert(std::string(section_format_name(f)));
    auto converted = convert_module(source, {.version = source.version(), .pack_format = f, .keep_pack_format = false});
    ASSERT_TRUE(converted.ok()) << converted.error().describe();
    EXPECT_TRUE(encode(*converted) == bytes);
    ++files;
  }
  EXPECT_EQ(files, 33u);  // every .eu7 under samples/maszyna
  EXPECT_EQ(formats, (std::set<std::string>{"flat", "2", "3", "4", "5", "6"}));
}

// Format 5 keeps every skin, so it holds all that format 6 needs: v8/5 -> v9/6 is the v9 file.
TEST(Eu7bConvert, Format5BecomesTheReferenceFormat6File) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto dir = test::samples_dir() / "maszyna/eu7";
  auto out = convert_bytes(test::read_file(dir / "historic/wrapinc_linia053.v8-pack5.eu7"), 9, SectionFormat::v13,
                           /*lossy=*/true);
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_TRUE(*out == test::read_file(dir / "wrapinc_linia053.v9-pack6.eu7"));
}

// A module without models at version 7-9 is a root with an empty PIDX, (v8+) 0-byte PROT and
// empty PACK between the geometry and TRAC; at version 6 those go again.
TEST(Eu7bConvert, TdBecomesEachHistoricRootByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto dir = test::samples_dir() / "maszyna/eu7";
  const std::tuple<const char*, std::uint32_t, const char*> cases[] = {
      {"TD.v6.eu7", 7, "historic/TD.v7.eu7"},      {"TD.v6.eu7", 8, "historic/TD.v8.eu7"},
      {"TD.v6.eu7", 9, "TD.v9-root.eu7"},          {"TD.v9-root.eu7", 6, "TD.v6.eu7"},
      {"historic/TD.v8.eu7", 7, "historic/TD.v7.eu7"}, {"historic/TD.v7.eu7", 9, "TD.v9-root.eu7"}};
  for (const auto& [from, version, expected] : cases) {
    SCOPED_TRACE(std::string(from) + " -> v" + std::to_string(version));
    auto converted = convert_module(decode(test::read_file(dir / from)), {.version = version});
    ASSERT_TRUE(converted.ok()) << converted.error().describe();
    EXPECT_TRUE(encode(*converted) == test::read_file(dir / expected));
  }
}

// Versions 4 and 5 end an INCL record after its parameters (no site transform); the other chunks
// do not change.
TEST(Eu7bConvert, Versions4And5StoreIncludesWithoutSiteTransform) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto td6 = test::read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7");
  const Module source = decode(td6);
  for (const std::uint32_t version : {4u, 5u}) {
    SCOPED_TRACE(version);
    auto converted = convert_module(source, {.version = version});
    ASSERT_TRUE(converted.ok()) << converted.error().describe();
    const auto bytes = encode(*converted);
    // TD's 118 includes all have an identity site transform: 15 bytes each (u8 0 origins, u8 0
    // scales, 12-byte rotation, u8 group depth) disappear, and only from INCL (file offset 3412
    // in TD.v6, 6038 bytes; TRAK follows at 9450).
    ASSERT_EQ(bytes.size(), td6.size() - 118u * 15u);
    EXPECT_EQ(bytes[4], version);
    EXPECT_TRUE(std::equal(td6.begin() + 8, td6.begin() + 3412 + 4, bytes.begin() + 8));  // STRS, "INCL"
    auto u32_at = [](const std::vector<std::uint8_t>& b, std::size_t at) {
      std::uint32_t v = 0;
      std::memcpy(&v, b.data() + at, 4);
      return v;
    };
    EXPECT_EQ(u32_at(bytes, 3412 + 4), 6038u - 118u * 15u);
    EXPECT_EQ(u32_at(bytes, 3412 + 8), 118u);
    // Record by record: u32 line, sid source, sid binary, u32 n + n sids, then (v6 only) 15 bytes.
    std::size_t at6 = 3412 + 12, at5 = 3412 + 12;
    for (int i = 0; i < 118; ++i) {
      const std::size_t head = 16 + 4 * std::size_t{u32_at(td6, at6 + 12)};
      ASSERT_TRUE(std::equal(td6.begin() + at6, td6.begin() + at6 + head, bytes.begin() + at5)) << "include " << i;
      const std::vector<std::uint8_t> identity(15, 0);
      ASSERT_TRUE(std::equal(identity.begin(), identity.end(), td6.begin() + at6 + head)) << "include " << i;
      at6 += head + 15;
      at5 += head;
    }
    EXPECT_EQ(at6, 9450u);
    EXPECT_TRUE(std::equal(td6.begin() + 9450, td6.end(), bytes.begin() + at5));  // TRAK onwards
    // Read back at version 4/5 and up again: the v6 file.
    auto up = convert_module(decode(bytes), {.version = 6});
    ASSERT_TRUE(up.ok()) << up.error().describe();
    EXPECT_TRUE(encode(*up) == td6);
  }
  // A site transform that is not the identity cannot be stored: an error, or with allow_lossy a
  // listed loss.
  Module placed = source;
  auto* incl = placed.first<std::vector<Include>>();
  (*incl)[3].site.origins.push_back({100, 0, -50});
  (*incl)[7].site.group_depth = 1;
  auto strict = convert_module(placed, {.version = 5});
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().message.find("2 of 118 includes have one"), std::string::npos) << strict.error().message;
  std::vector<std::string> losses;
  auto lossy = convert_module(placed, {.version = 5, .allow_lossy = true, .losses = &losses});
  ASSERT_TRUE(lossy.ok()) << lossy.error().describe();
  ASSERT_EQ(losses.size(), 1u);
  EXPECT_NE(losses[0].find("2 of 118 includes"), std::string::npos);
  EXPECT_TRUE(encode(*lossy) == encode(*convert_module(source, {.version = 5})));
}

// Format 1 ("v8", never written by the reference): u8 1, u32 solo, u32 inst, solo MODL records,
// then inst records; recognised only when PROT is not empty (notes §6.1).
TEST(Eu7bConvert, SectionFormat1EncodesDecodesAndConverts) {
  // 3 lamps first (lights: solo), then 5 copies of one bench (inst), in one section.
  Module m;
  m.container.version = 7;
  for (const char* s : {"lampa.t3d", "lawka.t3d", "lawka.dds", "lawka_3"}) m.strings.push_back(s);
  m.chunks.push_back(Chunk{chunk::STRS, 0, StringsChunk{0, 4}, {}, false});
  PackSection flat;
  for (int i = 0; i < 8; ++i) {
    Model mo;
    mo.transition = 1;
    mo.location = {10.0f + i, 0.5f, 20.0f};
    mo.scale = {1, 1, 1};
    if (i < 3) {
      mo.model_file = 0;
      mo.lights = {static_cast<std::uint32_t>(flat.solo.light_states.size()), 1};
      flat.solo.light_states.push_back(1.0f);
    } else {
      mo.model_file = 1;
      mo.texture = 2;
      if (i == 5) {
        mo.node.flags = node_flag::name;
        mo.node.name = 3;
      }
    }
    flat.solo.models.push_back(mo);
  }
  flat.solo_count = 8;
  m.chunks.push_back(Chunk{chunk::PIDX, 0, std::vector<PidxEntry>{{250, 250, 8, 0}}, {}, false});
  PackChunk pack;
  pack.loaded = pack.decoded = true;
  pack.sections.push_back(flat);
  m.chunks.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
  const auto flat_bytes = encode(m);

  auto v8 = convert_module(decode(flat_bytes),
                           {.version = 8, .pack_format = SectionFormat::v8, .keep_pack_format = false});
  ASSERT_TRUE(v8.ok()) << v8.error().describe();
  const auto bytes = encode(*v8);
  const Module back = decode(bytes);
  ASSERT_EQ(back.prototypes()->prototypes.size(), 1u);
  const PackSection& s = back.pack()->sections.front();
  EXPECT_EQ(s.format, SectionFormat::v8);
  EXPECT_EQ(s.solo.models.size(), 3u);
  ASSERT_EQ(s.inst.size(), 5u);
  EXPECT_EQ(s.inst[2].name, 3u);
  EXPECT_TRUE(s.chunks.empty() && s.meshes.empty() && s.textures.empty());
  // The section's bytes: 9-byte header, 3 MODL records of 59 bytes (flags-0 node, 2 + 36 + 8,
  // one light: 4 + 4, no colours: 4), then 5 inst records of 44 bytes, nothing else.
  const std::vector<std::uint8_t> section = encode_section(s);
  ASSERT_EQ(section.size(), 9u + 3u * 59u + 5u * 44u);
  EXPECT_EQ(section[0], 1);
  EXPECT_EQ(section[1], 3);  // u32 solo
  EXPECT_EQ(section[5], 5);  // u32 inst
  std::uint32_t proto = 99;
  std::memcpy(&proto, section.data() + 9 + 3 * 59, 4);
  EXPECT_EQ(proto, 0u);
  // Same-format re-encoding is the identity, and flat again gives the flat bytes back (the
  // solo records came first in the source, so the order survives).
  auto again = convert_module(back, {.version = 8, .pack_format = SectionFormat::v8, .keep_pack_format = false});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(encode(*again) == bytes);
  auto to_flat = convert_module(back, {.version = 7, .pack_format = SectionFormat::flat, .keep_pack_format = false});
  ASSERT_TRUE(to_flat.ok());
  EXPECT_TRUE(encode(*to_flat) == flat_bytes);
  // Without a repeated placement PROT would be empty and the reader would take the byte 1 for a
  // flat section's first flags byte: refused.
  auto lone = decode(flat_bytes);
  std::get<PackChunk>(lone.chunks[2].data).sections.front().solo.models.resize(4);
  std::get<PackChunk>(lone.chunks[2].data).sections.front().solo_count = 4;
  std::get<std::vector<PidxEntry>>(lone.chunks[1].data).front().model_count = 4;
  auto refused = convert_module(lone, {.version = 8, .pack_format = SectionFormat::v8, .keep_pack_format = false});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("non-empty PROT"), std::string::npos) << refused.error().message;
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

void expect_json_round_trip(const std::vector<std::uint8_t>& bytes) {
  auto j = module_to_json(decode(bytes));
  ASSERT_TRUE(j.ok()) << j.error().describe();
  const std::string text = j->dump();
  auto parsed = nlohmann::json::parse(text);
  auto m = module_from_json(parsed);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_TRUE(encode(*m) == bytes);
}

TEST(Eu7bJson, EverySampleRoundTripsThroughJson) {
  SCENERIA_REQUIRE_SAMPLES();
  std::size_t files = 0;
  for (const auto& path : test::eu7_samples()) {
    SCOPED_TRACE(path.string());
    expect_json_round_trip(test::read_file(path));
    ++files;
  }
  EXPECT_EQ(files, 33u);  // every .eu7 under samples/maszyna
}

TEST(Eu7bJson, GeneratedModulesRoundTripThroughJson) {
  expect_json_round_trip(encode(*generate_module({.models = 3000, .seed = 9})));
  expect_json_round_trip(encode(*generate_module({.models = 500, .seed = 9, .version = 7,
                                                  .pack_format = SectionFormat::flat, .keep_default_format = false})));
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

// The streamed JSON (docs/eu7b-json.md, "Big modules"): the same document as the tree, read
// back to the same bytes, errors with the same paths.
std::string stream_text(const Module& m, int indent = -1, unsigned threads = 1) {
  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  const Error e = write_module_json(m, sink, indent, threads);
  EXPECT_FALSE(e) << e.describe();
  return std::string(out.begin(), out.end());
}

Result<Module> stream_read(const std::string& text, std::uint64_t tree_limit = std::uint64_t{256} << 20, unsigned threads = 1) {
  MemorySource source(std::vector<std::uint8_t>(text.begin(), text.end()), "m.json");
  return read_module_json(source, tree_limit, threads);
}

void expect_stream_round_trip(const std::vector<std::uint8_t>& bytes) {
  const Module decoded = decode(bytes);
  auto tree = module_to_json(decoded);
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  // Written from the decoded module and from the module with PACK still encoded: one document,
  // equal to the tree's (numbers may differ in their last digit's spelling, never in value).
  const std::string text = stream_text(decoded);
  MemorySource source(std::span<const std::uint8_t>(bytes), "m.eu7");
  auto raw = read_module(source, {.load_pack = true});
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(stream_text(*raw), text);
  EXPECT_EQ(nlohmann::ordered_json::parse(text), *tree);
  EXPECT_EQ(nlohmann::ordered_json::parse(stream_text(decoded, 1)), *tree);
  EXPECT_NE(stream_text(decoded, 1).find("{\n \"format\": \"eu7b\",\n \"schema\": 1,"), std::string::npos);
  // Read back as it streams: PACK comes back encoded, and the module writes the original bytes.
  auto back = stream_read(text, 0);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  if (back->pack()) EXPECT_FALSE(back->pack()->decoded);
  EXPECT_TRUE(encode(*back) == bytes);
  // Sections written and read on three threads: the same text, the same bytes.
  EXPECT_EQ(stream_text(*raw, -1, 3), text);
  EXPECT_EQ(stream_text(decoded, 1, 3), stream_text(decoded, 1));
  auto side_by_side = stream_read(text, 0, 3);
  ASSERT_TRUE(side_by_side.ok()) << side_by_side.error().describe();
  EXPECT_TRUE(encode(*side_by_side) == bytes);
  // The module writer that hands its chunks to a sink writes the same bytes, PACK encoded or not.
  for (const Module* m : std::initializer_list<const Module*>{&*back, &decoded}) {
    std::vector<std::uint8_t> sunk;
    VectorByteSink sink(sunk);
    EXPECT_FALSE(write_module(*m, sink));
    EXPECT_TRUE(sunk == bytes);
  }
  // And the tree reader reads the streamed text to the same bytes.
  auto from_tree = module_from_json(nlohmann::json::parse(text));
  ASSERT_TRUE(from_tree.ok()) << from_tree.error().describe();
  EXPECT_TRUE(encode(*from_tree) == bytes);
}

TEST(Eu7bJsonStream, EverySampleStreamsBothWays) {
  SCENERIA_REQUIRE_SAMPLES();
  std::size_t files = 0;
  for (const auto& path : test::eu7_samples()) {
    SCOPED_TRACE(path.string());
    expect_stream_round_trip(test::read_file(path));
    ++files;
  }
  EXPECT_EQ(files, 33u);  // every .eu7 under samples/maszyna
}

TEST(Eu7bJsonStream, GeneratedModulesOfEveryPackFormatStreamBothWays) {
  expect_stream_round_trip(encode(*generate_module({.models = 3000, .seed = 9})));
  for (SectionFormat f : {SectionFormat::flat, SectionFormat::v13, SectionFormat::prot_inst}) {
    SCOPED_TRACE(std::string(section_format_name(f)));
    expect_stream_round_trip(encode(*generate_module({.models = 700, .seed = 4, .version = 8, .pack_format = f,
                                                      .keep_default_format = false})));
  }
}

TEST(Eu7bJsonStream, NumbersAndTextAreWrittenAsTheTreeWritesThem) {
  Module m = decode(encode(*generate_module({.models = 50, .seed = 3})));
  m.strings.push_back("tab\there \"q\" back\\slash \x01 nl\n");
  m.strings.push_back("plot_S\xb3up_A.t3d");
  StringsChunk* last = nullptr;  // the last STRS holds them
  for (Chunk& c : m.chunks)
    if (auto* strs = std::get_if<StringsChunk>(&c.data)) last = strs;
  ASSERT_NE(last, nullptr);
  last->count += 2;
  auto* tracks = m.first<RecordList<Track>>();
  ASSERT_NE(tracks, nullptr);
  const float odd[] = {0.0f, -0.0f, 1.0f, 0x1p-20f, 0x1p40f, 0x1p60f, 0.0625f, 0x1p-149f, std::nanf(""), INFINITY, -0.1f};
  for (std::size_t i = 0; i < std::size(odd) && i < tracks->records.size(); ++i) tracks->records[i].paths.at(0).p1.x = odd[i];
  const std::string text = stream_text(m);
  EXPECT_NE(text.find(R"("tab\there \"q\" back\\slash \u0001 nl\n")"), std::string::npos);
  EXPECT_NE(text.find(R"({"cp1250":"plot_Słup_A.t3d"})"), std::string::npos);
  EXPECT_EQ(nlohmann::ordered_json::parse(text), *module_to_json(m));
  // Whole numbers keep ".0", exponents have two digits, NaN and infinity keep their bits.
  for (const char* form : {"\"p1\":[0.0,", "\"p1\":[-0.0,", "\"p1\":[1.0,", "\"p1\":[9.5367431640625e-07,",
                           "\"p1\":[1099511627776.0,", "\"p1\":[1.152921504606847e+18,", "\"p1\":[0.0625,",
                           "\"p1\":[1.401298464324817e-45,", "\"p1\":[\"0x7fc00000\",", "\"p1\":[\"0x7f800000\","})
    EXPECT_NE(text.find(form), std::string::npos) << form;
  auto back = stream_read(text);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(encode(*back) == encode(m));
}

// A source read only through read(), as a file is without a mapping (and in the browser).
class ReadOnlySource final : public ByteSource {
 public:
  explicit ReadOnlySource(MemorySource& inner) : inner_(inner) {}
  std::uint64_t size() const override { return inner_.size(); }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override { return inner_.read(offset, out); }
  const std::string& name() const override { return inner_.name(); }

 private:
  MemorySource& inner_;
};

TEST(Eu7bJsonStream, DocumentsOfManyBlocksReadFromMemoryAndThroughReads) {
  const std::vector<std::uint8_t> bytes = encode(*generate_module({.models = 20000, .seed = 8}));
  const std::string text = stream_text(decode(bytes));
  ASSERT_GT(text.size(), std::size_t{3} << 20);  // several of the reader's 1 MB blocks
  MemorySource memory(std::vector<std::uint8_t>(text.begin(), text.end()), "m.json");
  ReadOnlySource through_reads(memory);
  for (ByteSource* source : {static_cast<ByteSource*>(&memory), static_cast<ByteSource*>(&through_reads)}) {
    auto m = read_module_json(*source, 0);
    ASSERT_TRUE(m.ok()) << m.error().describe();
    EXPECT_TRUE(encode(*m) == bytes);
  }
}

// Where each PACK section's text starts ('{'), the end of the list last; and which section's text
// is the biggest and which the smallest.
struct SectionTexts {
  std::vector<std::size_t> starts;
  std::size_t big = 0, small = 0;
  std::size_t size(std::size_t k) const { return starts[k + 1] - starts[k]; }
};
SectionTexts section_texts(const std::string& text) {
  SectionTexts t;
  const std::size_t list = text.find("\"sections\":[");
  for (std::size_t at = text.find("{\"format\":", list); list != std::string::npos && at != std::string::npos;
       at = text.find("{\"format\":", at + 1))
    t.starts.push_back(at);
  t.starts.push_back(text.find("]}", t.starts.empty() ? 0 : t.starts.back()));
  for (std::size_t k = 0; k + 1 < t.starts.size(); ++k) {
    if (t.size(k) > t.size(t.big)) t.big = k;
    if (t.size(k) < t.size(t.small)) t.small = k;
  }
  return t;
}
// Five sections of 50,000 models on average: some over the 8 MB of text a section is cut out at
// (read where it lies), some under (cut out and read on another thread).
Module mixed_sections() { return decode(encode(*generate_module({.models = 250000, .seed = 5, .models_per_section = 50000}))); }

TEST(Eu7bJsonStream, ASectionTooBigToCutOutIsReadWhereItLies) {
  const Module m = mixed_sections();
  const std::vector<std::uint8_t> bytes = encode(m);
  for (int indent : {-1, 2}) {
    const std::string text = stream_text(m, indent, 2);
    if (indent < 0) {
      const SectionTexts t = section_texts(text);
      ASSERT_EQ(t.starts.size(), m.pack()->sections.size() + 1);
      ASSERT_GT(t.size(t.big), std::size_t{8} << 20);
      ASSERT_LT(t.size(t.small), std::size_t{8} << 20);
    }
    for (unsigned threads : {1u, 2u}) {
      SCOPED_TRACE(threads);
      auto back = stream_read(text, 0, threads);
      ASSERT_TRUE(back.ok()) << back.error().describe();
      EXPECT_TRUE(encode(*back) == bytes);
    }
  }
}

TEST(Eu7bJsonStream, OtherMemberOrdersAreReadAsATree) {
  const Module m = decode(encode(*generate_module({.models = 200, .seed = 6})));
  // nlohmann::json sorts members by name: "chunks" before "strings", "id" after "records".
  const std::string sorted = nlohmann::json::parse(stream_text(m)).dump();
  auto back = stream_read(sorted);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(encode(*back) == encode(m));
  auto refused = stream_read(sorted, 0);  // too big for a tree: the order is named
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("\"chunks\" comes before \"strings\""), std::string::npos) << refused.error().message;
}

TEST(Eu7bJsonStream, BadDocumentsSayWhereAsTheTreeReaderDoes) {
  const Module m = decode(encode(*generate_module({.models = 100, .seed = 1})));
  const std::string text = stream_text(m);
  auto both = [&](auto&& change, const std::string& expected) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
    change(doc);
    auto streamed = stream_read(doc.dump(), 0);
    auto tree = module_from_json(nlohmann::json::parse(doc.dump()));
    ASSERT_FALSE(streamed.ok());
    ASSERT_FALSE(tree.ok());
    EXPECT_EQ(streamed.error().message, expected);
    EXPECT_EQ(tree.error().message, expected);
  };
  both([](auto& d) { d["chunks"][3]["records"][2]["paths"][0].erase("p2"); }, "chunks[3].records[2].paths[0].p2: missing");
  both([](auto& d) { d["chunks"][3]["records"][0]["type"] = 300; }, "chunks[3].records[0].type: expected an integer in [0, 255]");
  both([](auto& d) { d["chunks"][3]["records"][1]["node"]["name"] = "x"; },
       "chunks[3].records[1].node.name: expected a string id (0 or more, or -1 for none)");
  both([](auto& d) { d["schema"] = 99; }, "unsupported EU7B JSON schema (this build reads schema 1)");
  both([](auto& d) { d["strings"][4] = 7; }, "strings[4]: expected a string, {\"cp1250\": …} or {\"hex\": …}");
  both([](auto& d) { d["chunks"][0]["count"] = 100000; }, "chunks[0].count: STRS chunks claim 100000 strings but \"strings\" has "
                                                          + std::to_string(m.strings.size()));
  std::size_t pack = 0;
  for (std::size_t i = 0; i < m.chunks.size(); ++i)
    if (m.chunks[i].id == chunk::PACK) pack = i;
  both([&](auto& d) { d["chunks"][pack]["sections"][0]["solo"][0]["location"] = {1, 2}; },
       fmt::format("chunks[{}].sections[0].solo[0].location: expected [x, y, z]", pack));
  both([&](auto& d) { d["chunks"][pack]["sections"][0]["format"] = "9"; },
       fmt::format("chunks[{}].sections[0].format: expected \"flat\" or \"1\"…\"6\"", pack));
  // A sub-chunk table that does not add up to the lists (the encoder would write what it names).
  const nlohmann::ordered_json first = nlohmann::ordered_json::parse(text)["chunks"][pack]["sections"][0];
  const std::size_t solo = first["solo"].size();
  both([&](auto& d) { d["chunks"][pack]["sections"][0]["chunks"][0]["solo"] = first["chunks"][0]["solo"].get<std::size_t>() + 4; },
       fmt::format("chunks[{}].sections[0].chunks: the sub-chunks hold {} solo models but \"solo\" has {}", pack, solo + 4, solo));
}

TEST(Eu7bJsonStream, HostileTextFailsCleanly) {
  // Not JSON, truncated, nested far deeper than any stack, and no document at all.
  for (const std::string& text : {std::string("{\"format\":\"eu7b\",\"schema\":1,"), std::string("[1,2"),
                                  std::string(200000, '[') + std::string(200000, ']'), std::string("{\"format\": 7}"),
                                  std::string(""), std::string("\"eu7b\"")}) {
    auto m = stream_read(text);
    EXPECT_FALSE(m.ok()) << text.substr(0, 40);
  }
  auto m = stream_read("{\"format\":\"eu7b\",\"schema\":1,\"version\":9,\"strings\":[],\"chunks\":[}");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("not valid JSON at byte 63"), std::string::npos) << m.error().message;
}

// Sections are cut out of the text and parsed on their own (or, too big to cut out, where they
// lie): a break anywhere in them is reported where it is in the document, as RapidJSON reading
// the whole text reports it.
TEST(Eu7bJsonStream, BrokenSectionsSayWhereTheTextBreaks) {
  const std::string text = stream_text(mixed_sections());
  const SectionTexts sections = section_texts(text);
  const std::vector<std::size_t>& starts = sections.starts;
  const std::size_t big = sections.big, small = sections.small;
  ASSERT_GT(starts.size(), 3u);
  ASSERT_GT(sections.size(big), std::size_t{8} << 20);    // read where it lies
  ASSERT_LT(sections.size(small), std::size_t{8} << 20);  // cut out
  const auto expect_where = [&](const std::string& broken, const char* what) {
    SCOPED_TRACE(what);
    rapidjson::Reader reader;
    rapidjson::BaseReaderHandler<> ignore;
    rapidjson::StringStream whole(broken.c_str());
    const rapidjson::ParseResult r = reader.Parse<rapidjson::kParseIterativeFlag>(whole, ignore);
    ASSERT_FALSE(r);
    const std::string expected = fmt::format("not valid JSON at byte {}: {}", r.Offset(), rapidjson::GetParseError_En(r.Code()));
    for (unsigned threads : {1u, 2u}) {
      auto back = stream_read(broken, 0, threads);
      ASSERT_FALSE(back.ok());
      EXPECT_EQ(back.error().message, expected) << threads << " threads";
    }
  };
  const auto colon_in = [&](std::size_t section, std::size_t nth) {
    std::string broken = text;
    std::size_t at = starts[section];
    for (std::size_t k = 0; k <= nth; ++k) at = broken.find("\"location\":", at) + 10;
    broken[at] = ';';
    return broken;
  };
  expect_where(colon_in(0, 3), "a colon in the first section");
  expect_where(colon_in(small, 20000), "a colon deep in a section cut out");
  expect_where(colon_in(big, 50000), "a colon deep in a section read where it lies");
  expect_where(colon_in(starts.size() - 2, 1), "a colon in the last section");
  std::string no_comma = text;
  no_comma.erase(starts[1] - 1, 1);
  expect_where(no_comma, "no comma between two sections");
  std::string stray = text;
  stray.insert(starts[2] - 1, "x");
  expect_where(stray, "a stray letter between sections");
  expect_where(text.substr(0, starts[1] + 5000), "the text cut short in a section");
  expect_where(text.substr(0, starts[big] + (std::size_t{9} << 20)), "the text cut short in the big section");
  std::string open_string = text.substr(0, starts[1] + 20) + "\"never closed";
  expect_where(open_string, "a string never closed");
}

// PACK instances are read as fixed-size records (checked once, not field by field): a name past
// STRS is still said at the very offset of its field, and the strings it reaches are resolved.
TEST(Eu7bValidate, AnInstanceNamePastStringsIsSaidWhereItLies) {
  Module m = decode(encode(*generate_module({.models = 3000, .seed = 5})));
  PackChunk* pack = m.pack();
  ASSERT_NE(pack, nullptr);
  Instance* chosen = nullptr;
  for (PackSection& s : pack->sections)
    if (s.inst.size() > 7) chosen = &s.inst[7];
  ASSERT_NE(chosen, nullptr) << "the generated module has sections of instances";
  chosen->name = 0x00abcdef;
  const std::vector<std::uint8_t> bytes = encode(m);
  const std::uint8_t needle[4] = {0xef, 0xcd, 0xab, 0x00};
  const auto found = std::search(bytes.begin(), bytes.end(), std::begin(needle), std::end(needle));
  ASSERT_NE(found, bytes.end());
  ASSERT_EQ(std::search(found + 1, bytes.end(), std::begin(needle), std::end(needle)), bytes.end()) << "the id is found once";
  const Module bad = decode(bytes);
  const auto problems = validate(bad);
  std::size_t said = 0;
  for (const auto& p : problems)
    if (p.message.find("name 11259375 is outside STRS") != std::string::npos) {
      ++said;
      EXPECT_EQ(p.offset, static_cast<std::uint64_t>(found - bytes.begin())) << p.message;
    }
  EXPECT_EQ(said, 1u);
}

// The fixed-size read keeps the archive's word: every string id read counts toward the strings
// the records need resolved, and a list cut short is refused before a record is read.
TEST(Eu7bValidate, FixedSizeRecordsCountTheStringsTheyReach) {
  std::vector<std::uint8_t> bytes;
  for (const Sid name : {Sid{5}, kNoString, Sid{9}, Sid{2}}) {
    Instance i;
    i.proto = 1;
    i.name = name;
    BinaryOut out(bytes);
    fields(out, i, false);
  }
  ASSERT_EQ(bytes.size(), 4 * kInstanceSize);
  ByteReader r(bytes, 100, "test");
  BinaryIn a(r, 20, nullptr);
  std::vector<Instance> read;
  a.fixed_list_n("instances", read, 4, kInstanceSize, [&](FixedIn& in, Instance& i) { fields(in, i, false); });
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[2].name, 9u);
  EXPECT_EQ(a.string_reach(), 10u);
  ByteReader short_reader(std::span<const std::uint8_t>(bytes).first(bytes.size() - 1), 100, std::string("test"));
  BinaryIn b(short_reader, 20, nullptr);
  b.fixed_list_n("instances", read, 4, kInstanceSize, [&](FixedIn& in, Instance& i) { fields(in, i, false); });
  ASSERT_FALSE(short_reader.ok());
  EXPECT_EQ(short_reader.error().code, Errc::bad_count);
  EXPECT_EQ(b.string_reach(), 0u);
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
