// Inputs found by the fuzz targets (fuzz/), reduced to what mattered. Each stays fixed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "formats/e3d/e3d.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"
#include "scene/scene.hpp"

namespace sceneria::eu7b {
namespace {

// format_eu7b_fuzzer: a line's or shape's lighting colour of NaN reached the scene's colour
// packing, whose clamp passes NaN on to an undefined float → int conversion.
TEST(FuzzRegression, NanColoursPackAsZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(scene::rgba(nan, 1.0f, 0.5f, nan), 0x00'80'ff'00u);
  EXPECT_EQ(scene::rgba(-2.0f, 7.0f, 0.0f, 1.0f), 0xff'00'ff'00u);
}

// format_eu7b_fuzzer: a wire 4 km long hung 40 km from its messenger. Each of its 200 droppers
// was cut into 20 m pieces like a wire: 800 000 vertices from one 99-byte record (42 KB of them
// took 48 s). A dropper is one piece now.
TEST(FuzzRegression, ADropperIsOnePieceHoweverLong) {
  Module m;
  m.container.version = 6;
  m.strings.push_back("x");
  RecordList<Traction> wires;
  Traction w;
  w.p1 = {0, 6, 0};
  w.p2 = {0, 6, 4000};
  w.p3 = {40000, 7, 0};
  w.p4 = {40000, 7, 4000};
  w.segment_length = 1;
  wires.records.push_back(w);
  m.chunks.push_back(Chunk{chunk::TRAC, 0, std::move(wires), {}, false});
  auto s = to_scene(m);
  ASSERT_TRUE(s.ok());
  std::size_t vertices = 0;
  for (const scene::Section& sec : s->sections)
    for (const scene::Batch& b : sec.batches) vertices += b.positions.size();
  // Contact wire and messenger at 200 pieces each, 199 droppers of one: 2 x 200 x 2 + 199 x 2.
  EXPECT_EQ(vertices, 2u * 200 * 2 + 199 * 2);
}

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

// eu7b_module_fuzzer: a PIDX offset far past the PACK payload made the section *before* it run to
// that offset, an out-of-range span (and a 197 GB allocation for its "trailing bytes").
TEST(FuzzRegression, PidxOffsetBeyondThePackPayloadIsAnErrorNotASpan) {
  auto module = generate_module({.models = 4000, .seed = 3, .version = 7, .pack_format = SectionFormat::umes,
                                 .keep_default_format = false});
  ASSERT_TRUE(module.ok());
  auto bytes = write_module(*module).value();
  MemorySource walk_src(bytes, "g.eu7");
  auto container = read_container(walk_src);
  ASSERT_TRUE(container.ok());
  const ChunkInfo* pidx = nullptr;
  for (const ChunkInfo& c : container->chunks)
    if (c.id == chunk::PIDX) pidx = &c;
  ASSERT_NE(pidx, nullptr);
  const std::uint64_t huge = 197568495877ull;
  std::memcpy(bytes.data() + pidx->payload_offset() + 4 + 16 * 1 + 8, &huge, 8);  // entry 1's pack_offset

  MemorySource src(bytes, "g.eu7");
  auto m = read_module(src, {.load_pack = true, .decode_pack = true});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, Errc::truncated);
  EXPECT_NE(m.error().message.find("at PACK offset 197568495877 lies outside the"), std::string::npos)
      << m.error().message;
}

// eu7b_module_fuzzer: bytes after the last string of STRS were dropped on write.
TEST(FuzzRegression, StrsTrailingBytesSurviveAWrite) {
  const std::vector<std::uint8_t> strs = {1, 0, 0, 0, 2, 0, 0, 0, 'a', 'b', 0xde, 0xad, 0xbe};
  const RawChunk chunks[] = {{chunk::STRS, strs}, {chunk::FINT, {1, 0, 0, 0}}};
  const auto bytes = write_container(6, chunks);
  MemorySource src(bytes, "t.eu7");
  auto m = read_module(src);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->strings.size(), 1u);
  ASSERT_EQ(m->problems.size(), 1u);
  EXPECT_EQ(m->problems[0].offset, 16u + 10u);
  EXPECT_NE(m->problems[0].message.find("3 bytes after its strings"), std::string::npos);
  EXPECT_EQ(write_module(*m).value(), bytes);
}

// format_eu7b_fuzzer: a module with two PACK chunks wrote the first one's bytes in place of both.
// The reference reader keeps the last PACK (and the last PIDX and PROT); an earlier PACK is now
// kept as bytes, said in a problem, and written back as it was, in binary and through JSON.
TEST(FuzzRegression, APackThatALaterPackReplacesIsKeptAsBytes) {
  auto module = generate_module({.models = 300, .seed = 5, .version = 9});
  ASSERT_TRUE(module.ok());
  const auto plain = write_module(*module).value();
  MemorySource walk(plain, "g.eu7");
  auto container = read_container(walk);
  ASSERT_TRUE(container.ok());
  const std::vector<std::uint8_t> decoy = {0xde, 0xad, 0xbe, 0xef, 0x00};
  std::vector<RawChunk> chunks;
  std::size_t sections = 0;
  for (const ChunkInfo& c : container->chunks) {
    if (c.id == chunk::PACK) {
      chunks.push_back({chunk::PACK, decoy});
    }
    if (c.id == chunk::PIDX) sections = (c.payload_size() - 4) / 16;
    const auto payload = std::span(plain).subspan(c.payload_offset(), c.payload_size());
    chunks.push_back({c.id, {payload.begin(), payload.end()}});
  }
  const auto bytes = write_container(9, chunks);
  MemorySource src(bytes, "two-packs.eu7");
  auto m = read_module(src, {.load_pack = true, .decode_pack = true});
  ASSERT_TRUE(m.ok()) << m.error().describe();
  const ChunkInfo* first_pack = nullptr;
  const ChunkInfo* last_pack = nullptr;
  for (const ChunkInfo& c : m->container.chunks)
    if (c.id == chunk::PACK) (first_pack ? last_pack : first_pack) = &c;
  ASSERT_NE(last_pack, nullptr);
  ASSERT_NE(m->pack(), nullptr);
  EXPECT_EQ(m->pack()->payload_offset, last_pack->payload_offset());
  EXPECT_EQ(m->pack()->sections.size(), sections);
  std::size_t opaque_packs = 0;
  for (const Chunk& c : m->chunks)
    if (c.id == chunk::PACK && std::holds_alternative<OpaqueChunk>(c.data)) {
      ++opaque_packs;
      EXPECT_EQ(std::get<OpaqueChunk>(c.data).bytes, decoy);
    }
  EXPECT_EQ(opaque_packs, 1u);
  const auto replaced = std::find_if(m->problems.begin(), m->problems.end(), [](const Problem& p) {
    return p.message.find("is replaced by the PACK at") != std::string::npos;
  });
  ASSERT_NE(replaced, m->problems.end());
  EXPECT_EQ(replaced->offset, first_pack->offset);
  // The scene is the one module's without the decoy.
  MemorySource plain_src(plain, "g.eu7");
  auto one = read_module(plain_src, {.load_pack = true, .decode_pack = true});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(to_scene(*m)->objects.size(), to_scene(*one)->objects.size());

  EXPECT_EQ(write_module(*m).value(), bytes);
  std::vector<std::uint8_t> streamed;
  VectorByteSink sink(streamed);
  ASSERT_FALSE(write_module(*m, sink));
  EXPECT_EQ(streamed, bytes);
  // Through both JSON readers: the decoy is a PACK given as "hex".
  auto tree = module_to_json(*m);
  ASSERT_TRUE(tree.ok());
  auto from_tree = module_from_json(nlohmann::json::parse(tree->dump()));
  ASSERT_TRUE(from_tree.ok()) << from_tree.error().describe();
  EXPECT_EQ(write_module(*from_tree).value(), bytes);
  StringByteSink text;
  ASSERT_FALSE(write_module_json(*m, text));
  EXPECT_NE(text.text.find(R"({"id":"PACK","hex":"deadbeef00"})"), std::string::npos);
  MemorySource json_src(std::span(reinterpret_cast<const std::uint8_t*>(text.text.data()), text.text.size()), "t.json");
  auto from_text = read_module_json(json_src);
  ASSERT_TRUE(from_text.ok()) << from_text.error().describe();
  EXPECT_EQ(write_module(*from_text).value(), bytes);
}

}  // namespace
}  // namespace sceneria::eu7b

