// Text sceneries through the grammar: the reference modules compiled byte for byte, the counts the
// issue names, include parameters, locations, and a malformed file read with warnings.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/scenery/interpret.hpp"
#include "formats/scenery/tokens.hpp"
#include "io/assets.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria::scenery {
namespace {

std::unique_ptr<Document> open_sample(const std::string& rel, AssetResolver* assets = nullptr) {
  const auto bytes = test::read_file(test::samples_dir() / rel);
  MemorySource source(bytes, std::filesystem::path(rel).filename().string());
  auto doc = open_document(source, {.assets = assets});
  EXPECT_TRUE(doc.ok()) << rel << ": " << (doc.ok() ? "" : doc.error().describe());
  return doc.ok() ? std::move(doc).value() : nullptr;
}

// The first place two modules differ: the chunk, then the first record field (as JSON paths).
std::string first_difference(const std::vector<std::uint8_t>& ours, const std::vector<std::uint8_t>& theirs) {
  std::size_t at = 0;
  while (at < ours.size() && at < theirs.size() && ours[at] == theirs[at]) ++at;
  if (at == ours.size() && at == theirs.size()) return "identical";
  MemorySource a(ours, "ours.eu7"), b(theirs, "reference.eu7");
  auto ma = eu7b::read_module(a), mb = eu7b::read_module(b);
  if (!ma.ok() || !mb.ok()) return fmt::format("first byte difference at {:#x} (a module does not read back)", at);
  std::string chunk = "header";
  for (const auto& c : mb->container.chunks)
    if (c.offset <= at) chunk = fmt::format("chunk {} at {:#x}", eu7b::chunk_name(c.id), c.offset);
  const auto ja = eu7b::module_to_json(*ma).value(), jb = eu7b::module_to_json(*mb).value();
  const auto patch = nlohmann::json::diff(nlohmann::json(jb), nlohmann::json(ja));
  return fmt::format("first byte difference at {:#x} in {}; first field: {}", at, chunk, patch.empty() ? "none" : patch[0].dump());
}

std::map<std::string, std::uint64_t> counts(const Document& doc) {
  std::map<std::string, std::uint64_t> out;
  for (const ListInfo& l : doc.lists()) out[l.id] = l.count;
  return out;
}

struct Compile {
  const char* text;
  const char* module;
};
constexpr Compile kCompiles[] = {
    {"maszyna/text/TD.scn", "maszyna/eu7/TD.v6.eu7"},
    {"maszyna/text/linia053-misja5.scm", "maszyna/eu7/linia053-misja5.v6.eu7"},
    {"maszyna/text/trees.scm", "maszyna/eu7/trees.v6.eu7"},
    {"maszyna/text/tree.inc", "maszyna/eu7/tree_inc.v6.eu7"},
    {"maszyna/allnodes/placed.scm", "maszyna/allnodes/placed.v6.eu7"},
};

TEST(SceneryCompile, TextCompilesToTheReferenceModulesByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const Compile& c : kCompiles) {
    auto doc = open_sample(c.text);
    ASSERT_TRUE(doc);
    const Format* format = find_format(doc->format_id());
    const Writer* writer = format->writer_for("out.eu7");
    ASSERT_NE(writer, nullptr);
    const auto ours = writer->write(*doc, {}).value();
    const auto reference = test::read_file(test::samples_dir() / c.module);
    EXPECT_TRUE(ours == reference) << c.text << ": " << first_difference(ours, reference);
  }
}

