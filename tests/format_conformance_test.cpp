// One harness over every registered format: each sample file the registry recognises is opened,
// summarised, every list paged through and its records read, the scene built (every object's
// record found), and written back byte for byte where the format can write its own kind of file.
// A new format gets all of this by registering and having samples; nothing here names a format.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/writer.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria {
namespace {

namespace fs = std::filesystem;

// Every sample under shared/samples that the registry claims, by format id.
std::map<std::string, std::vector<fs::path>> registered_samples() {
  std::map<std::string, std::vector<fs::path>> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(test::samples_dir()))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const auto bytes = test::read_file(path);
    auto format = detect(std::span(bytes).first(std::min(bytes.size(), kProbeBytes)), path.filename().string(), bytes.size());
    if (format) out[std::string((*format)->id)].push_back(path);
  }
  return out;
}

void check_document(const Document& doc, const fs::path& path) {
  const auto summary = describe(doc, 10);
  EXPECT_EQ(summary["format"], std::string(doc.format_id()));
  EXPECT_EQ(summary["size"], fs::file_size(path));
  EXPECT_TRUE(summary["structure"].is_array());
  EXPECT_FALSE(doc.headline().empty());

  // Every list: its rows number 0..count-1 in order, and the first, middle and last records exist.
  std::set<std::string> ids;
  for (const ListInfo& list : doc.lists()) {
    SCOPED_TRACE(list.id);
    EXPECT_TRUE(ids.insert(list.id).second) << "list ids are unique";
    EXPECT_GT(list.count, 0u);
    std::uint64_t seen = 0;
    for (std::uint64_t first = 0; first < std::min<std::uint64_t>(list.count, 20'000);) {
      const auto rows = doc.rows(list.id, first, 2000);
      ASSERT_FALSE(rows.empty()) << "no rows from " << first;
      for (const auto& row : rows) ASSERT_EQ(row["i"], seen++);
      first += rows.size();
    }
    for (std::uint64_t i : {std::uint64_t{0}, list.count / 2, list.count - 1})
      EXPECT_FALSE(doc.record(list.id, i).is_null()) << "record " << i;
    EXPECT_TRUE(doc.record(list.id, list.count).is_null()) << "one past the end";
  }

  // The scene's objects name lists of the document, and each finds its record: what a click shows.
  auto scene = doc.scene();
  ASSERT_TRUE(scene.ok()) << scene.error().describe();
  std::map<std::string, std::uint64_t> per_kind;
  for (const auto& o : scene->objects) {
    const std::string& kind = scene->kinds.at(o.kind);
    ASSERT_TRUE(ids.count(kind)) << "object kind " << kind << " is not a list";
    ++per_kind[kind];
  }
  for (const auto& [kind, n] : per_kind) {
    SCOPED_TRACE(kind);
    std::uint64_t checked = 0;
    for (const auto& o : scene->objects) {
      if (scene->kinds[o.kind] != kind || checked++ > 200) continue;
      EXPECT_FALSE(doc.record(kind, o.index).is_null()) << "object of record " << o.index;
    }
    EXPECT_GT(n, 0u);
  }
}

TEST(FormatConformance, EverySampleOfEveryRegisteredFormat) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto samples = registered_samples();
  for (const Format& format : formats()) {
    SCOPED_TRACE(format.id);
    const auto it = samples.find(std::string(format.id));
    if (it == samples.end()) {
      ADD_FAILURE() << "no samples for registered format " << format.id;
      continue;
    }
    for (const auto& path : it->second) {
      SCOPED_TRACE(path.string());
      const auto bytes = test::read_file(path);
      MemorySource source(bytes, path.filename().string());
      auto doc = open_document(source);
      ASSERT_TRUE(doc.ok()) << doc.error().describe();
      ASSERT_EQ((*doc)->format_id(), format.id);
      check_document(**doc, path);
      // Written back as its own kind of file: the same bytes.
      if (const Writer* w = format.writer_for(path.filename().string())) {
        auto written = w->write(**doc, {});
        ASSERT_TRUE(written.ok()) << written.error().describe();
        EXPECT_TRUE(*written == bytes) << "round trip through " << w->id << " changed the bytes";
      }
    }
  }
}

// Every JSON form (docs/json-forms.md) is lossless: a sample's dump opens as a document whose
// own dump is the same bytes, in the compact and the indented layout alike, and which writes the
// sample's own kind of file byte for byte where the format writes one (a text scenery's form is
// its twin's, checked in json_forms_test.cpp).
TEST(FormatConformance, EveryJsonFormReadsBackToTheSameDocument) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto samples = registered_samples();
  std::set<std::string> with_json;
  for (const Format& format : formats()) {
    const Writer* json = format.writer_for("json");
    if (!json || !samples.count(std::string(format.id))) continue;
    with_json.insert(std::string(format.id));
    for (const auto& path : samples.at(std::string(format.id))) {
      SCOPED_TRACE(path.string());
      const auto bytes = test::read_file(path);
      MemorySource source(bytes, path.filename().string());
      auto doc = open_document(source);
      ASSERT_TRUE(doc.ok()) << doc.error().describe();
      auto dumped = json->write(**doc, {});
      ASSERT_TRUE(dumped.ok()) << dumped.error().describe();
      std::vector<std::uint8_t> pretty;
      VectorByteSink sink(pretty);
      ASSERT_FALSE((*doc)->dump_to(sink, 1));
      ASSERT_NE(pretty, *dumped);
      for (const auto* text : {&*dumped, &pretty}) {
        MemorySource again(*text, path.stem().string() + ".json");
        auto back = open_document(again);
        ASSERT_TRUE(back.ok()) << back.error().describe();
        const Format* back_format = find_format((*back)->format_id());
        ASSERT_NE(back_format, nullptr);
        auto redumped = back_format->writer_for("json")->write(**back, {});
        ASSERT_TRUE(redumped.ok()) << redumped.error().describe();
        EXPECT_TRUE(*redumped == *dumped) << "the JSON read back dumps differently";
        const Writer* own = format.writer_for(path.filename().string());
        if (own && back_format == &format) {
          auto written = own->write(**back, {});
          ASSERT_TRUE(written.ok()) << written.error().describe();
          EXPECT_TRUE(*written == bytes) << "the JSON read back writes other bytes than the sample's";
        }
      }
    }
  }
  EXPECT_EQ(with_json, (std::set<std::string>{"b3d", "e3d", "eu7b", "fiz", "mmd", "scenery-text", "scenery-twin", "t3d", "xray"}));
}

