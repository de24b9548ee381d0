// Sceneries opened for viewing in the engine's load passes: the infrastructure first, then the
// visual nodes handed out as scene deltas nearest the camera first. Whatever the order, the end
// must be what one pass gives: the same records, the same drawn objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "formats/scenery/interpret.hpp"
#include "formats/scenery/tokens.hpp"
#include "formats/scenery/twin.hpp"
#include "io/assets.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"
#include "scene/deltas.hpp"

namespace sceneria::scenery {
namespace {

std::unique_ptr<Document> open(const std::vector<std::uint8_t>& bytes, const std::string& name, bool staged,
                               AssetResolver* assets = nullptr) {
  MemorySource source(bytes, name);
  auto doc = open_document(source, {.assets = assets, .staged = staged});
  EXPECT_TRUE(doc.ok()) << name << ": " << (doc.ok() ? "" : doc.error().describe());
  return doc.ok() ? std::move(doc).value() : nullptr;
}

std::map<std::string, std::uint64_t> counts(const Document& doc) {
  std::map<std::string, std::uint64_t> out;
  for (const ListInfo& l : doc.lists()) out[l.id] = l.count;
  return out;
}

// What a scene draws, order aside: the objects something on screen belongs to, by (kind,
// index); instances and batch vertices. (An object with nothing drawn, a shape whose triangles
// were all degenerate, is in a whole scene but in no delta.)
struct Drawn {
  std::set<std::pair<std::string, std::uint64_t>> objects;
  std::uint64_t instances = 0, triangle_vertices = 0, line_vertices = 0;
};
Drawn drawn(const scene::Scene& s) {
  Drawn d;
  auto object = [&](std::uint32_t id) {
    if (id < s.objects.size()) d.objects.emplace(s.kinds.at(s.objects[id].kind), s.objects[id].index);
  };
  for (const scene::Section& sec : s.sections) {
    d.instances += sec.instances.size();
    for (const scene::Instance& i : sec.instances) object(i.object);
    for (const scene::Batch& b : sec.batches) {
      (b.primitive == scene::Batch::Primitive::lines ? d.line_vertices : d.triangle_vertices) += b.positions.size();
      for (std::uint32_t o : b.objects) object(o);
    }
  }
  return d;
}

// Opens `bytes` both ways and checks that the passes end where one pass does.
void passes_match(const std::vector<std::uint8_t>& bytes, const std::string& name, AssetResolver* assets = nullptr) {
  SCOPED_TRACE(name);
  auto whole = open(bytes, name, false, assets);
  auto staged = open(bytes, name, true, assets);
  ASSERT_TRUE(whole && staged);
  EXPECT_FALSE(whole->staging());
  ASSERT_TRUE(staged->staging());
  // First the infrastructure alone: no visual records, and nothing visual drawn.
  const auto first_counts = counts(*staged), all_counts = counts(*whole);
  auto in = [](const auto& m, const char* list) { return m.count(list) ? m.at(list) : 0; };
  for (const char* visual : {"shapes", "lines", "models"}) EXPECT_EQ(in(first_counts, visual), 0u) << visual;
  for (const char* infra : {"tracks", "traction", "events", "trainsets", "includes", "directives"})
    EXPECT_EQ(in(first_counts, infra), in(all_counts, infra)) << infra;
  auto scene = staged->scene().value();
  for (const scene::Object& o : scene.objects) EXPECT_NE(scene.kinds[o.kind], "shapes");
  // Then the visuals, a section per delta, nearest the camera first.
  const glm::dvec3 camera = scene.sections.empty() ? glm::dvec3(0.0) : scene.sections.front().origin;
  double last = 0;
  std::size_t deltas = 0;
  while (auto delta = staged->next_stage(camera)) {
    ASSERT_EQ(delta->sections.size(), 1u);
    const scene::Section& s = delta->sections.front();
    const double distance = glm::length(s.origin + glm::dvec3(s.bounds_min + s.bounds_max) * 0.5 - camera);
    EXPECT_GE(distance, last);
    last = distance;
    auto merged = scene::merge_delta(scene, std::move(*delta));
    ASSERT_TRUE(merged.ok()) << merged.error().describe();
    ++deltas;
  }
  EXPECT_GT(deltas, 0u);
  EXPECT_FALSE(staged->staging());
  // The end is one pass's: every list and record, warnings, and what is drawn.
  ASSERT_EQ(counts(*staged), all_counts);
  for (const auto& [list, n] : all_counts)
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(staged->record(list, i), whole->record(list, i)) << list << " " << i;
  std::set<std::string> a, b;
  auto key = [](const Warning& w) { return fmt::format("{}:{}:{}:{}", w.file, w.offset, w.line, w.message); };
  for (const Warning& w : staged->warnings()) a.insert(key(w));
  for (const Warning& w : whole->warnings()) b.insert(key(w));
  EXPECT_EQ(a, b);
  const Drawn got = drawn(scene), want = drawn(whole->scene().value());
  EXPECT_EQ(got.objects.size(), want.objects.size());
  EXPECT_EQ(got.instances, want.instances);
  EXPECT_EQ(got.triangle_vertices, want.triangle_vertices);
  EXPECT_EQ(got.line_vertices, want.line_vertices);
  EXPECT_TRUE(got.objects == want.objects);
}

TEST(SceneryPasses, TextAndTwinEndAsOnePass) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const char* rel : {"maszyna/text/TD.scn", "maszyna/twin/TD.scnb", "maszyna/text/linia053-misja5.scm",
                          "maszyna/allnodes/allnodes.scn"})
    passes_match(test::read_file(test::samples_dir() / rel), std::filesystem::path(rel).filename().string());
}

