// A big text compiled in parts side by side (InterpretOptions::threads) must give exactly what one
// pass gives: the same module bytes, sources, warnings and directives. And where a part's start
// was a wrong guess (inside an origin block, inside a comment), it must be dropped, not joined.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/writer.hpp"
#include "formats/scenery/bake.hpp"
#include "formats/scenery/interpret.hpp"
#include "formats/scenery/tokens.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria::scenery {
namespace {

std::string sample_text(const char* name) {
  const auto bytes = test::read_file(test::samples_dir() / "maszyna/text" / name);
  return std::string(bytes.begin(), bytes.end());
}

struct Compiled {
  Interpreted in;
  std::vector<std::uint8_t> module;
};

Compiled compile(const std::string& text, unsigned threads) {
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  TextTokenSource source(bytes);
  Compiled c{interpret(source, "big.scm", {.reference_writer = true, .threads = threads}), {}};
  auto written = eu7b::write_module(c.in.module, threads);
  EXPECT_TRUE(written.ok());
  if (written.ok()) c.module = std::move(written).value();
  return c;
}

// Everything a reader of the result sees, in one pass and in parts.
void expect_same(const Compiled& one, const Compiled& parts) {
  ASSERT_EQ(one.module.size(), parts.module.size());
  EXPECT_TRUE(one.module == parts.module) << "the modules differ";
  EXPECT_EQ(one.in.nodes, parts.in.nodes);
  ASSERT_EQ(one.in.where.size(), parts.in.where.size());
  for (const auto& [list, refs] : one.in.where) {
    const auto& other = parts.in.where.at(list);
    ASSERT_EQ(refs.size(), other.size()) << list;
    for (std::size_t i = 0; i < refs.size(); ++i) {
      EXPECT_EQ(refs[i].offset, other[i].offset) << list << " " << i;
      ASSERT_EQ(refs[i].line, other[i].line) << list << " " << i;
      EXPECT_EQ(refs[i].column, other[i].column) << list << " " << i;
    }
  }
  ASSERT_EQ(one.in.warnings.size(), parts.in.warnings.size());
  for (std::size_t i = 0; i < one.in.warnings.size(); ++i) {
    EXPECT_EQ(one.in.warnings[i].message, parts.in.warnings[i].message);
    EXPECT_EQ(one.in.warnings[i].line, parts.in.warnings[i].line);
  }
  ASSERT_EQ(one.in.directives.size(), parts.in.directives.size());
  for (std::size_t i = 0; i < one.in.directives.size(); ++i) {
    EXPECT_EQ(one.in.directives[i].keyword, parts.in.directives[i].keyword);
    EXPECT_EQ(one.in.directives[i].at.line, parts.in.directives[i].at.line);
  }
}

// TD.scn (trainset, events, directives, FirstInit) in a group with lit models, three copies of
// linia053 (tracks, wires, shapes; flat, so the middle is a good place to cut), then another
// group with TD.scn, an origin and lit models: what the second part holds must be renumbered
// (groups, strings, trainset vehicles, light pools, transforms) to join the first.
std::string big_text() {
  const std::string td = sample_text("TD.scn"), line = sample_text("linia053-misja5.scm");
  const std::string lamps =
      "node -1 0 lamp1 model 10 0 10 0 lampa.t3d none lights 1 0 0.5 lightcolors ff0000 00ff00 endmodel\n"
      "node -1 0 none model 20 0 10 90 lampa.t3d none lights 0 1 endmodel\n";
  std::string text = "group\n" + td + "\n" + lamps + "endgroup\n";
  for (int i = 0; i < 3; ++i) text += line + " endmaterial\nendtri\n";  // the sample ends inside a shape's material
  text += "group\n" + td + "\n" + lamps + "origin 100 0 100\n" + lamps + "endorigin\nbogus_keyword\nendgroup\n";
  return text;
}

TEST(SceneryParts, TwoPartsJoinToTheOnePassModuleByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  const std::string text = big_text();
  ASSERT_GT(text.size(), std::size_t{4} << 20);  // big enough to be cut
  const Compiled one = compile(text, 1), parts = compile(text, 2);
  EXPECT_EQ(one.in.parts, 1u);
  ASSERT_EQ(parts.in.parts, 2u) << "the text was not read in parts: this test would prove nothing";
  expect_same(one, parts);
  // What the second part had to renumber is there: two groups, two trainsets of two vehicles,
  // the lit models' pools, and a warning from the second part with its line in the whole text.
  EXPECT_EQ(one.in.where.at("trainsets").size(), 2u);
  std::map<std::uint32_t, int> grouped;  // tracks per group number: TD.scn's 87 in groups 1 and 2
  for (const eu7b::Chunk& c : parts.in.module.chunks)
    if (const auto* tracks = std::get_if<eu7b::RecordList<eu7b::Track>>(&c.data))
      for (const eu7b::Track& t : tracks->records)
        if (t.node.flags & eu7b::node_flag::group) ++grouped[t.node.group];
  EXPECT_EQ(grouped, (std::map<std::uint32_t, int>{{1, 87}, {2, 87}}));
  EXPECT_EQ(one.in.where.at("models").size(), 3 * 77 + 6u);  // linia053 has 77
  ASSERT_FALSE(parts.in.warnings.empty());
  EXPECT_NE(parts.in.warnings.back().message.find("bogus_keyword"), std::string::npos);
  EXPECT_GT(parts.in.warnings.back().line, 100000u);
}

TEST(SceneryParts, APartStartingInsideAnOriginIsDroppedAndTheResultIsStillOnePass) {
  SCENERIA_REQUIRE_SAMPLES();
  // The whole text inside one origin: the second part would start with none open.
  const std::string text = "origin 1000 0 -1000\n" + big_text() + "endorigin\n";
  const Compiled one = compile(text, 1), parts = compile(text, 2);
  EXPECT_EQ(parts.in.parts, 1u);
  expect_same(one, parts);
}

// big_text() with node lines inside a block comment around the middle: the cut lands on one of
// them, which the part before it never sees as a statement.
std::string big_text_cut_in_a_comment() {
  std::string text = big_text();
  std::string commented = "/*\n";
  for (int i = 0; i < 20000; ++i) commented += "node -1 0 x" + std::to_string(i) + " model 0 0 0 0 a.t3d none endmodel\n";
  commented += "*/\n";
  text.insert(text.find("\nnode", text.size() / 2 - commented.size() / 2) + 1, commented);
  return text;
}

TEST(SceneryParts, APartStartingInsideACommentIsDroppedAndTheResultIsStillOnePass) {
  SCENERIA_REQUIRE_SAMPLES();
  const std::string text = big_text_cut_in_a_comment();
  const Compiled one = compile(text, 1), parts = compile(text, 2);
  EXPECT_EQ(parts.in.parts, 1u);
  expect_same(one, parts);
}

// Three parts where the middle one is short (no node line for 2 MB pushes its start late) and
// misses its cut (an origin is open there): it reads on to the end before it has sized its lists.
TEST(SceneryParts, AShortPartThatMissesItsCutReadsOnToTheEnd) {
  const std::string model = "node -1 0 m model 1 0 1 0 a.t3d none endmodel\n";
  std::string text;
  while (text.size() < (std::size_t{2} << 20)) text += model;
  text += "/*\n";
  while (text.size() < (std::size_t{2} << 20) + (std::size_t{1950} << 10)) text += "a comment line without statements\n";
  text += "*/\n" + model + "origin 5 0 5\n";
  while (text.size() < (std::size_t{6} << 20) + 4096) text += model;
  text += "endorigin\n";
  const Compiled one = compile(text, 1), parts = compile(text, 3);
  EXPECT_EQ(parts.in.parts, 2u);  // the first part met its cut; the second read on
  expect_same(one, parts);
}

// The module writer on two threads (chunks written in place at once) gives the one-thread bytes.
TEST(SceneryParts, ModuleWrittenOnTwoThreadsIsTheOneThreadModule) {
  auto module = eu7b::generate_module({.models = 300000, .track_km = 40.0});
  ASSERT_TRUE(module.ok());
  const auto one = eu7b::write_module(*module, 1), two = eu7b::write_module(*module, 2);
  ASSERT_TRUE(one.ok() && two.ok());
  ASSERT_GT(one->size(), std::size_t{4} << 20);  // big enough to be shared out
  EXPECT_TRUE(*one == *two);
}

// Opened for a conversion (deferred), a scenery is read when first asked and then answers as one
// opened to be viewed; its compile is the same module.
TEST(SceneryParts, DeferredOpeningReadsOnFirstNeedAndCompilesTheSame) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(test::samples_dir() / "maszyna/text/TD.scn");
  MemorySource a(bytes, "TD.scn"), b(bytes, "TD.scn");
  auto now = open_document(a, {}), later = open_document(b, {.deferred = true});
  ASSERT_TRUE(now.ok() && later.ok());
  const Writer* eu7 = find_format("scenery-text")->writer_for("TD.eu7");
  ASSERT_NE(eu7, nullptr);
  const auto from_later = eu7->write(**later, {}), from_now = eu7->write(**now, {});
  ASSERT_TRUE(from_later.ok() && from_now.ok());
  EXPECT_TRUE(*from_later == *from_now);
  EXPECT_EQ((*later)->headline(), (*now)->headline());
  std::uint64_t tracks = 0;
  for (const ListInfo& l : (*later)->lists())
    if (l.id == "tracks") tracks = l.count;
  EXPECT_EQ(tracks, 87u);
}