namespace sceneria::e3d {
namespace {

// format_e3d_fuzzer: a TRA0 float holding a signalling NaN (0x7f880000) came back quiet
// (0x7fc80000): matrices are kept as doubles, and float -> double -> float quiets it. The chunk's
// bytes as read are written back while the matrices still say the same.
TEST(FuzzRegression, ASignallingNanInAMatrixSurvivesAWrite) {
  SCENERIA_REQUIRE_SAMPLES();
  std::vector<std::uint8_t> bytes = test::read_file(test::samples_dir() / "maszyna/models/oslony_syren.e3d");
  const char tra[4] = {'T', 'R', 'A', '0'};
  const auto at = std::search(bytes.begin(), bytes.end(), tra, tra + 4);
  ASSERT_NE(at, bytes.end());
  const std::uint8_t signalling[4] = {0x00, 0x00, 0x88, 0x7f};
  std::copy(signalling, signalling + 4, at + 8 + 13 * 4);  // the first matrix's Y translation
  auto model = read_model(bytes);
  ASSERT_TRUE(model) << model.error().describe();
  ASSERT_EQ(model->matrices.size(), 1u);
  EXPECT_TRUE(std::isnan(model->matrices[0][13]));
  EXPECT_EQ(write_model(*model), bytes);
  // Changed matrices are encoded from the doubles.
  model->matrices[0][12] = 5.0;
  const auto changed = write_model(*model);
  float x;
  std::memcpy(&x, changed.data() + (at - bytes.begin()) + 8 + 12 * 4, 4);
  EXPECT_EQ(x, 5.0f);
}

}  // namespace
}  // namespace sceneria::e3d

