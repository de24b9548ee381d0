// The JSON forms of E3D models and scenery twins (docs/json-forms.md): what JSON text cannot say
// on its own (NaN payloads, padding, CP1250 names, duplicate strings, packed vertices) survives a
// round trip bit for bit; a text scenery's form is the twin it bakes to; hostile documents are
// refused with where and why. The shared reader (io/json_io) hands long lists over an item at a
// time. Every sample's round trip is in format_conformance_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "formats/e3d/e3d.hpp"
#include "formats/e3d/json.hpp"
#include "formats/scenery/bake.hpp"
#include "formats/scenery/twin.hpp"
#include "formats/scenery/twin_json.hpp"
#include "io/json_io.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria {
namespace {

using njson = nlohmann::json;

std::string text_of(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }
std::vector<std::uint8_t> bytes_of(std::string_view s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }

Result<njson> parse(std::string_view text, const JsonItemVisitor& visitor, std::size_t depth = 64) {
  MemorySource source(bytes_of(text), "t.json");
  return parse_json_streamed(source, visitor, depth);
}

TEST(JsonIo, HandsArrayItemsOverAsTheyCloseAndKeepsOnlyWhatTheVisitorKeeps) {
  std::vector<std::string> seen;
  auto doc = parse(R"({"a": [1, 2, {"b": [3, 4]}], "c": {"d": [[5]]}})", [&](std::span<const JsonLevel> open, njson& item) -> Result<bool> {
    seen.push_back(json_path(open) + fmt::format("[{}]={}", open.back().items, item.dump()));
    return !item.is_number() || item.get<int>() % 2 == 0;  // drops the odd numbers
  });
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_EQ(*doc, njson::parse(R"({"a": [2, {"b": [4]}], "c": {"d": [[]]}})"));
  EXPECT_EQ(seen, (std::vector<std::string>{"a[0]=1", "a[1]=2", "a[2].b[0]=3", "a[2].b[1]=4", "a[2]={\"b\":[4]}", "c.d[0][0]=5", "c.d[0]=[]"}));
}

TEST(JsonIo, SaysWhereTheTextIsBadAndRefusesDeepNesting) {
  const auto keep = [](std::span<const JsonLevel>, njson&) -> Result<bool> { return true; };
  auto bad = parse(R"({"a": [1, 2,, 3]})", keep);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "not valid JSON at byte 12: Invalid value.");
  EXPECT_EQ(bad.error().offset, 12u);
  auto deep = parse(std::string(100, '[') + std::string(100, ']'), keep);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message, "JSON nested deeper than 64 levels");
  EXPECT_EQ(deep.error().offset, 64u);
  auto refused = parse(R"([1, 2, 3])", [](std::span<const JsonLevel> open, njson&) -> Result<bool> {
    if (open.back().items == 2) return Error{Errc::bad_value, 0, "the third item"};
    return true;
  });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "the third item");
}

TEST(JsonIo, FloatsStringsAndIdsKeepTheirBits) {
  float f = 0;
  ASSERT_TRUE(float_from_json(njson("0x7fa00001"), f));
  std::uint32_t fbits;
  std::memcpy(&fbits, &f, 4);
  EXPECT_EQ(fbits, 0x7fa00001u);  // a signalling NaN's payload
  EXPECT_FALSE(float_from_json(njson(1e39), f)) << "beyond float is not a float a dump writes";
  EXPECT_FALSE(float_from_json(njson("0x7fa0000"), f));
  EXPECT_FALSE(float_from_json(njson("0x7fa0000g"), f));
  double d = 0;
  ASSERT_TRUE(double_from_json(njson("0xfff0000000000001"), d));
  std::uint64_t dbits;
  std::memcpy(&dbits, &d, 8);
  EXPECT_EQ(dbits, 0xfff0000000000001u);

  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  {
    JsonText t(sink);
    t.open_array();
    float_text(t, std::numeric_limits<float>::infinity());
    double_text(t, -std::numeric_limits<double>::infinity());
    float_text(t, 0.1f);
    string_text(t, "Słup");
    string_text(t, "S\xb3up");
    string_text(t, "\x81\x01");
    t.close();
  }
  EXPECT_EQ(text_of(out), R"(["0x7f800000","0xfff0000000000000",0.10000000149011612,"Słup",{"cp1250":"Słup"},{"hex":"8101"}])");
  std::string bytes;
  ASSERT_TRUE(string_from_json(njson::parse(R"({"cp1250":"Słup"})"), bytes));
  EXPECT_EQ(bytes, "S\xb3up");

  EXPECT_EQ(fourcc_text(std::string_view("VN\\\x01", 4)), "VN\\x5c\\x01");
  std::string four;
  ASSERT_TRUE(fourcc_from_text("VN\\x5c\\x01", four));
  EXPECT_EQ(four, std::string("VN\\\x01", 4));
  EXPECT_FALSE(fourcc_from_text("VNT", four));
}