// ---- Baked in parts: the twin of a big text, baked side by side, is the one-pass twin ----

struct Baked {
  std::vector<std::uint8_t> twin;
  std::vector<std::string> includes;
  std::uint32_t parts = 0;
};

Baked bake_text(const std::string& text, unsigned threads) {
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  Baked b;
  b.twin = bake_bytes(bytes, TwinKind::scm, {}, &b.includes, threads, &b.parts);
  return b;
}

TEST(SceneryParts, TwinBakedInPartsIsTheOnePassTwinByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  // The second part has its own strings (renumbered on joining, markers re-measured), includes
  // (TD.scn's, with parameters) and quoted tokens.
  const std::string text = big_text() + "node -1 0 \"Quoted Name\" model 1 2 3 0 \"Lamp.t3d\" none endmodel\n";
  const Baked one = bake_text(text, 1), parts = bake_text(text, 2);
  EXPECT_EQ(one.parts, 1u);
  ASSERT_EQ(parts.parts, 2u) << "the text was not baked in parts: this test would prove nothing";
  ASSERT_EQ(one.twin.size(), parts.twin.size());
  EXPECT_TRUE(one.twin == parts.twin);
  EXPECT_EQ(one.includes, parts.includes);
  ASSERT_GE(one.includes.size(), 2u);  // TD.scn's includes, once in each part
  auto twin = read_twin(parts.twin);
  ASSERT_TRUE(twin.ok()) << twin.error().describe();
  const auto strings = twin->strings;
  EXPECT_NE(std::find(strings.begin(), strings.end(), "Quoted Name"), strings.end());
  EXPECT_NE(std::find(strings.begin(), strings.end(), "bogus_keyword"), strings.end());  // first seen in the second part
}