namespace sceneria {
namespace {

// reader_scenery_fuzzer: a track's quality and damage of 1e51 were cast to int32 (undefined
// behaviour); they are held within its range, as are a wire count and a load count.
TEST(FuzzRegression, HugeWholeNumberFieldsOfATrackAreHeldInRange) {
  const std::string text =
      "node 1000 0 t track normal 100 1.435 0.25 25 1e51 -1e51 flat vis rail1 4 ballast1 0.2 2.75 2.5\n"
      "0 0 0 0.0\n0 0 0\n0 0 0\n0 0 100 0.0\n0\nendtrack\n";
  MemorySource source(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), "huge.scn");
  auto doc = open_document(source);
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  const auto record = (*doc)->record("tracks", 0);
  ASSERT_FALSE(record.is_null());
  EXPECT_EQ(record["quality"], 2147483647) << record.dump();
  EXPECT_EQ(record["damage"], -2147483648LL) << record.dump();
}

// reader_scenery_fuzzer: an event cut off before its name (the file's last word) looked its name
// up as string 0xFFFFFFFF, far past the table.
TEST(FuzzRegression, AnEventWithoutANameIsReadWithAWarning) {
  for (const std::string text : {"event", "event\n", "node -1 0 a event"}) {
    SCOPED_TRACE(text);
    MemorySource source(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), "cut.scn");
    auto doc = open_document(source);
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    EXPECT_FALSE((*doc)->warnings().empty());
  }
}

// reader_scenery_fuzzer (the long run, 2026-12-04): a twin whose statement after `origin` starts
// with an include of empty strings kept an empty name in the statement's arena before it had a
// block: the arena indexed its blocks at -1 (UB; with no block yet, a read through null).
TEST(FuzzRegression, AnEmptyIncludeNameBeforeTheArenasFirstBlockIsKept) {
  const std::vector<std::uint8_t> twin = {
      0x65, 0x75, 0x37, 0x0a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x1b, 0x06, 0x6f, 0x72, 0x69, 0x67, 0x69, 0x6e,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
      0x05, 0x05, 0x05, 0x05, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x05, 0x05, 0x05,
      0x05, 0x05, 0x05, 0x01, 0x03, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05};
  MemorySource source(twin, "empty-include.incb");
  auto doc = open_document(source);
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_EQ((*doc)->format_id(), "scenery-twin");
  // Each empty string is a word no statement starts with, said where the include entry lies.
  const auto warnings = (*doc)->warnings();
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings.front().message, "unexpected token ''");
  EXPECT_EQ(warnings.front().offset, 54u);
}

}  // namespace
}  // namespace sceneria