TEST(FormatConformance, EveryFormatRejectsTruncationsWithAnErrorNotACrash) {
  SCENERIA_REQUIRE_SAMPLES();
  const std::set<std::string> text_formats{"fiz", "mmd", "scenery-text", "t3d"};
  for (const auto& [id, paths] : registered_samples()) {
    SCOPED_TRACE(id);
    const auto bytes = test::read_file(paths.front());
    for (std::size_t n : {std::size_t{0}, std::size_t{3}, bytes.size() / 3, bytes.size() - 1}) {
      MemorySource source(std::span<const std::uint8_t>(bytes).first(n), paths.front().filename().string());
      auto doc = open_document(source);
      // A binary file carries its lengths and counts, so a cut shows; a text (a scenery, a T3D)
      // cut at a line's end is a shorter text, read to its end as the engine reads it.
      if (!text_formats.contains(id))
        EXPECT_FALSE(doc.ok()) << paths.front().filename().string() << " cut to " << n << " of " << bytes.size() << " bytes opened";
      if (!doc) {
        EXPECT_FALSE(doc.error().message.empty());
        EXPECT_EQ(doc.error().file, paths.front().filename().string());
      }
    }
  }
}

// Legacy TERR chunks hold loose triangles; each drawn triangle is a terrain object and must find
// its record (the lists once counted only batches, so such a click found nothing).
TEST(FormatConformance, LegacyTerrainTrianglesAreRecordsOfTheTerrainList) {
  auto m = eu7b::generate_module({.models = 50, .seed = 3}).value();
  std::size_t triangles = 0;
  for (auto& c : m.chunks)
    if (auto* t = std::get_if<eu7b::Terrain>(&c.data)) {
      for (auto& b : t->batches) {
        b.vertices.resize(b.vertices.size() / 3 * 3);
        t->legacy.insert(t->legacy.end(), b.vertices.begin(), b.vertices.end());
      }
      t->batches.clear();
      t->flags = static_cast<std::uint8_t>(t->flags & ~eu7b::terrain_flag::batched);
      triangles += t->legacy.size() / 3;
    }
  ASSERT_GT(triangles, 10u);
  const auto bytes = eu7b::write_module(m).value();
  MemorySource source(bytes, "legacy.eu7");
  auto doc = open_document(source);
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  std::uint64_t listed = 0;
  for (const auto& l : (*doc)->lists())
    if (l.id == "terrain") listed = l.count;
  EXPECT_EQ(listed, triangles);
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene.ok());
  std::size_t objects = 0;
  for (const auto& o : scene->objects) {
    if (scene->kinds[o.kind] != "terrain") continue;
    ++objects;
    const auto record = (*doc)->record("terrain", o.index);
    ASSERT_FALSE(record.is_null()) << o.index;
    EXPECT_TRUE(record.contains("legacy_triangle"));
  }
  EXPECT_EQ(objects, triangles);
}

TEST(Registry, ListsItsFormatsAndSaysWhatItTriedForAnUnknownFile) {
  const auto all = formats_json();
  ASSERT_EQ(all.size(), formats().size());
  for (const auto& f : all) {
    EXPECT_TRUE(find_format(f["id"].get<std::string>()));
    EXPECT_FALSE(f["extensions"].empty());
  }
  EXPECT_NE(accepted_extensions().find(".eu7"), std::string::npos);
  // A picker offers what is opened with a file too (a model's .mat skins and .tga textures),
  // each extension once (".dds" is a format and a texture).
  {
    const std::string accept = "," + accepted_extensions() + ",";
    for (const char* ext : {".mat", ".tga", ".png", ".dds", ".e3d", ".res"}) {
      const std::string item = std::string(",") + ext + ",";
      const auto at = accept.find(item);
      EXPECT_NE(at, std::string::npos) << ext;
      EXPECT_EQ(accept.find(item, at + 1), std::string::npos) << ext << " twice in " << accept;
    }
  }
  // Saving offers glTF binary first for what draws, a format's own writer otherwise.
  for (const auto& f : all) {
    const Format* format = find_format(f["id"].get<std::string>());
    EXPECT_EQ(f["saveDefault"], format->draws ? "glb" : std::string(format->writers.empty() ? "" : format->writers.front().id)) << format->id;
  }
  const std::vector<std::uint8_t> noise(64, 0x55);
  auto r = detect(noise, "noise.bin", noise.size());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::unknown_format);
  EXPECT_EQ(r.error().file, "noise.bin");
  for (const Format& f : formats()) EXPECT_NE(r.error().message.find(std::string(f.name)), std::string::npos);
}

}  // namespace
}  // namespace sceneria
