// The JSON form of X-Ray `.object` files (docs/json-forms.md#x-ray): every sample back to its
// bytes (the packed one with its own stream), names edited as text, a packed object edited and
// packed anew, malformed documents refused with the path of what is wrong, and the CLI's
// dump / convert round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "formats/xray/document.hpp"
#include "formats/xray/json.hpp"
#include "formats/xray/lzhuf.hpp"
#include "formats/xray/xray.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

#ifndef __EMSCRIPTEN__
#include "commands.hpp"  // the native CLI, linked into the native test binary only
#endif

namespace sceneria::xray {
namespace {

// Ordered, as the writer lays a document out: "format" first is how a .json is recognised.
using njson = nlohmann::ordered_json;

std::filesystem::path sample(const char* name) { return test::samples_dir() / "xray" / name; }

std::vector<std::filesystem::path> samples() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(test::samples_dir() / "xray"))
    if (e.path().extension() == ".object") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

File read_bytes(const std::vector<std::uint8_t>& bytes) {
  auto f = read_object(bytes);
  EXPECT_TRUE(f.ok()) << f.error().describe();
  return f.ok() ? std::move(f).value() : File{};
}

std::string to_json(const File& f, int indent = -1) {
  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  EXPECT_FALSE(write_xray_json(f, sink, indent));
  return std::string(out.begin(), out.end());
}

Result<File> from_json(const std::string& text) {
  MemorySource source(std::vector<std::uint8_t>(text.begin(), text.end()), "x.json");
  return read_xray_json(source);
}

// The file's bytes with the chunk at `path` (ids from the file's top) changed by `edit`, through
// the chunk API rather than the JSON, so that what the JSON gives is checked against it.
void edit_at(ChunkList& list, std::span<const std::uint32_t> path, const std::function<void(Chunk&)>& edit) {
  for (Chunk& c : list.chunks) {
    if (c.id != path.front()) continue;
    if (path.size() == 1) return edit(c);
    auto inner = read_chunks(c.data, 0, "test");
    ASSERT_TRUE(inner.ok()) << inner.error().describe();
    edit_at(*inner, path.subspan(1), edit);
    c.data = write_chunks(*inner);
    return;
  }
  ADD_FAILURE() << "no chunk " << path.front();
}
std::vector<std::uint8_t> edited(const std::vector<std::uint8_t>& bytes, std::vector<std::uint32_t> path, const std::function<void(Chunk&)>& edit) {
  auto root = read_chunks(bytes, 0, "test");
  EXPECT_TRUE(root.ok());
  if (!root.ok()) return {};
  edit_at(*root, path, edit);
  return write_chunks(*root);
}

// The JSON object of the chunk with `id` in a "chunks" array.
njson& chunk_in(njson& list, const char* id) {
  for (njson& c : list)
    if (c["id"] == id) return c;
  ADD_FAILURE() << "no chunk " << id;
  static njson none;
  return none = njson::object();
}

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

TEST(XrayJson, EverySampleReadsBackFromItsJsonToItsBytes) {
  SCENERIA_REQUIRE_SAMPLES();
  std::size_t files = 0;
  for (const auto& path : samples()) {
    SCOPED_TRACE(path.filename().string());
    const auto bytes = test::read_file(path);
    const File f = read_bytes(bytes);
    for (int indent : {-1, 1}) {
      const std::string text = to_json(f, indent);
      auto back = from_json(text);
      ASSERT_TRUE(back.ok()) << back.error().describe();
      EXPECT_TRUE(write_object(*back) == bytes);
      EXPECT_EQ(to_json(*back, indent), text);
      EXPECT_EQ(back->object.meshes.size(), f.object.meshes.size());
      EXPECT_EQ(back->object.bones.size(), f.object.bones.size());
      EXPECT_EQ(back->warnings.size(), f.warnings.size());
    }
    ++files;
  }
  EXPECT_EQ(files, 12u);
}

TEST(XrayJson, ContainersNestAndNamesAreText) {
  SCENERIA_REQUIRE_SAMPLES();
  const File f = read_bytes(test::read_file(sample("test_fmt_bones.object")));
  njson j = njson::parse(to_json(f));
  EXPECT_EQ(j["format"], "xray");
  EXPECT_EQ(j["schema"], 1);
  EXPECT_FALSE(j.contains("trailing_hex"));
  ASSERT_EQ(j["chunks"].size(), 1u);
  njson& object = j["chunks"][0];
  EXPECT_EQ(object["id"], "0x7777");
  EXPECT_FALSE(object.contains("packed"));
  njson& top = object["chunks"];
  EXPECT_EQ(chunk_in(top, "0x0900")["hex"], "1000");  // version 16
  EXPECT_EQ(chunk_in(top, "0x0903")["hex"].get<std::string>().size(), 8u);
  njson& meshes = chunk_in(top, "0x0910")["chunks"];
  ASSERT_EQ(meshes.size(), 1u);
  EXPECT_EQ(meshes[0]["id"], "0x0000");
  EXPECT_EQ(chunk_in(meshes[0]["chunks"], "0x1001")["text"], "test_fmt_bones_mesh");
  EXPECT_EQ(chunk_in(meshes[0]["chunks"], "0x1000")["hex"], "1100");  // version 17
  EXPECT_EQ(chunk_in(meshes[0]["chunks"], "0x1005")["hex"].get<std::string>().size(), 2 * 52u);
  njson& bones = chunk_in(top, "0x0921")["chunks"];
  ASSERT_EQ(bones.size(), 2u);
  EXPECT_EQ(bones[1]["id"], "0x0001");
  EXPECT_EQ(chunk_in(bones[0]["chunks"], "0x0002")["text"], njson::array({"bone_root", "", "bone_root"}));
  EXPECT_EQ(chunk_in(bones[1]["chunks"], "0x0002")["text"], njson::array({"bone_child", "bone_root", "bone_child"}));
  EXPECT_EQ(chunk_in(bones[1]["chunks"], "0x0004")["text"], "default_object");
  EXPECT_EQ(chunk_in(bones[1]["chunks"], "0x0005")["hex"].get<std::string>().size(), 2 * 112u);
  // A chunk of strings not among the name chunks stays hex (BONEPARTS2 has counts among them).
  EXPECT_TRUE(chunk_in(top, "0x0923").contains("hex"));

  // The packed sample: its stream as read, and its tree opened all the same.
  const auto old_bytes = test::read_file(sample("test_fmt_old.object"));
  njson old = njson::parse(to_json(read_bytes(old_bytes)));
  njson& root = old["chunks"][0];
  EXPECT_EQ(root["id"], "0x7777");
  EXPECT_EQ(root["packed"], true);
  ASSERT_TRUE(root["stream_hex"].is_string());
  EXPECT_EQ(root["stream_hex"].get<std::string>().size(), 2 * 774u);
  ASSERT_TRUE(root["chunks"].is_array());
  EXPECT_EQ(chunk_in(root["chunks"], "0x0900")["hex"], "1000");
  EXPECT_EQ(chunk_in(root["chunks"], "0x0918")["text"], "default");  // the XRLC shaders
}

// Renames mesh 0 of `file` in its JSON; the document the JSON opens to.
std::unique_ptr<Document> renamed(const char* file, const njson& name, const char* key) {
  njson j = njson::parse(to_json(read_bytes(test::read_file(sample(file)))));
  njson& mesh = chunk_in(j["chunks"][0]["chunks"], "0x0910")["chunks"][0]["chunks"];
  njson& chunk = chunk_in(mesh, "0x1001");
  chunk.erase("text");
  chunk[key] = name;
  const std::string text = j.dump();
  MemorySource source(std::vector<std::uint8_t>(text.begin(), text.end()), "renamed.json");
  auto doc = open_document(source);
  EXPECT_TRUE(doc.ok()) << doc.error().describe();
  if (!doc.ok()) return nullptr;
  EXPECT_EQ((*doc)->format_id(), "xray");
  return std::move(doc).value();
}

TEST(XrayJson, AMeshRenamedInTheJsonOpensWithTheNewName) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("test_fmt.object"));
  auto doc = renamed("test_fmt.object", "floor_plane", "text");
  ASSERT_TRUE(doc);
  const File& f = dynamic_cast<const XrayDocument&>(*doc).file();
  ASSERT_EQ(f.object.meshes.size(), 1u);
  EXPECT_EQ(f.object.meshes[0].name, "floor_plane");
  // "plobj" (5) became "floor_plane" (11): the chunk sizes above it are derived.
  const auto written = write_object(f);
  EXPECT_EQ(written.size(), bytes.size() + 6);
  EXPECT_TRUE(written == edited(bytes, {0x7777, 0x0910, 0, 0x1001}, [](Chunk& c) { c.data = bytes_of(std::string_view("floor_plane\0", 12)); }));
  EXPECT_EQ(f.object.surfaces[0].name, "plmat");  // the rest as it was

  // Cyrillic under "cp1251": the file holds its CP1251 bytes, and the name dumps the same way.
  auto cyr = renamed("test_fmt.object", "плоскость", "cp1251");
  ASSERT_TRUE(cyr);
  const File& c = dynamic_cast<const XrayDocument&>(*cyr).file();
  EXPECT_EQ(c.object.meshes[0].name, "\xef\xeb\xee\xf1\xea\xee\xf1\xf2\xfc");
  njson again = njson::parse(to_json(c));
  EXPECT_EQ(chunk_in(chunk_in(again["chunks"][0]["chunks"], "0x0910")["chunks"][0]["chunks"], "0x1001")["cp1251"], "плоскость");
}