// A scenery compiled as the root of a tree bake (version 9): the models of its `.inc` files go to
// PIDX/PROT/PACK in format 6 sections. wrapinc_linia053.scn includes linia053-misja5.scm under
// the name linia053-misja5.inc (samples README); TD.scn has no .inc, so its PACK run is empty;
// allnodes.scn has every kind of node.
TEST(SceneryCompile, RootsCompileToTheReferenceVersion9Modules) {
  SCENERIA_REQUIRE_SAMPLES();
  const WriteOptions root{.params = {{"version", "9"}}};
  {
    auto doc = open_sample("maszyna/text/TD.scn");
    ASSERT_TRUE(doc);
    const auto ours = find_format(doc->format_id())->writer_for("x.eu7")->write(*doc, root).value();
    const auto reference = test::read_file(test::samples_dir() / "maszyna/eu7/TD.v9-root.eu7");
    EXPECT_TRUE(ours == reference) << "TD.v9-root: " << first_difference(ours, reference);
  }
  MemoryAssets assets;
  assets.add("linia053-misja5.inc", test::read_file(test::samples_dir() / "maszyna/text/linia053-misja5.scm"));
  auto doc = open_sample("maszyna/eu7/wrapinc_linia053.scn", &assets);
  ASSERT_TRUE(doc);
  const auto missing = doc->missing_assets();
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "linia053-misja5.inc"), 0);
  std::vector<std::string> losses;
  WriteOptions options = root;
  options.losses = &losses;
  const auto ours = find_format(doc->format_id())->writer_for("x.eu7")->write(*doc, options).value();
  const auto reference = test::read_file(test::samples_dir() / "maszyna/eu7/wrapinc_linia053.v9-pack6.eu7");
  EXPECT_TRUE(ours == reference) << "wrapinc_linia053.v9-pack6: " << first_difference(ours, reference);
  // What format 6 cannot hold is dropped as the reference drops it, and said: two '#' skins. (The
  // rest are linia053's own includes, absent here, and its last shape, cut off by the file's end.)
  std::vector<std::string> dropped;
  for (const auto& l : losses)
    if (l.find("UTEX filters it") != std::string::npos) dropped.push_back(l);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_NE(dropped[0].find("'bud/#ZabrzegStacja.tga'"), std::string::npos) << dropped[0];
  EXPECT_NE(dropped[1].find("'pm/#red.tga'"), std::string::npos) << dropped[1];

  // allnodes.scn: every node kind and directive the writer turns into a chunk, in the root, and
  // models_small.inc placed twice with parameters into PACK.
  {
    MemoryAssets all;
    all.add("models_small.inc", test::read_file(test::samples_dir() / "maszyna/allnodes/models_small.inc"));
    auto scn = open_sample("maszyna/allnodes/allnodes.scn", &all);
    ASSERT_TRUE(scn);
    const auto bytes = find_format(scn->format_id())->writer_for("x.eu7")->write(*scn, root).value();
    const auto expected = test::read_file(test::samples_dir() / "maszyna/allnodes/allnodes.v9-root.eu7");
    EXPECT_TRUE(bytes == expected) << "allnodes.v9-root: " << first_difference(bytes, expected);
  }

  // Without the .inc the root still compiles (INCL only, an empty PACK run) and says what is missing.
  auto alone = open_sample("maszyna/eu7/wrapinc_linia053.scn");
  losses.clear();
  const auto empty = find_format(alone->format_id())->writer_for("x.eu7")->write(*alone, options).value();
  MemorySource bytes(empty, "empty.eu7");
  auto module = eu7b::read_module(bytes);
  ASSERT_TRUE(module.ok());
  EXPECT_EQ(module->version(), 9u);
  ASSERT_NE(module->pidx(), nullptr);
  EXPECT_TRUE(module->pidx()->empty());
  ASSERT_EQ(losses.size(), 1u);
  EXPECT_EQ(losses[0], "1 included file not found, so not in PACK: linia053-misja5.inc");

  // Versions other than 6 and 9 are refused with the reason.
  auto bad = find_format(doc->format_id())->writer_for("x.eu7")->write(*doc, {.params = {{"version", "8"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("version 8"), std::string::npos);
}

// The same through the twin: twin → tokens → module equals text → module where the twin holds
// everything the module stores (trees: no includes). A twin keeps no line numbers and stores
// include names lower-cased, so TD's INCL differs; the rest of it matches record for record.
TEST(SceneryCompile, TwinsCompileLikeTheirText) {
  SCENERIA_REQUIRE_SAMPLES();
  auto doc = open_sample("maszyna/twin/trees.scmb");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->format_id(), "scenery-twin");
  auto ours = find_format(doc->format_id())->writer_for("x.eu7")->write(*doc, {}).value();
  auto reference = test::read_file(test::samples_dir() / "maszyna/eu7/trees.v6.eu7");
  // f32 numbers replay widened (1.435 as 1.434999942779541); stored as f32 again, the same bits.
  EXPECT_TRUE(ours == reference) << first_difference(ours, reference);

  auto td = open_sample("maszyna/twin/TD.scnb");
  auto text = open_sample("maszyna/text/TD.scn");
  ASSERT_TRUE(td && text);
  for (const char* list : {"tracks", "traction", "shapes", "dynamics", "trainsets", "events"}) {
    SCOPED_TRACE(list);
    ASSERT_EQ(counts(*td)[list], counts(*text)[list]);
    for (std::uint64_t i = 0; i < counts(*td)[list]; ++i) {
      auto a = td->record(list, i), b = text->record(list, i);
      a.erase("source");
      b.erase("source");
      if (a.contains("node") && a["node"].contains("bounds_center")) {  // a mean of widened floats: last bits
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(a["node"]["bounds_center"][k].get<double>(), b["node"]["bounds_center"][k].get<double>(), 1e-3);
        EXPECT_NEAR(a["node"]["bounds_radius"].get<double>(), b["node"]["bounds_radius"].get<double>(), 1e-3);
        for (const char* k : {"bounds_center", "bounds_radius"}) a["node"].erase(k), b["node"].erase(k);
      }
      ASSERT_EQ(a, b) << list << " " << i;
    }
  }
}

TEST(SceneryCompile, CountsOfTheSamples) {
  SCENERIA_REQUIRE_SAMPLES();
  auto td = open_sample("maszyna/text/TD.scn");
  ASSERT_TRUE(td);
  auto c = counts(*td);
  EXPECT_EQ(c["tracks"], 87u);
  EXPECT_EQ(c["traction"], 115u);
  EXPECT_EQ(c["shapes"], 62u);
  EXPECT_EQ(c["trainsets"], 1u);
  EXPECT_EQ(c["dynamics"], 2u);
  EXPECT_EQ(c["events"], 4u);
  EXPECT_EQ(c["includes"], 118u);
  EXPECT_EQ(td->record("trainsets", 0)["vehicles"].size(), 2u);

  auto line = open_sample("maszyna/text/linia053-misja5.scm");
  ASSERT_TRUE(line);
  c = counts(*line);
  EXPECT_EQ(c["tracks"], 1288u);
  EXPECT_EQ(c["traction"], 1026u);
  EXPECT_EQ(c["shapes"], 2461u);
  EXPECT_EQ(c["models"], 77u);
  EXPECT_EQ(c["includes"], 3305u);
  std::uint64_t vertices = 0;
  for (std::uint64_t i = 0; i < c["shapes"]; ++i) vertices += line->record("shapes", i)["vertices"].size();
  EXPECT_EQ(vertices, 7287u);
  // The cut-off node at the end of the file is reported, with its line.
  const auto warnings = line->warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].line, 39121u);
}