TEST(JsonIo, RecognisesAFormatsDumpByItsFirstMember) {
  const auto head = bytes_of("{\n \"format\": \"e3d\",\n \"schema\": 1");
  EXPECT_TRUE(json_form_is(head, "m.json", "e3d"));
  EXPECT_FALSE(json_form_is(head, "m.txt", "e3d"));
  EXPECT_FALSE(json_form_is(head, "m.json", "eu7b"));
  EXPECT_FALSE(json_form_is(bytes_of(R"({"format": ["e3d"]})"), "m.json", "e3d"));
}

// ---- E3D ----

template <class T>
void put(std::vector<std::uint8_t>& v, std::size_t at, T value) {
  std::memcpy(v.data() + at, &value, sizeof value);
}

// A model with what text cannot hold: packed vertices (VNT1), double matrices with a NaN,
// a signalling NaN in a submodel field, padding, a CP1250 name, an unknown chunk, trailing bytes.
e3d::Model odd_model() {
  e3d::Model m;
  m.sub_variant = 1;
  e3d::Submodel s;
  s.type = e3d::triangles;
  s.name = 0;
  s.matrix = 0;
  s.vertex_count = 3;
  s.record.assign(320, 0);
  s.record[200] = 0xAB;
  const std::uint32_t snan = 0x7fa00001;
  std::memcpy(&s.self_illum, &snan, 4);
  s.diffuse = {0.1f, -0.0f, 1e-40f, 3.4e38f};
  m.submodels.push_back(s);
  m.matrices_f64 = true;
  std::array<double, 16> matrix{};
  for (std::size_t i = 0; i < 16; ++i) matrix[i] = i % 5 == 0 ? 1.0 : 0.0;
  const std::uint64_t dnan = 0x7ff0000000000bad;
  std::memcpy(&matrix[13], &dnan, 8);
  m.matrices.push_back(matrix);
  m.vertex_variant = 1;
  m.vertex_bytes.resize(60);
  for (std::size_t i = 0; i < m.vertex_bytes.size(); ++i) m.vertex_bytes[i] = static_cast<std::uint8_t>(i * 37 + 11);
  m.names = {"S\xb3up_1"};
  m.textures = {""};
  m.trailing = {0xde, 0xad};
  for (const char* id : {"SUB1", "TRA1", "VNT1", "TEX0", "NAM0", "ZZZ\x01"}) {
    e3d::ChunkInfo c;
    std::memcpy(c.id.data(), id, 4);
    if (id[0] == 'Z') c.unknown = {1, 2, 3};
    m.chunks.push_back(c);
  }
  m.chunks[4].open_end = true;
  return m;
}