// The visual pass reads the included files again from what the first pass kept (the dropped
// files may be gone by then): trees from tree.inc beside a track, and the same file twice.
TEST(SceneryPasses, IncludedVisualsComeFromTheKeptFiles) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto tree = test::read_file(test::samples_dir() / "maszyna/text/tree.inc");
  const std::string text =
      "node 1000 0 t1 track normal 100.0 1.435 0.25 25.0 20 0 Flat vis Rail_screw_used1 4 TpBpS-new2.tex 0.2 0.5 1.1\n"
      "0 0 0 0  0 0 0  0 0 0  0 0 100 0  0 endtrack\n"
      "include tree.inc drzewo.dds 1500 0 200 90 10 3 end\n"
      "include tree.inc sosna.dds -10 0 0 0 8 4 end\n"
      "node -1 0 m1 model 2500 0 0 0 dom.t3d none endmodel\n";
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  int reads = 0;
  ListedAssets assets({"scenery/tree.inc"}, [&](std::size_t) {
    ++reads;
    return std::make_unique<MemorySource>(tree, "tree.inc");
  });
  passes_match(bytes, "trees-by-track.scn", &assets);
  EXPECT_EQ(reads, 4);  // twice for each opening; the visual pass read none
  auto staged = open(bytes, "trees-by-track.scn", true, &assets);
  ASSERT_TRUE(staged);
  EXPECT_EQ(counts(*staged)["tracks"], 1u);
  // Nearest the camera first: the sections at x = 0 come before the one at 1.5 km and 2.5 km.
  (void)staged->scene();
  std::vector<int> cols;
  while (auto d = staged->next_stage({0, 0, 0})) cols.push_back(d->sections.front().col);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_TRUE(std::is_sorted(cols.begin(), cols.end())) << cols[0] << " " << cols[1] << " " << cols[2];
  EXPECT_EQ(counts(*staged)["shapes"], 4u);
  EXPECT_EQ(counts(*staged)["models"], 1u);
}

// A file with nothing but visuals (a file of trees) has nothing to draw first: it opens whole.
TEST(SceneryPasses, AFileOfVisualsOpensWhole) {
  SCENERIA_REQUIRE_SAMPLES();
  auto doc = open(test::read_file(test::samples_dir() / "maszyna/text/trees.scm"), "trees.scm", true);
  ASSERT_TRUE(doc);
  EXPECT_FALSE(doc->staging());
  EXPECT_EQ(counts(*doc)["shapes"], 96u);
  EXPECT_FALSE(doc->next_stage({0, 0, 0}));
}