TEST(SceneryCompile, RecordsSayWhereTheyCameFrom) {
  SCENERIA_REQUIRE_SAMPLES();
  auto text = open_sample("maszyna/text/TD.scn");
  ASSERT_TRUE(text);
  const auto track = text->record("tracks", 0);
  EXPECT_EQ(track["source"]["file"], "TD.scn");
  EXPECT_EQ(track["source"]["line"], 3);  // `node 1000 0 none track …` on line 3
  EXPECT_EQ(track["source"]["column"], 1);
  auto twin = open_sample("maszyna/twin/TD.scnb");
  ASSERT_TRUE(twin);
  const auto entry = twin->record("tracks", 0)["source"];
  EXPECT_FALSE(entry.contains("line"));
  EXPECT_GT(entry["offset"].get<std::uint64_t>(), 9u);  // an entry offset inside the twin
  // Top-level directives are records too (FirstInit, and TD's atmo/time/camera/config ...).
  bool first_init = false;
  for (std::uint64_t i = 0; i < counts(*text)["directives"]; ++i)
    first_init = first_init || text->record("directives", i)["keyword"] == "FirstInit";
  EXPECT_TRUE(first_init);
}

// A scenery that includes tree.inc twice with parameters, from a folder with `scenery/`.
TEST(SceneryCompile, IncludesAreFollowedWithTheirParameters) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto tree = test::read_file(test::samples_dir() / "maszyna/text/tree.inc");
  const std::string scenery =
      "include tree.inc drzewo.dds 100 0 200 90 10 3 end\n"
      "include Tree.INC sosna.dds 0 0 0 0 8 end\n"  // p7 missing: `none`, read as 0
      "include missing.inc end\n"
      "include [ missing-a.inc Missing-B.inc ] x end\n";  // a random set: one is drawn
  const std::vector<std::uint8_t> top(scenery.begin(), scenery.end());
  ListedAssets assets({"MaSzyna/scenery/tree.inc"}, [&](std::size_t) { return std::make_unique<MemorySource>(tree, "tree.inc"); });
  MemorySource source(top, "test.scn");
  auto doc = open_document(source, {.assets = &assets});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  auto c = counts(**doc);
  EXPECT_EQ(c["includes"], 4u);
  ASSERT_EQ(c["shapes"], 4u);  // two per tree
  const auto missing = (*doc)->missing_assets();
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0], "missing.inc");
  EXPECT_TRUE(missing[1] == "missing-a.inc" || missing[1] == "missing-b.inc") << missing[1];
  // The first tree: origin (100, 0, 200), rotate 0 90 0; its first vertex `0,0,(p7)` = (0, 0, 3)
  // turned 90° about Y is (3, 0, 0): at (103, 0, 200). Its texture is (p1).
  const auto first = (*doc)->record("shapes", 0);
  EXPECT_EQ(first["material"], "drzewo.dds");
  ASSERT_EQ(first["vertices"].size(), 6u) << first.dump();
  const auto& p = first["vertices"][0]["position"];
  EXPECT_NEAR(p[0].get<double>(), 103.0, 1e-4);
  EXPECT_NEAR(p[1].get<double>(), 0.0, 1e-4);
  EXPECT_NEAR(p[2].get<double>(), 200.0, 1e-4);
  EXPECT_EQ(first["source"]["file"], "tree.inc");
  EXPECT_EQ(first["source"]["line"], 6);
  // The record list says where each row came from, once there is more than one file.
  const auto rows = (*doc)->rows("shapes", 0, 4);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_NE(rows[0]["detail"].get<std::string>().find("tree.inc:6"), std::string::npos) << rows[0].dump();
  EXPECT_NE(rows[1]["detail"].get<std::string>().find("tree.inc:15"), std::string::npos) << rows[1].dump();
  // The second: (p7) was not given, so it became `none`, read as 0: a tree of no width, whose
  // triangles are all degenerate and dropped.
  const auto second = (*doc)->record("shapes", 2);
  EXPECT_EQ(second["material"], "sosna.dds");
  EXPECT_EQ(second["vertices"].size(), 0u) << second.dump();
  EXPECT_EQ(second["source"]["file"], "tree.inc");
  // The outliner's groups: each list's records by file, and a group's rows are those records.
  std::vector<ListGroup> shape_groups, include_groups;
  for (const ListInfo& l : (*doc)->lists()) {
    if (l.id == "shapes") shape_groups = l.groups;
    if (l.id == "includes") include_groups = l.groups;
  }
  ASSERT_EQ(shape_groups.size(), 1u);  // the top file has no shapes of its own
  EXPECT_EQ(shape_groups[0].label, "tree.inc");
  EXPECT_EQ(shape_groups[0].count, 4u);
  ASSERT_EQ(include_groups.size(), 1u);
  EXPECT_EQ(include_groups[0].id, 0u);
  EXPECT_EQ(include_groups[0].count, 4u);
  const auto grouped = (*doc)->rows_in_group("shapes", shape_groups[0].id, 1, 10);
  ASSERT_EQ(grouped.size(), 3u);
  EXPECT_EQ(grouped[0]["i"], 1);
  EXPECT_EQ(grouped[2]["i"], 3);
  EXPECT_TRUE((*doc)->rows_in_group("shapes", 0, 0, 10).empty());
}

TEST(SceneryCompile, TheMalformedTreesIncLoadsWithWarnings) {
  SCENERIA_REQUIRE_SAMPLES();
  auto doc = open_sample("maszyna/text/trees.inc");
  ASSERT_TRUE(doc);
  EXPECT_EQ(counts(*doc)["shapes"], 96u);  // the engine reads the leading digits
  const auto warnings = doc->warnings();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].message.find("-926.326000.2"), std::string::npos);
  EXPECT_EQ(warnings[0].line, 4u);
  // The reference EU7B writer drops every shape of it, without an error.
  const auto module = find_format("scenery-text")->writer_for("x.eu7")->write(*doc, {}).value();
  MemorySource m(module, "trees.eu7");
  auto back = open_document(m);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(counts(**back).count("shapes"), 0u);
}

}  // namespace
}  // namespace sceneria::scenery