TEST(SceneryParts, TwinPartStartingInsideACommentIsDropped) {
  SCENERIA_REQUIRE_SAMPLES();
  const std::string text = big_text_cut_in_a_comment();
  const Baked one = bake_text(text, 1), parts = bake_text(text, 2);
  EXPECT_EQ(parts.parts, 1u);
  EXPECT_TRUE(one.twin == parts.twin);
}

// A node closed by the end of the file before its position is complete keeps the previous
// node's values (the reference's quirk). Where the last part has no earlier visual node, those
// values are in the part before it: the parts cannot be joined, and the bake is one pass.
TEST(SceneryParts, TwinPartNeedingThePreviousPartsPositionIsNotJoined) {
  SCENERIA_REQUIRE_SAMPLES();
  std::string text = big_text();
  std::string infra;
  while (infra.size() < text.size() + text.size() / 4) infra += "node -1 0 p unknowntype 1 2 3\n";  // the middle is in here
  text += infra + "node 100 0 last model 7";  // the file ends after x
  const Baked one = bake_text(text, 1), parts = bake_text(text, 2);
  EXPECT_EQ(parts.parts, 1u);
  EXPECT_TRUE(one.twin == parts.twin);
  // And the marker has x from the last node, y and z from big_text()'s last model (20 0 10).
  auto twin = read_twin(one.twin);
  ASSERT_TRUE(twin.ok());
  ASSERT_FALSE(twin->markers.empty());
  const TwinMarker& last = twin->markers.back();
  EXPECT_EQ(last.position[0], 7.0f);
  EXPECT_EQ(last.position[1], 0.0f);
  EXPECT_EQ(last.position[2], 10.0f);
}

}  // namespace
}  // namespace sceneria::scenery