TEST(XrayJson, NameBytesTextCannotGiveBackStayHex) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("test_fmt.object"));
  const std::vector<std::uint32_t> name = {0x7777, 0x0910, 0, 0x1001};
  const auto form_of = [&](std::vector<std::uint8_t> data) {
    const auto changed = edited(bytes, name, [&](Chunk& c) { c.data = data; });
    const File f = read_bytes(changed);
    const std::string text = to_json(f);
    auto back = from_json(text);
    EXPECT_TRUE(back.ok() && write_object(*back) == changed);
    njson j = njson::parse(text);
    return chunk_in(chunk_in(j["chunks"][0]["chunks"], "0x0910")["chunks"][0]["chunks"], "0x1001");
  };
  EXPECT_EQ(form_of({'a', 0x98, 0})["hex"], "619800");       // 0x98: no CP1251 character
  EXPECT_EQ(form_of({'a', 'b'})["hex"], "6162");             // no NUL at the end
  EXPECT_EQ(form_of({})["hex"], "");                         // no string at all
  EXPECT_EQ(form_of({'a', 0, 'b', 0})["text"], njson::array({"a", "b"}));
  EXPECT_EQ(form_of({0xc0, 0})["cp1251"], "А");
  EXPECT_EQ(form_of({'\t', 'x', 0})["text"], "\tx");
}