TEST(E3dJson, KeepsWhatJsonTextCannotSayBitForBit) {
  const auto bytes = e3d::write_model(odd_model());
  auto model = e3d::read_model(bytes);
  ASSERT_TRUE(model.ok()) << model.error().describe();
  std::vector<std::uint8_t> json;
  VectorByteSink sink(json);
  ASSERT_FALSE(e3d::write_model_json(*model, sink));
  const std::string text = text_of(json);
  for (const char* want : {R"("id":"SUB1")", R"("self_illum":"0x7fa00001")", R"("diffuse":[0.10000000149011612,-0.0,9.99994610111476e-41,3.3999999521443642e+38])",
                           R"("padding_hex":"0000000000000000000000000000000000000000000000000000000000000000ab)", R"("0x7ff0000000000bad")", R"({"cp1250":"Słup_1"})",
                           R"("open_end":true)", R"({"id":"ZZZ\\x01","hex":"010203"})", R"("trailing_hex":"dead")"})
    EXPECT_NE(text.find(want), std::string::npos) << want << " not in " << text;
  // VNT1 keeps the stored integers: 4 halves, the packed normal, 2 halves, the packed tangent.
  const auto doc = njson::parse(text);
  const njson& v0 = doc["chunks"][2]["vertices"][0];
  ASSERT_EQ(v0.size(), 8u);
  EXPECT_EQ(v0[0], 11 | (48 << 8));  // bytes 0, 1
  EXPECT_EQ(v0[4], 0xa27d5833u);  // bytes 8..11, little-endian

  MemorySource source(json, "odd.json");
  auto back = e3d::read_model_json(source);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(e3d::write_model(*back) == bytes);
}

TEST(E3dJson, AT3dDumpsAsTheE3dItConvertsTo) {
  SCENERIA_REQUIRE_SAMPLES();
  // A T3D's form is that of the E3D it converts to: read back, it writes that E3D.
  const auto path = test::samples_dir() / "maszyna/models/oslony_syren.t3d";
  const auto bytes = test::read_file(path);
  MemorySource source(bytes, "oslony_syren.t3d");
  auto doc = open_document(source);
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  const Format* t3d = find_format("t3d");
  auto e3d_bytes = t3d->writer_for("e3d")->write(**doc, {});
  auto json = t3d->writer_for("json")->write(**doc, {});
  ASSERT_TRUE(e3d_bytes.ok() && json.ok());
  MemorySource again(*json, "oslony_syren.json");
  auto back = open_document(again);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ((*back)->format_id(), "e3d");
  auto written = find_format("e3d")->writer_for("e3d")->write(**back, {});
  ASSERT_TRUE(written.ok());
  EXPECT_TRUE(*written == *e3d_bytes);
  EXPECT_EQ(describe(**back)["counts"], describe(**doc)["counts"]);
}

void expect_e3d_refused(std::string_view text, std::string_view message) {
  SCOPED_TRACE(text);
  MemorySource source(bytes_of(text), "m.json");
  auto m = e3d::read_model_json(source);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find(message), std::string::npos) << m.error().message;
}

constexpr std::string_view kSub =
    R"({"next":-1,"child":-1,"type":4,"name":-1,"anim":0,"flags":0,"matrix":-1,"vertex_count":0,"vertex_offset":0,"texture":0,"visible":1.0,)"
    R"("self_illum":0.0,"ambient":[0,0,0,0],"diffuse":[0,0,0,0],"specular":[0,0,0,0],"emission":[0,0,0,0],"wire_size":0,"max_distance_sq":0,)"
    R"("min_distance_sq":0,"near_atten_start":0,"near_atten_end":0,"use_near_atten":0,"far_atten_decay":0,"far_decay_radius":0,"cos_falloff":0,)"
    R"("cos_hotspot":0,"cos_view":0,"index_count":0,"index_offset":0,"diffuse_multiplier":0})";

std::string e3d_doc(std::string_view chunks) { return fmt::format(R"({{"format":"e3d","schema":1,"chunks":[{{"id":"SUB0","submodels":[{}]}}{}]}})", kSub, chunks); }