// A twin's visual nodes are stepped over whole by their markers where a marker holds one node
// (TD: every shape), and read past token by token where one marker runs over several nodes and
// the directives between them (trees.scmb, tree.incb: notes A5), so no origin or rotate is lost.
TEST(SceneryPasses, ATwinsVisualMarkersAreSkippedWholeWhereTheyHoldOneNode) {
  SCENERIA_REQUIRE_SAMPLES();
  struct Case {
    const char* rel;
    std::uint64_t visual_nodes, skipped_whole;
  };
  for (const Case c : {Case{"maszyna/twin/TD.scnb", 62, 62}, Case{"maszyna/twin/trees.scmb", 96, 0}, Case{"maszyna/twin/tree.incb", 2, 0}}) {
    SCOPED_TRACE(c.rel);
    const auto bytes = test::read_file(test::samples_dir() / c.rel);
    const auto twin = read_twin(bytes).value();
    TwinTokenSource source(twin);
    const Interpreted infra = interpret(source, c.rel, {.pass = LoadPass::infrastructure});
    EXPECT_EQ(infra.visual_nodes_left, c.visual_nodes);
    EXPECT_EQ(source.nodes_skipped(), c.skipped_whole);
    EXPECT_EQ(infra.where.count("shapes"), 0u);
  }
  // Interpreted either way, the infrastructure is the same as read from the text.
  const auto text = test::read_file(test::samples_dir() / "maszyna/text/TD.scn");
  const auto twin = read_twin(test::read_file(test::samples_dir() / "maszyna/twin/TD.scnb")).value();
  TextTokenSource from_text(text);
  TwinTokenSource from_twin(twin);
  const Interpreted a = interpret(from_text, "TD", {.pass = LoadPass::infrastructure});
  const Interpreted b = interpret(from_twin, "TD", {.pass = LoadPass::infrastructure});
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.where.at("tracks").size(), b.where.at("tracks").size());
  EXPECT_EQ(a.module.strings.size(), b.module.strings.size());
}

// The reader's own passes step over a marker in one move; node_offset/seek_node come back to a
// node; a VISUAL_POS node says where it is before any of its entries is read.
TEST(SceneryPasses, TheTwinSourceSkipsSeeksAndPlacesNodes) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto twin = read_twin(test::read_file(test::samples_dir() / "maszyna/twin/TD.scnb")).value();
  std::uint64_t infra_markers = 0, visual_markers = 0;
  for (const TwinMarker& m : twin.markers) ++(m.cls == NodeClass::infra ? infra_markers : visual_markers);
  ASSERT_EQ(infra_markers, 204u);
  ASSERT_EQ(visual_markers, 62u);
  TwinTokenSource infra(twin, LoadPass::infrastructure);
  Token t;
  std::uint64_t served = 0;
  while (infra.next(t)) {
    ++served;
    ASSERT_NE(infra.node() ? infra.node()->cls : NodeClass::infra, NodeClass::visual_pos);
  }
  EXPECT_EQ(infra.markers_passed(), 62u);
  // Every entry outside the visual markers, an include as its `include … end` tokens.
  std::uint64_t expected = 0;
  for (const TwinEntry& e : twin.entries)
    if (e.marker == TwinEntry::kNoMarker || twin.markers[e.marker].cls == NodeClass::infra)
      expected += e.tag == EntryTag::include ? e.files + e.params + 2 : 1;
  EXPECT_EQ(served, expected);
  EXPECT_LT(served, twin.entries.size());

  // The first visual node: its position from the marker, then away and back by its offset.
  TwinTokenSource all(twin);
  while (all.next(t) && !(all.node() && all.node()->cls == NodeClass::visual_pos)) {
  }
  ASSERT_NE(all.node(), nullptr);
  const TwinMarker first = *all.node();
  EXPECT_EQ(t.text, "node");
  EXPECT_EQ(all.node_offset(), first.offset);
  EXPECT_TRUE(first.has_position);
  const std::uint64_t node_token = t.offset;
  for (int k = 0; k < 40 && all.next(t); ++k) {
  }
  ASSERT_TRUE(all.seek_node(first.offset));
  ASSERT_TRUE(all.next(t));
  EXPECT_EQ(t.text, "node");
  EXPECT_EQ(t.offset, node_token);
  EXPECT_FALSE(all.seek_node(first.offset + 1));
}

}  // namespace
}  // namespace sceneria::scenery