TEST(XrayJson, AContainerThatIsNotChunksExactlyIsHexAndStillRoundTrips) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("test_fmt.object"));
  // Mesh 0 with 3 bytes after its last chunk (the reader lets them be), a second object chunk and
  // 5 bytes after it at the file's end: each kept as bytes.
  auto changed = edited(bytes, {0x7777, 0x0910, 0}, [](Chunk& c) { c.data.insert(c.data.end(), {1, 2, 3}); });
  const std::vector<std::uint8_t> second = {0x77, 0x77, 0, 0, 4, 0, 0, 0, 0x10, 0, 0, 0, 9, 9, 9, 9, 9};
  changed.insert(changed.end(), second.begin(), second.end());
  const File f = read_bytes(changed);
  ASSERT_EQ(f.root.chunks.size(), 2u);
  ASSERT_EQ(f.root.trailing.size(), 5u);
  const std::string text = to_json(f);
  njson j = njson::parse(text);
  njson& mesh = chunk_in(j["chunks"][0]["chunks"], "0x0910")["chunks"][0];
  EXPECT_FALSE(mesh.contains("chunks"));
  EXPECT_EQ(mesh["hex"].get<std::string>().substr(mesh["hex"].get<std::string>().size() - 6), "010203");
  EXPECT_EQ(j["chunks"][1]["id"], "0x7777");
  EXPECT_EQ(j["chunks"][1]["hex"], "10000000");
  EXPECT_EQ(j["trailing_hex"], "0909090909");
  auto back = from_json(text);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(write_object(*back) == changed);
  EXPECT_EQ(back->object.meshes[0].name, "plobj");
}