TEST(E3dJson, HostileDocumentsAreRefusedWithWhereAndWhy) {
  {  // the smallest model reads
    MemorySource source(bytes_of(e3d_doc("")), "m.json");
    auto m = e3d::read_model_json(source);
    ASSERT_TRUE(m.ok()) << m.error().describe();
    EXPECT_EQ(m->submodels.size(), 1u);
  }
  expect_e3d_refused(R"({"format":"e3d","schema":1,"chunks":[{"vertices":[[0,0,0,0,0,0,0,0]],"id":"VNT0"}]})",
                     R"(chunks[0].vertices[0]: the chunk's "id" (four characters) must come before its "vertices")");
  expect_e3d_refused(e3d_doc(R"(,{"id":"VNT0","vertices":[[0,0,0]]})"), "chunks[1].vertices[0]: expected 8 values");
  expect_e3d_refused(e3d_doc(R"(,{"id":"VNT1","vertices":[[0,0,0,0,0,0,0,-1]]})"), "value 7: expected an integer from 0 to 4294967295");
  expect_e3d_refused(e3d_doc(R"(,{"id":"VNT3","vertices":[]})"), "chunks[1]: vertices belong in a VNT0, VNT1, VNT2, VNT4, VNT5 or VNT6 chunk");
  expect_e3d_refused(e3d_doc(R"(,{"id":"IDX1","indices":[256]})"), "chunks[1].indices[0]: expected an integer from 0 to 255");
  expect_e3d_refused(e3d_doc(R"(,{"id":"TRA0","matrices":[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0]]})"), "chunks[1].matrices[0]: expected 16 numbers");
  expect_e3d_refused(e3d_doc(R"(,{"id":"TRA0","matrices":[[1e39,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]]})"), "value 0: expected a float");
  expect_e3d_refused(e3d_doc(R"(,{"id":"SUB0","submodels":[]})"), "chunks[1]: a second submodel chunk");
  expect_e3d_refused(e3d_doc(R"(,{"id":"NAM0","strings":["a\u0000b"]})"), "a name cannot hold a NUL byte");
  expect_e3d_refused(e3d_doc(R"(,{"id":"NAM0","strings":[],"open_end":true})"), "open_end: there is no last string");
  expect_e3d_refused(e3d_doc(R"(,{"id":"NAM0"})"), "expected one of submodels, vertices, indices, matrices, strings or hex");
  expect_e3d_refused(R"({"format":"e3d","schema":1,"chunks":[{"id":"SUB0","submodels":[{"next":-1}]}]})", "chunks[0].submodels[0]: child: missing");
  std::string far = e3d_doc("");
  far.replace(far.find(R"("next":-1)"), 9, R"("next":5)");
  expect_e3d_refused(far, "submodel 0 at 0x10: next is 5 but the model has 1 submodels");
  expect_e3d_refused(R"({"format":"e3d","schema":2,"chunks":[]})", "schema: this build reads schema 1");
  expect_e3d_refused(R"({"format":"e3d","schema":1,"chunks":[{"id":"SUB0","submodels":[)", "not valid JSON at byte");
}

// ---- Scenery twins ----

// A twin with what plain words cannot say: a duplicate string, a CP1250 word, a quoted word, a NaN
// f32 with a payload, an f64, an include, and a node marker with its position and range.
scenery::Twin odd_twin() {
  using namespace scenery;
  Twin t;
  t.kind = TwinKind::inc;
  t.flags = 1;
  t.strings = {"node", "node", "S\xb3up", "x.inc", "say \"hi\""};
  const auto token = [](EntryTag tag, std::uint32_t index) {
    TwinEntry e;
    e.tag = tag;
    e.index = index;
    return e;
  };
  t.entries.push_back(token(EntryTag::token, 1));
  TwinMarker m;
  m.cls = NodeClass::visual_pos;
  m.position[0] = 1.5f;
  m.position[1] = -2.0f;
  m.position[2] = 3e9f;
  m.range = -1;
  t.markers.push_back(m);
  for (TwinEntry e : {token(EntryTag::token, 0), token(EntryTag::qtoken, 4), token(EntryTag::token, 2)}) {
    e.marker = 0;
    t.entries.push_back(e);
  }
  TwinEntry i;
  i.tag = EntryTag::int_number;
  i.integer = -1234567890123;
  t.entries.push_back(i);
  float nan;
  const std::uint32_t bits = 0xffc01234;
  std::memcpy(&nan, &bits, 4);
  t.entries.push_back(TwinEntry::f32_entry(nan));
  t.entries.push_back(TwinEntry::f64_entry(0.1));
  TwinEntry inc;
  inc.tag = EntryTag::include;
  inc.index = 0;
  inc.files = 1;
  inc.params = 2;
  t.include_strings = {3, 2, 1};
  t.entries.push_back(inc);
  return t;
}