TEST(XrayJson, APackedObjectEditedIsPackedAnewAndReadsBackWithTheEdit) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("test_fmt_old.object"));
  const File f = read_bytes(bytes);
  njson j = njson::parse(to_json(f));
  njson& root = j["chunks"][0];
  njson& mesh = chunk_in(root["chunks"], "0x0910")["chunks"][0]["chunks"];
  const std::string old_name = chunk_in(mesh, "0x1001")["text"];
  EXPECT_EQ(old_name, f.object.meshes[0].name);
  chunk_in(mesh, "0x1001")["text"] = "edited_mesh";
  ASSERT_TRUE(root.contains("stream_hex"));  // still the old stream: it no longer unpacks to the data
  auto back = from_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->object.meshes[0].name, "edited_mesh");

  const auto written = write_object(*back);
  std::uint32_t id = 0;
  std::memcpy(&id, written.data(), 4);
  EXPECT_EQ(id, 0x80007777u);  // packed still
  EXPECT_NE(written, bytes);
  // Its data unpacks to the edited chunks: the original's, with the name changed through the
  // chunk API, byte for byte.
  const auto expected = edited(bytes, {0x7777, 0x0910, 0, 0x1001}, [](Chunk& c) { c.data = bytes_of(std::string_view("edited_mesh\0", 12)); });
  EXPECT_TRUE(written == expected);
  const Chunk& packed = back->root.chunks[0];
  ASSERT_TRUE(packed.packed);
  ASSERT_GE(packed.stream.size(), 4u);
  std::uint32_t size = 0;
  std::memcpy(&size, packed.stream.data(), 4);
  EXPECT_EQ(size, f.root.chunks[0].data.size() + 12 - (old_name.size() + 1));
  auto unpacked = lzhuf_decode(std::span(packed.stream).subspan(4), size);
  ASSERT_TRUE(unpacked.ok());
  EXPECT_TRUE(*unpacked == packed.data);
  auto tree = read_chunks(packed.data, 8, "test");
  ASSERT_TRUE(tree.ok());
  auto meshes = read_chunks(tree->find(0x0910)->data, 0, "test");
  auto subs = read_chunks(meshes->chunks[0].data, 0, "test");
  EXPECT_EQ(subs->find(0x1001)->data, bytes_of(std::string_view("edited_mesh\0", 12)));
  // Everything else as it was.
  EXPECT_EQ(back->object.meshes[0].points.size(), 13u);
  EXPECT_EQ(back->object.surfaces[0].texture, "det\\det_leaves");

  // Unpacked on request ("packed": false) and packed on request without a stream.
  root["packed"] = false;
  root.erase("stream_hex");
  auto plain = from_json(j.dump());
  ASSERT_TRUE(plain.ok()) << plain.error().describe();
  EXPECT_FALSE(plain->root.chunks[0].packed);
  EXPECT_EQ(write_object(*plain).size(), 8 + packed.data.size());
  root["packed"] = true;
  auto repacked = from_json(j.dump());
  ASSERT_TRUE(repacked.ok()) << repacked.error().describe();
  EXPECT_TRUE(write_object(*repacked) == expected);
}

// The message of the error reading `j` (empty: it read).
std::string refusal(const njson& j) {
  auto r = from_json(j.dump());
  return r.ok() ? std::string() : r.error().message;
}

TEST(XrayJson, MalformedDocumentsAreRefusedWithThePath) {
  SCENERIA_REQUIRE_SAMPLES();
  const njson good = njson::parse(to_json(read_bytes(test::read_file(sample("test_fmt.object")))));
  ASSERT_EQ(refusal(good), "");
  const auto with = [&](const std::function<void(njson&)>& change) {
    njson j = good;
    change(j);
    return refusal(j);
  };
  // chunks[0].chunks[2] is 0x0910; its chunks[0] mesh 0, whose chunks[1] is the name 0x1001.
  ASSERT_EQ(good["chunks"][0]["chunks"][2]["id"], "0x0910");
  ASSERT_EQ(good["chunks"][0]["chunks"][2]["chunks"][0]["chunks"][1]["id"], "0x1001");
  const auto name = [](njson& j) -> njson& { return j["chunks"][0]["chunks"][2]["chunks"][0]["chunks"][1]; };
  const auto starts = [](const std::string& message, const std::string& prefix) {
    EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  };

  starts(with([](njson& j) { j["chunks"][0]["chunks"][0]["hex"] = "10zz"; }), "chunks[0].chunks[0].hex: not hex");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][0]["hex"] = "100"; }), "chunks[0].chunks[0].hex: not hex");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][0]["hex"] = 16; }), "chunks[0].chunks[0].hex: not hex");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][2]["chunks"][0]["chunks"][3]["hex"] = "x"; }), "chunks[0].chunks[2].chunks[0].chunks[3].hex: not hex");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][1]["id"] = "0x80000903"; }), "chunks[0].chunks[1].id: expected \"0x\"");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][1]["id"] = "0x09g3"; }), "chunks[0].chunks[1].id: expected \"0x\"");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][1]["id"] = "0x000000903"; }), "chunks[0].chunks[1].id: expected \"0x\"");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][1]["id"] = 0x0903; }), "chunks[0].chunks[1].id: expected \"0x\"");
  starts(with([](njson& j) { j["chunks"][0]["id"] = "0x"; }), "chunks[0].id: expected \"0x\"");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][1].erase("id"); }), "chunks[0].chunks[1].id: missing");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][1].erase("hex"); }), "chunks[0].chunks[1]: expected one of \"hex\", \"text\"");
  starts(with([&](njson& j) { name(j)["hex"] = "00"; }), "chunks[0].chunks[2].chunks[0].chunks[1]: holds both \"hex\" and \"text\"");
  starts(with([&](njson& j) { name(j)["text"] = "плоскость"; }), "chunks[0].chunks[2].chunks[0].chunks[1].text: \"text\" is ASCII");
  starts(with([&](njson& j) { name(j)["text"] = std::string("a\0b", 3); }), "chunks[0].chunks[2].chunks[0].chunks[1].text: a string ends at its NUL");
  starts(with([&](njson& j) { name(j)["text"] = njson::array({"a", 5}); }), "chunks[0].chunks[2].chunks[0].chunks[1].text[1]: expected a string");
  starts(with([&](njson& j) { name(j)["text"] = njson::array(); }), "chunks[0].chunks[2].chunks[0].chunks[1].text: expected a string or a non-empty array");
  starts(with([&](njson& j) { name(j).erase("text"), name(j)["cp1251"] = "\xe2\x82\xac\xe2\x80\xb0\xe2\x98\x83"; }),  // €‰ are CP1251, ☃ is not
         "chunks[0].chunks[2].chunks[0].chunks[1].cp1251: has a character CP1251 cannot write");
  starts(with([&](njson& j) { name(j)["packed"] = "yes"; }), "chunks[0].chunks[2].chunks[0].chunks[1].packed: expected true or false");
  starts(with([&](njson& j) { name(j)["stream_hex"] = "00000000"; }), "chunks[0].chunks[2].chunks[0].chunks[1].stream_hex: only a packed chunk");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][2]["chunks"] = "none"; }), "chunks[0].chunks[2].chunks: expected an array of chunks");
  starts(with([](njson& j) { j["chunks"][0]["chunks"][2]["chunks"][0] = 7; }), "chunks[0].chunks[2].chunks[0]: expected a chunk");
  starts(with([](njson& j) { j["trailing_hex"] = "0102030405060708"; }), "trailing_hex: 8 bytes would read as a chunk");
  starts(with([](njson& j) { j["trailing_hex"] = "zz"; }), "trailing_hex: not hex");
  starts(with([](njson& j) { j.erase("chunks"); }), "chunks: missing");
  starts(with([](njson& j) { j["schema"] = 2; }), "unsupported X-Ray JSON schema");
  starts(with([](njson& j) { j["format"] = "b3d"; }), "not an X-Ray JSON document");
  // Well-formed, but the bytes it describes are no object: the binary reader's message.
  starts(with([](njson& j) { j["chunks"][0]["chunks"].erase(0); }), "chunk 0x7777 has no version chunk (0x0900)");

  // A document cut short, in a text and elsewhere: JSON's own error, with the byte.
  const std::string text = good.dump();
  const auto cut = text.find("\"plobj") + 3;
  for (std::size_t n : {cut, text.size() / 2, text.size() - 1}) {
    auto r = from_json(text.substr(0, n));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("not valid JSON at byte"), std::string::npos) << r.error().message;
  }
  // Through the registry the message names the file.
  MemorySource source(bytes_of(text.substr(0, cut)), "cut.json");
  auto doc = open_document(source);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().file, "cut.json");
}