TEST(TwinJson, KeepsWhatPlainWordsCannotSayBitForBit) {
  const auto bytes = scenery::write_twin(odd_twin());
  auto twin = scenery::read_twin(bytes);
  ASSERT_TRUE(twin.ok()) << twin.error().describe();
  std::vector<std::uint8_t> json;
  VectorByteSink sink(json);
  ASSERT_FALSE(scenery::write_twin_json(*twin, sink));
  EXPECT_EQ(text_of(json),
            R"({"format":"scenery-twin","schema":1,"version":10,"kind":"inc","flags":1,)"
            R"("strings":["node","node",{"cp1250":"Słup"},"x.inc","say \"hi\""],)"
            R"("entries":[{"token":1},{"node":"visual_pos","position":[1.5,-2.0,3000000000.0],"range":-1.0,)"
            R"("entries":["node",{"quoted":"say \"hi\""},{"token":2}]},-1234567890123,{"f32":"0xffc01234"},{"f64":0.1},)"
            R"({"include":["x.inc"],"params":[2,1]}]})");
  MemorySource source(json, "odd.json");
  auto back = scenery::read_twin_json(source);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(back->bytes == bytes);
}

TEST(TwinJson, ATextSceneryDumpsAsTheTwinItBakesTo) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const char* name : {"maszyna/text/TD.scn", "maszyna/text/trees.scm", "maszyna/allnodes/allnodes.scn"}) {
    SCOPED_TRACE(name);
    const auto path = test::samples_dir() / name;
    const auto text = test::read_file(path);
    MemorySource source(text, path.filename().string());
    auto doc = open_document(source, {.deferred = true});
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    auto json = find_format("scenery-text")->writer_for("json")->write(**doc, {});
    ASSERT_TRUE(json.ok()) << json.error().describe();
    MemorySource again(*json, "dump.json");
    auto back = scenery::read_twin_json(again);
    ASSERT_TRUE(back.ok()) << back.error().describe();
    EXPECT_TRUE(back->bytes == scenery::bake_bytes(text, scenery::kind_for(path.filename().string())));
    EXPECT_GT(back->twin.markers.size(), 0u);
  }
}

void expect_twin_refused(std::string_view entries, std::string_view message, std::string_view head = R"("version":10)") {
  const std::string text =
      fmt::format(R"({{"format":"scenery-twin","schema":1,{},"kind":"scn","flags":0,"strings":["node","a"],"entries":[{}]}})", head, entries);
  SCOPED_TRACE(text);
  MemorySource source(bytes_of(text), "t.json");
  auto t = scenery::read_twin_json(source);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find(message), std::string::npos) << t.error().message;
}

TEST(TwinJson, HostileDocumentsAreRefusedWithWhereAndWhy) {
  expect_twin_refused(R"("node","zzz")", R"(entries[1]: "zzz" is not among the strings (add it there))");
  expect_twin_refused(R"({"token":2})", "entries[0]: string 2 of 2");
  expect_twin_refused(R"({"token":"a"})", "token: expected a string's index");
  expect_twin_refused(R"(1.5)", "entries[0]: expected a word (a string), an integer");
  expect_twin_refused(R"({"node":"infra","entries":[]})", "entries[0]: a node with no entries");
  expect_twin_refused(R"({"node":"infra","entries":["a",{"node":"infra","entries":["a"]}]})", "entries[0].entries[1]: nodes do not nest");
  expect_twin_refused(R"({"node":"visual_pos","entries":["a"]})", "position: expected [x, y, z] before the node's entries");
  expect_twin_refused(R"({"node":"visual_pos","position":[1,2,3],"range":5,"entries":["a"]})", "range: a version 8 visual_pos node has none",
                      R"("version":8)");
  expect_twin_refused(R"({"node":"visual","entries":["a"]})", R"(the document's "version" must come before the entries)",
                      R"("kind2":0)");
  expect_twin_refused(R"({"include":["a"],"params":["b"]})", R"(entries[0]: "b" is not among the strings)");
  expect_twin_refused(R"(18446744073709551615)", "an integer beyond 64 bits");
}

}  // namespace
}  // namespace sceneria