TEST(XrayJson, AStreamThatCannotBeTheDataIsDroppedNotTrusted) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("test_fmt_old.object"));
  njson j = njson::parse(to_json(read_bytes(bytes)));
  // A stream claiming 4 GiB, and one too short to claim anything: packed anew from the chunks.
  for (const char* stream : {"ffffffff00", "01"}) {
    j["chunks"][0]["stream_hex"] = stream;
    auto back = from_json(j.dump());
    ASSERT_TRUE(back.ok()) << back.error().describe();
    const auto written = write_object(*back);
    auto again = read_object(written);
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_TRUE(again->root.chunks[0].packed);
    EXPECT_TRUE(again->root.chunks[0].data == read_bytes(bytes).root.chunks[0].data);
  }
}

TEST(XrayJson, ConvertingThroughTheRegistrysJsonWriterGivesTheSameBytes) {
  SCENERIA_REQUIRE_SAMPLES();
  const Format* xray = find_format("xray");
  ASSERT_NE(xray, nullptr);
  const Writer* json = xray->writer_for("x.json");
  ASSERT_NE(json, nullptr);
  EXPECT_EQ(json->id, "json");
  EXPECT_EQ(json->description, "lossless JSON (docs/json-forms.md#x-ray)");
  for (const auto& path : samples()) {
    SCOPED_TRACE(path.filename().string());
    const auto bytes = test::read_file(path);
    MemorySource source(bytes, path.filename().string());
    auto doc = open_document(source);
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    auto text = json->write(**doc, {});
    ASSERT_TRUE(text.ok()) << text.error().describe();
    EXPECT_EQ(text->back(), '\n');
    MemorySource again(*text, path.stem().string() + ".json");
    auto back = open_document(again);
    ASSERT_TRUE(back.ok()) << back.error().describe();
    ASSERT_EQ((*back)->format_id(), "xray");
    EXPECT_EQ(lists_json(**back), lists_json(**doc));
    const Writer* object = xray->writer_for("y.object");
    ASSERT_NE(object, nullptr);
    auto written = object->write(**back, {});
    ASSERT_TRUE(written.ok()) << written.error().describe();
    EXPECT_TRUE(*written == bytes);
  }
}

#ifndef __EMSCRIPTEN__
TEST(XrayJson, TheCliDumpsAndConvertsBackByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto dir = std::filesystem::path(::testing::TempDir()) / "sceneria_xray_json_cli";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto run = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = cli::run(args, out, err);
    EXPECT_EQ(code, 0) << err.str();
    return code;
  };
  for (const char* name : {"test_fmt_old.object", "test_fmt_vmrefs.object"}) {
    SCOPED_TRACE(name);
    const auto bytes = test::read_file(sample(name));
    const std::string dumped = (dir / "dumped.json").string(), converted = (dir / "converted.json").string(), back = (dir / "back.object").string();
    ASSERT_EQ(run({"dump", sample(name).string(), "-o", dumped}), 0);
    ASSERT_EQ(run({"convert", sample(name).string(), converted}), 0);
    EXPECT_EQ(test::read_file(dumped), test::read_file(converted));
    ASSERT_EQ(run({"convert", dumped, back}), 0);
    EXPECT_TRUE(test::read_file(back) == bytes);
    ASSERT_EQ(run({"dump", sample(name).string(), "--pretty", "-o", dumped}), 0);
    ASSERT_EQ(run({"convert", dumped, back}), 0);
    EXPECT_TRUE(test::read_file(back) == bytes);
  }
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace sceneria::xray
