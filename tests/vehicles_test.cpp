// Vehicles: the .fiz and .mmd files read as the engine reads them, a vehicle folder assembled,
// and a scenery's trainsets stood on their tracks (positions the engine's serializer gives).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include <fmt/format.h>

#include "formats/catalog.hpp"
#include "registry/registry.hpp"
#include "formats/eu7b/vehicles.hpp"
#include "formats/fiz/fiz.hpp"
#include "formats/mmd/mmd.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "fixtures.hpp"
#include "sample_files.hpp"
#include "scene/track_walk.hpp"
#include "stream/model_loader.hpp"

namespace sceneria {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

const fs::path& vehicles_dir() {
  static const fs::path dir = test::samples_dir() / "maszyna/vehicles";
  return dir;
}

const fiz::Entry* find_section(const fiz::Effective& f, std::string_view name) {
  for (const fiz::Entry& e : f.entries)
    if (e.kind == fiz::Entry::Kind::section && e.name == name) return &e;
  return nullptr;
}
std::vector<const fiz::Entry*> rows_of(const fiz::Effective& f, std::string_view table) {
  std::vector<const fiz::Entry*> out;
  for (const fiz::Entry& e : f.entries)
    if (e.kind == fiz::Entry::Kind::row && e.name == table) out.push_back(&e);
  return out;
}

TEST(Fiz, TheSampleReadsAsTheEngineReadsIt) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(vehicles_dir() / "eu160_v1/eu160.fiz");
  const fiz::Effective f = fiz::read_entries(bytes);
  const fiz::Dimensions d = fiz::dimensions(f);
  EXPECT_DOUBLE_EQ(*d.length, 19.9);
  EXPECT_DOUBLE_EQ(*d.height, 3.95);
  EXPECT_DOUBLE_EQ(*d.width, 2.95);
  EXPECT_DOUBLE_EQ(*d.axle_spacing, 2.9);
  EXPECT_DOUBLE_EQ(*d.bogie_spacing, 9.9);
  std::size_t sections = 0;
  for (const fiz::Entry& e : f.entries) sections += e.kind == fiz::Entry::Kind::section;
  EXPECT_EQ(sections, 16u);
  // The Cntrl. table's rows run to the next section (blank lines are no tokens to the engine).
  const auto cntrl = rows_of(f, "Cntrl");
  ASSERT_EQ(cntrl.size(), 8u);
  EXPECT_EQ(cntrl[0]->cells, (std::vector<std::string>{"-1", "0.8", "-1", "20", "Pneumatic"}));
  EXPECT_EQ(cntrl[0]->line, 12u);
  // A `//` cuts a row where it starts; the table ends at its marker.
  const auto lights = rows_of(f, "LightsList");
  ASSERT_EQ(lights.size(), 7u);
  EXPECT_EQ(lights[0]->cells, (std::vector<std::string>{"16", "1"}));
  EXPECT_EQ(rows_of(f, "ffList").size(), 3u);
  // A key given twice: the engine's lookup finds the first.
  const fiz::Entry* brake = find_section(f, "Brake");
  ASSERT_NE(brake, nullptr);
  std::vector<const fiz::Field*> power;
  for (const fiz::Field& field : brake->fields)
    if (field.key == "CompressorPower") power.push_back(&field);
  ASSERT_EQ(power.size(), 2u);
  EXPECT_EQ(power[0]->value, "Converter");
  EXPECT_FALSE(power[0]->repeated);
  EXPECT_TRUE(power[1]->repeated);
}

TEST(Fiz, IncludesComeFromTheVehiclesFolderWithTheirParameters) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto full = test::read_file(vehicles_dir() / "eu160_v1/eu160.fiz");
  const auto stub = test::read_file(vehicles_dir() / "eu160_v1/eu160t.fiz");  // one line, no terminator
  const fiz::Effective alone = fiz::read_entries(stub);
  EXPECT_EQ(alone.missing, (std::vector<std::string>{"eu160.fiz"}));
  EXPECT_FALSE(fiz::dimensions(alone).length);
  const fiz::Effective followed = fiz::read_entries(stub, [&](const std::string& name) -> std::optional<std::vector<std::uint8_t>> {
    if (name == "eu160.fiz") return full;
    return std::nullopt;
  });
  EXPECT_TRUE(followed.missing.empty());
  EXPECT_DOUBLE_EQ(*fiz::dimensions(followed).length, 19.9);
  ASSERT_GE(followed.files.size(), 2u);
  EXPECT_EQ(followed.files[1], "eu160.fiz");
  // `include` alone on its line takes the words after it, up to `end`, as name and parameters.
  const auto split = bytes_of("include\nbody.inc\n12.5 3.1\nend\nWheels: Ad=2 Bd=8\n");
  const fiz::Effective p = fiz::read_entries(split, [](const std::string& name) -> std::optional<std::vector<std::uint8_t>> {
    if (name == "body.inc") return bytes_of("Dimensions: L=(p1) W=(p2) H=(p3)\n");
    return std::nullopt;
  });
  const fiz::Dimensions d = fiz::dimensions(p);
  EXPECT_DOUBLE_EQ(*d.length, 12.5);
  EXPECT_DOUBLE_EQ(*d.width, 3.1);
  EXPECT_DOUBLE_EQ(*d.height, 0.0);  // (p3) past the last parameter is "none": no number
  EXPECT_DOUBLE_EQ(*d.bogie_spacing, 8.0);  // the line after `end` is read again as a line
  // A file including itself stops 16 deep, listed.
  const auto loop = bytes_of("include loop.fiz end\n");
  const fiz::Effective l = fiz::read_entries(loop, [&](const std::string&) { return std::optional(loop); });
  EXPECT_EQ(l.files.size(), 17u);
  EXPECT_EQ(l.missing, (std::vector<std::string>{"loop.fiz"}));
}

TEST(Fiz, LinesFollowTheEnginesRules) {
  const auto text = bytes_of(
      "Cntrl. BrakeSystem=Pneumatic\n"
      "1 2 3\n"
      "   \n"             // spaces only: ends the Cntrl. table
      "4 5 6\n"           // so this is nobody's
      "MotorParamTable: x=1\n"
      "0 1 2\n"
      "Param. M=5\n"      // a section does not close MotorParamTable (only END-MPT does)
      "7 8 9\n"
      "END-MPT\n"
      "Dimensions: L=99 # commented out\n"
      "  Dimensions: L= 12.5 W=3 H=4 // a note\n"
      "/* a block */Wheels: Ad=2 Bd=8\r\n"
      "Dimensions: W=3.2");
  const fiz::Effective f = fiz::read_entries(text);
  ASSERT_GE(f.entries.size(), 12u);
  using K = fiz::Entry::Kind;
  const std::vector<K> kinds = {K::section, K::row, K::blank, K::other, K::section, K::row, K::section, K::row, K::table_end, K::skipped, K::section, K::section, K::section};
  ASSERT_EQ(f.entries.size(), kinds.size());
  for (std::size_t i = 0; i < kinds.size(); ++i) EXPECT_EQ(f.entries[i].kind, kinds[i]) << i << ": " << f.entries[i].text;
  EXPECT_EQ(f.entries[7].name, "MotorParamTable");
  EXPECT_EQ(f.entries[11].name, "Wheels");
  EXPECT_EQ(f.entries[10].text, "Dimensions: L= 12.5 W=3 H=4 ");
  const fiz::Dimensions d = fiz::dimensions(f);
  EXPECT_DOUBLE_EQ(*d.length, 12.5);  // spaces after `=` are skipped; the `#` line is not read
  EXPECT_DOUBLE_EQ(*d.width, 3.2);    // the last line giving a key wins
  EXPECT_DOUBLE_EQ(*d.bogie_spacing, 8.0);
  EXPECT_EQ(fiz::extract_value("L", "Dimensions: HL=3 L=4"), "4");  // " key=" only
  // Every byte back, whatever the line ends.
  for (std::string_view s : {"a\r\nb\rc\n\nd", "x", "", "\n\n", "Param. M=1\r\n"}) {
    auto file = fiz::read_file(bytes_of(s));
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(fiz::write_file(*file), bytes_of(s));
  }
}

TEST(Mmd, DefinitionsReadAsTheEngineReadsThem) {
  SCENERIA_REQUIRE_SAMPLES();
  const mmd::Definition d = mmd::read_definition(test::read_file(vehicles_dir() / "eu160_v1/eu160.mmd"), {"EU160-011", "eu160", "eu160-011"});
  EXPECT_EQ(d.model, "e4dcu.t3d");
  EXPECT_TRUE(d.multi_textures);
  EXPECT_EQ(d.lowpoly_interior, "lowpoly_int.t3d");
  EXPECT_EQ(d.animations, (std::vector<int>{6, 0, 0, 4, 2, 2}));
  EXPECT_EQ(d.bogies, (std::vector<double>{5.16, -5.17}));  // the file's -5.16 is ahead: +5.16
  EXPECT_EQ(d.motors, (std::vector<double>{5.16, -4.84}));
  EXPECT_EQ(d.cabs[0], "maszynownia.t3d");
  EXPECT_EQ(d.cabs[1], "kab_melodia_a.t3d");
  EXPECT_EQ(d.cabs[2], "kab_melodia_b.t3d");
  EXPECT_EQ(mmd::read_definition(test::read_file(vehicles_dir() / "eu160_v1/eu160t.mmd"), {}).model, "tyskie)gyrfin.t3d");
  EXPECT_EQ(mmd::read_definition(test::read_file(vehicles_dir() / "eu160_v1/e6act-001.mmd"), {}).model, "pudlo_e6act-001.t3d");
  // A stub: its include named with its parameter, the variant's name.
  const auto stub = test::read_file(vehicles_dir() / "eu160_v1/e6acta_2.mmd");
  EXPECT_EQ(mmd::read_definition(stub, {}).missing, (std::vector<std::string>{"e6acta.mmd.inc"}));
  const mmd::Definition v = mmd::read_definition(stub, {"E6ACT-2", "e6acta_2", "red"}, [](const std::string& name) -> std::optional<std::vector<std::uint8_t>> {
    if (name == "e6acta.mmd.inc") return bytes_of("models: \\Body_(p1).T3D# lowpolyinterior: (p4) endmodels");
    return std::nullopt;
  });
  EXPECT_EQ(v.model, "body_e6acta_2.t3d");  // slashes and case as the engine's parser gives them
  EXPECT_TRUE(v.multi_textures);
  EXPECT_EQ(v.lowpoly_interior, "none");
  // The engine's own wrapper's parameters: (p1) name, (p2) type, (p3) skin.
  EXPECT_EQ(mmd::read_definition(bytes_of("models: (p2)_(p3).e3d endmodels"), {"n", "eu160", "Eu160-011"}).model, "eu160_eu160-011.e3d");
}

// Found by the fuzzer: an animation count beyond int ends the list (as a negative one does)
// instead of being converted, which C leaves undefined.
TEST(Mmd, AnAnimationCountBeyondIntEndsTheList) {
  const auto d = mmd::read_definition(bytes_of("models: a.t3d animations: 2 6e+56 3 endmodels"), {});
  EXPECT_EQ(d.model, "a.t3d");
  EXPECT_EQ(d.animations, (std::vector<int>{2}));
}

TEST(Mmd, EveryByteIsWrittenBack) {
  const std::string text =
      "\xEF\xBB\xBF// lead comment\r\nmodels: a.t3d# /* block\r\n comment */ animations: 1 -1\r\n"
      "lowpolyinterior: \"quoted name.t3d\"\r\nendmodels\nsounds: derail: derail.wav 200horn1: horn.wav\nendsounds\n"
      "internaldata:\ncab1model: none\ttrailing;semicolons;";
  auto file = mmd::read_file(bytes_of(text));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(mmd::write_file(*file), bytes_of(text));
  EXPECT_EQ(file->lead, "\xEF\xBB\xBF// lead comment\r\n");
  std::vector<std::string> keys;
  for (const auto& e : file->entries) keys.push_back(e.key + "@" + e.block);
  EXPECT_EQ(keys, (std::vector<std::string>{"models:@models", "animations:@models", "lowpolyinterior:@models", "endmodels@models",
                                            "sounds:@sounds", "derail:@sounds", "200horn1:@sounds", "endsounds@sounds", "internaldata:@internaldata",
                                            "cab1model:@internaldata"}));
  EXPECT_EQ(file->entries[2].values, (std::vector<std::string>{"quoted name.t3d"}));
  const mmd::Definition d = mmd::read_definition(bytes_of(text), {});
  EXPECT_EQ(d.lowpoly_interior, "quoted name.t3d");
  EXPECT_EQ(d.cabs[1], "");  // none
}

// A T3D mesh of one quad, 2 m wide and long, wearing replaceable skin 1.
std::string skin_quad() {
  return "Parent: none\nType: Mesh\nName: body\nAnim: false\nAmbient: 255 255 255\nDiffuse: 255 255 255\nSpecular: 0 0 0\nSelfIllum: false\n"
         "Wire: false\nWireSize: 1\nOpacity: 100\nMap: replacableskin\nMaxDistance: -1\nMinDistance: 0\nTransform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\n"
         "NumVerts: 6\n1\n-1 0 -1 0 0\n1 0 -1 1 0\n1 0 1 1 1\n1\n-1 0 -1 0 0\n1 0 1 1 1\n-1 0 1 0 1\n";
}

TEST(Mmd, AVehicleFolderOpensAssembled) {
  MemoryAssets assets;
  const auto mmd_text = bytes_of("models: body.t3d#\nlowpolyinterior: inside.t3d\nendmodels\nlocations:\n bogies: -4 4 end\nendlocations\n");
  assets.add("pkp/test/test.mmd", mmd_text);
  assets.add("pkp/test/test.fiz", bytes_of("Dimensions: L=15 W=3 H=4\nWheels: Ad=2 Bd=9\n"));
  assets.add("pkp/test/body.t3d", bytes_of(skin_quad()));
  assets.add("pkp/test/red,1.dds", test::solid_dds(0xF800));
  assets.add("pkp/test/blue,1.dds", test::solid_dds(0x001F));
  MemorySource source(mmd_text, "pkp/test/test.mmd");
  for (const auto& [set, want] : {std::pair<std::string, std::uint16_t>{"", 0x001F}, {"red", 0xF800}}) {
    SCOPED_TRACE(set);
    OpenOptions options{.assets = &assets};
    if (!set.empty()) options.params["skin-set"] = set;
    auto doc = open_document(source, options);
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    EXPECT_EQ((*doc)->format_id(), "mmd");
    // The body drawn with the chosen set's skin; the interior missing, listed with its folder.
    EXPECT_EQ((*doc)->missing_assets(), (std::vector<std::string>{"pkp/test/inside.t3d"}));
    const auto parts = (*doc)->rows("parts", 0, 10);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0]["detail"], "body: drawn");
    EXPECT_EQ((*doc)->record("parts", 0)["file"], "pkp/test/body.t3d");
    auto scene = (*doc)->scene();
    ASSERT_TRUE(scene.ok());
    ASSERT_EQ(scene->meshes.size(), 1u);
    const auto& skin = scene->textures.at(scene->materials.at(scene->meshes[0].parts[0].material).texture);
    std::uint16_t c0 = 0;
    std::memcpy(&c0, skin.levels.at(0).data(), 2);
    EXPECT_EQ(c0, want);
    const auto choices = (*doc)->choices();
    ASSERT_EQ(choices.size(), 1u);
    EXPECT_EQ(choices[0].value, set.empty() ? "blue" : "red");
    // Markers: both ends from the .fiz length, both bogies from the .mmd, one line each plus the sides.
    const auto locations = (*doc)->rows("locations", 0, 10);
    ASSERT_EQ(locations.size(), 4u);
    EXPECT_EQ((*doc)->record("locations", 0)["ahead_of_centre_m"], 7.5);
    EXPECT_EQ((*doc)->record("locations", 2)["ahead_of_centre_m"], 4.0);
    std::size_t line_vertices = 0;
    for (const auto& sec : scene->sections)
      for (const auto& b : sec.batches)
        if (b.primitive == scene::Batch::Primitive::lines) line_vertices += b.positions.size();
    EXPECT_EQ(line_vertices, 2u * (4 + 2));
  }
  // Opened by its bare name (a file picked out of a dropped folder): the sets among the files.
  MemorySource bare_name(mmd_text, "test.mmd");
  auto picked = open_document(bare_name, {.assets = &assets});
  ASSERT_TRUE(picked.ok());
  ASSERT_EQ((*picked)->choices().size(), 1u);
  EXPECT_EQ((*picked)->choices()[0].value, "blue");
  // No model file at all: the body is the .fiz's box, 15 x 4 x 3.
  MemoryAssets bare;
  bare.add("pkp/test/test.mmd", mmd_text);
  bare.add("pkp/test/test.fiz", bytes_of("Dimensions: L=15 W=3 H=4\n"));
  auto doc = open_document(source, {.assets = &bare});
  ASSERT_TRUE(doc.ok());
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene.ok());
  ASSERT_EQ(scene->meshes.size(), 1u);
  EXPECT_TRUE(scene->meshes[0].proxy);
  EXPECT_EQ(scene->meshes[0].bounds_max - scene->meshes[0].bounds_min, glm::vec3(3, 4, 15));
  // Sizes no vehicle has are none: the stand-in box, and bogies a kilometre out are no markers.
  MemoryAssets broken;
  const auto wild = bytes_of("models: body.t3d endmodels locations: bogies: -1e30 nan 4 end endlocations");
  broken.add("pkp/test/test.mmd", wild);
  broken.add("pkp/test/test.fiz", bytes_of("Dimensions: L=nan W=1e30 H=-4\nWheels: Bd=inf\n"));
  MemorySource wild_source(wild, "pkp/test/test.mmd");
  auto odd = open_document(wild_source, {.assets = &broken});
  ASSERT_TRUE(odd.ok());
  auto box = (*odd)->scene();
  ASSERT_TRUE(box.ok());
  ASSERT_EQ(box->meshes.size(), 1u);
  EXPECT_EQ(box->meshes[0].bounds_max - box->meshes[0].bounds_min, glm::vec3(2.9f, 4.0f, 20.0f));
  const auto marks = (*odd)->rows("locations", 0, 10);
  ASSERT_EQ(marks.size(), 1u);  // bogie 4 only: no ends without a length
  EXPECT_EQ((*odd)->record("locations", 0)["ahead_of_centre_m"], -4.0);
}

// The consist sample's game folder as the engine finds it: dynamic/<data folder>/.
MemoryAssets consist_folder() {
  MemoryAssets assets;
  for (const char* f : {"eu160.mmd", "eu160.fiz", "eu160t.mmd", "eu160t.fiz", "eu160-011,1.mat", "eu160-013,1.mat"})
    assets.add(std::string("dynamic/pkp/eu160_v1/") + f, test::read_file(vehicles_dir() / "eu160_v1" / f));
  return assets;
}

struct Standing {
  glm::dvec3 position;
  glm::dquat rotation;
};
std::vector<Standing> vehicles_of(const scene::Scene& s) {
  std::vector<Standing> out;
  for (const auto& sec : s.sections)
    for (const auto& i : sec.instances)
      if (i.object != scene::kNoObject && s.kinds.at(s.objects.at(i.object).kind) == "dynamics") {
        if (out.size() <= s.objects[i.object].index) out.resize(s.objects[i.object].index + 1);
        out[s.objects[i.object].index] = {sec.origin + glm::dvec3(i.offset), glm::dquat(i.rotation)};
      }
  return out;
}

TEST(Vehicles, TheConsistStandsOnItsTrackAsTheEngineStandsIt) {
  SCENERIA_REQUIRE_SAMPLES();
  // The track runs from (-320, 0.2, 150) to (-320, 0.2, 750); the trainset's front is 210.5 m on.
  // Each vehicle's front: the trainset's offset, less the lengths before it, less its own offset
  // (deserialize_dynamic); its middle half its length (19.9 m, eu160.fiz) behind.
  const double y = 0.2 + 0.18;
  const std::vector<double> middles = {150 + 210.5 - 9.95, 150 + (210.5 - 19.9 - 0.35) - 9.95, 150 + (210.5 - 2 * 19.9 - 1.2) - 9.95};
  for (const char* file : {"consist.scn", "consist.v6.eu7"}) {
    SCOPED_TRACE(file);
    const auto bytes = test::read_file(vehicles_dir() / file);
    MemorySource source(bytes, std::string("scenery/") + file);
    MemoryAssets assets = consist_folder();
    auto doc = open_document(source, {.assets = &assets});
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    auto scene = (*doc)->scene();
    ASSERT_TRUE(scene.ok());
    const auto standing = vehicles_of(*scene);
    ASSERT_EQ(standing.size(), 3u);
    for (std::size_t v = 0; v < 3; ++v) {
      EXPECT_NEAR(standing[v].position.x, -320.0, 1e-3) << v;
      EXPECT_NEAR(standing[v].position.y, y, 1e-3) << v;
      EXPECT_NEAR(standing[v].position.z, middles[v], 1e-3) << v;
      // Facing the track's second end (+Z): no turn.
      const glm::dvec3 ahead = standing[v].rotation * glm::dvec3(0, 0, 1);
      EXPECT_NEAR(ahead.z, 1.0, 1e-6) << v;
    }
    // The proxies: the .fiz's size, the .mmd as the file that replaces them, the record's skin.
    bool found = false;
    for (const auto& m : scene->meshes)
      if (!m.files.empty() && m.files[0] == "dynamic/pkp/eu160_v1/eu160t.mmd") {
        found = true;
        EXPECT_EQ(m.file_params, (std::vector<std::pair<std::string, std::string>>{{"skin-set", "eu160-013"}}));
        EXPECT_NEAR(m.bounds_max.z - m.bounds_min.z, 19.9, 1e-4);
      }
    EXPECT_TRUE(found);
    // Picking the second vehicle: its record, its trainset, its .fiz summary.
    const auto r = (*doc)->record("dynamics", 1);
    EXPECT_EQ(r["trainset"]["name"], "pociag_probny");
    EXPECT_EQ(r["trainset"]["position"], 2);
    EXPECT_EQ(r["trainset"]["vehicles"], nlohmann::ordered_json::array({"EU160-011", "EU160-013", "EU160-025"}));
    EXPECT_DOUBLE_EQ(r["vehicle"]["length_m"].get<double>(), 19.9);
    EXPECT_EQ(r["vehicle"]["model"], "tyskie)gyrfin.t3d");
    EXPECT_TRUE((*doc)->missing_assets().empty());
    // The outliner: the trainset, its vehicles in its order.
    for (const ListInfo& l : (*doc)->lists()) {
      if (l.id != "dynamics") continue;
      ASSERT_EQ(l.groups.size(), 1u);
      EXPECT_EQ(l.groups[0].label, "trainset pociag_probny on tor_stacyjny_3");
      EXPECT_EQ(l.groups[0].count, 3u);
    }
    const auto members = (*doc)->rows_in_group("dynamics", 0, 0, 10);
    ASSERT_EQ(members.size(), 3u);
    EXPECT_EQ(members[2]["i"], 2);
    EXPECT_EQ(members[2]["name"], "EU160-025");
  }
  // Without the folder: boxes of a stand-in 20 m, spaced by it, each file listed missing.
  const auto bytes = test::read_file(vehicles_dir() / "consist.scn");
  MemorySource source(bytes, "scenery/consist.scn");
  MemoryAssets none;
  auto doc = open_document(source, {.assets = &none});
  ASSERT_TRUE(doc.ok());
  const auto standing = vehicles_of(*(*doc)->scene());
  ASSERT_EQ(standing.size(), 3u);
  EXPECT_NEAR(standing[1].position.z, 150 + (210.5 - 20 - 0.35) - 10, 1e-3);
  const auto missing = (*doc)->missing_assets();
  EXPECT_NE(std::find(missing.begin(), missing.end(), "dynamic/pkp/eu160_v1/eu160t.fiz"), missing.end());
}

// Distance from `p` to the curve (its polyline of 2000 pieces), on the ground.
double off_curve(const scene::TrackCurve& c, const glm::dvec3& p) {
  double best = 1e30;
  glm::dvec2 a(c.p[0].x, c.p[0].z);
  const glm::dvec2 q(p.x, p.z);
  for (int i = 1; i <= 2000; ++i) {
    const glm::dvec3 n = scene::bezier_point(c.p, i / 2000.0);
    const glm::dvec2 b(n.x, n.z), ab = b - a;
    const double f = std::clamp(glm::dot(q - a, ab) / std::max(glm::dot(ab, ab), 1e-12), 0.0, 1.0);
    best = std::min(best, glm::length(q - (a + ab * f)));
    a = b;
  }
  return best;
}

TEST(Vehicles, AxlesFollowCurvesAcrossJointsAndReversedVehiclesTurn) {
  // A 90 degree curve from (0,0,0) to (100,0,100), then a straight entered at its far end, so the
  // walk turns round on it; the trainset starts 40 m into the straight, its second vehicle turned.
  const std::string scn =
      "node -1 0 bend track normal 157 1.435 0.25 25 20 0 flat vis rail/a 4 rail/b 0.2 2.75 2.5\n"
      "0 0 0 0\n0 0 55.23\n-55.23 0 0\n100 0 100 0\n0\nendtrack\n"
      "node -1 0 straight track normal 100 1.435 0.25 25 20 0 flat vis rail/a 4 rail/b 0.2 2.75 2.5\n"
      "200 0 100 0\n0 0 0\n0 0 0\n100 0 100 0\n0\nendtrack\n"
      "trainset t bend 60 0\n"
      "node -1 0 A dynamic pkp\\t none one 0 headdriver 3 0 enddynamic\n"
      "node -1 0 B dynamic pkp\\t none one -1 nobody 3 0 enddynamic\n"
      "node -1 0 C dynamic pkp\\t none one 0 nobody 3 0 enddynamic\n"
      "endtrainset\n";
  MemoryAssets assets;
  assets.add("dynamic/pkp/t/one.mmd", bytes_of("models: one.t3d endmodels"));
  assets.add("dynamic/pkp/t/one.fiz", bytes_of("Dimensions: L=20 W=3 H=4\nWheels: Bd=12 Ad=2.5\n"));
  const auto bytes = bytes_of(scn);
  MemorySource source(bytes, "scenery/curve.scn");
  auto doc = open_document(source, {.assets = &assets});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene.ok());
  ASSERT_EQ(scene->tracks.size(), 2u);
  const auto standing = vehicles_of(*scene);
  ASSERT_EQ(standing.size(), 3u);
  const scene::TrackCurve& bend = scene->tracks[0];
  EXPECT_TRUE((*doc)->missing_assets().empty());
  // Each vehicle's middle lies between its axles (Bd = 12 m apart), inside the arc by the
  // sagitta of their chord on the bend's 100 m radius: 100 (1 - cos(0.06)) = 0.18 m.
  for (std::size_t v = 0; v < 3; ++v) EXPECT_NEAR(off_curve(bend, standing[v].position), 0.18, 0.02) << v;
  // A at 60 - 10 = 50 m along the bend, B at 30, C at 10: in order, on the bend, spaced by length.
  const auto along = [&](double s) {
    const glm::dvec3 p = scene::walk_tracks(scene->tracks, 0, s).position;
    EXPECT_LT(off_curve(bend, p), 0.01) << s;  // the axles run on the curve
    return p;
  };
  for (std::size_t v = 0; v < 3; ++v) {
    const glm::dvec3 mid = 0.5 * (along(50.0 - 20.0 * v + 6) + along(50.0 - 20.0 * v - 6));
    EXPECT_NEAR(glm::length(standing[v].position - glm::dvec3(0, 0.18, 0) - mid), 0.0, 1e-6) << v;
  }
  // B is turned: it faces the bend's first end, the others its second.
  const glm::dvec3 a = standing[0].rotation * glm::dvec3(0, 0, 1), b = standing[1].rotation * glm::dvec3(0, 0, 1);
  const glm::dvec3 way = scene::walk_tracks(scene->tracks, 0, 30.0 + 6).position - scene::walk_tracks(scene->tracks, 0, 30.0 - 6).position;
  EXPECT_LT(glm::dot(b, way), 0.0);
  EXPECT_GT(glm::dot(a, scene::walk_tracks(scene->tracks, 0, 56).position - scene::walk_tracks(scene->tracks, 0, 44).position), 0.0);
  // A ride from A starts on the bend at its front coupler (10 m ahead of its middle).
  const glm::dvec3 front = standing[0].position + a * 10.0;
  const scene::TrackPlace ride = scene::nearest_on_tracks(scene->tracks, front, 6.0);
  EXPECT_EQ(ride.curve, 0);
  EXPECT_LT(glm::length(glm::dvec2(ride.position.x - front.x, ride.position.z - front.z)), 0.5);
  EXPECT_GT(glm::dot(ride.forward, a), 0.9);
  EXPECT_EQ(scene::nearest_on_tracks(scene->tracks, glm::dvec3(500, 0, 500), 6.0).curve, -1);
  // Walking on past the bend's end enters the straight at its second end and runs it backwards.
  const scene::TrackPlace past = scene::walk_tracks(scene->tracks, 0, scene->tracks[0].length + 30.0);
  EXPECT_EQ(past.curve, 1);
  EXPECT_NEAR(past.position.x, 130.0, 0.05);
  EXPECT_NEAR(past.position.z, 100.0, 1e-6);
  // And back before its first end: nothing there, so straight on away from it.
  const scene::TrackPlace before = scene::walk_tracks(scene->tracks, 0, -10.0);
  EXPECT_TRUE(before.off_end);
  EXPECT_NEAR(before.position.z, -10.0, 1e-6);
}

TEST(Vehicles, TheirModelsReplaceTheirBoxesWithTheSkinTheirRecordNames) {
  const std::string scn =
      "node -1 0 t track normal 100 1.435 0.25 25 20 0 flat vis rail/a 4 rail/b 0.2 2.75 2.5\n"
      "0 0 0 0\n0 0 0\n0 0 0\n0 0 100 0\n0\nendtrack\n"
      "trainset s t 50 0\n"
      "node -1 0 A dynamic pkp\\t red.dds body 0 headdriver 3 0 enddynamic\n"
      "node -1 0 B dynamic pkp\\t blue body 0 nobody 3 0 enddynamic\n"
      "endtrainset\n";
  MemoryAssets assets;
  assets.add("dynamic/pkp/t/body.mmd", bytes_of("models: body.t3d# endmodels"));
  assets.add("dynamic/pkp/t/body.fiz", bytes_of("Dimensions: L=2 W=2 H=1\n"));
  assets.add("dynamic/pkp/t/body.t3d", bytes_of(skin_quad()));
  assets.add("dynamic/pkp/t/red,1.dds", test::solid_dds(0xF800));
  assets.add("dynamic/pkp/t/blue,1.dds", test::solid_dds(0x001F));
  const auto bytes = bytes_of(scn);
  MemorySource source(bytes, "scenery/s.scn");
  auto doc = open_document(source, {.assets = &assets});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene.ok());
  stream::ModelLoader loader(open_model_scene);
  loader.track(*scene);
  EXPECT_EQ(loader.pending(), 2u);  // one box per skin
  std::map<std::uint16_t, int> colours;
  while (auto delta = loader.load_next(glm::dvec3(0, 0, 50), assets)) {
    ASSERT_EQ(delta->replaces.size(), 1u);
    const scene::Mesh& was = scene->meshes.at(delta->replaces[0]);
    EXPECT_EQ(was.files, (std::vector<std::string>{"dynamic/pkp/t/body.mmd"}));
    const scene::Mesh& model = delta->meshes.at(0);
    EXPECT_EQ(model.indices.size(), 6u);  // the quad, no box and no markers
    const glm::vec3 size = model.bounds_max - model.bounds_min;  // the T3D's ground plane stands up: its Z is up
    EXPECT_NEAR(size.x, 2.0f, 1e-5f);
    EXPECT_NEAR(size.y, 2.0f, 1e-5f);
    EXPECT_NEAR(size.z, 0.0f, 1e-5f);
    const auto& skin = delta->textures.at(delta->materials.at(model.parts.at(0).material).texture);
    std::uint16_t c0 = 0;
    std::memcpy(&c0, skin.levels.at(0).data(), 2);
    ++colours[c0];
  }
  EXPECT_TRUE(loader.failed().empty());
  EXPECT_EQ(colours, (std::map<std::uint16_t, int>{{0x001F, 1}, {0xF800, 1}}));  // "red.dds" names the set "red"
}

TEST(Vehicles, ExportsCarryThemAsNodes) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(vehicles_dir() / "consist.scn");
  MemorySource source(bytes, "scenery/consist.scn");
  MemoryAssets assets = consist_folder();
  auto doc = open_document(source, {.assets = &assets});
  ASSERT_TRUE(doc.ok());
  const Writer* gltf = find_format((*doc)->format_id())->writer_for("gltf");
  ASSERT_NE(gltf, nullptr);
  auto out = gltf->write(**doc, {});
  ASSERT_TRUE(out.ok()) << out.error().describe();
  const auto j = nlohmann::json::parse(out->begin(), out->end());
  std::vector<std::pair<std::string, double>> vehicles;  // name, z
  for (const auto& node : j["nodes"])
    if (node.contains("extras") && node["extras"].value("kind", "") == "dynamics")
      vehicles.emplace_back(node["extras"]["fields"]["node"]["name"].get<std::string>(), node["translation"][2].get<double>());
  ASSERT_EQ(vehicles.size(), 3u);
  EXPECT_EQ(vehicles[0].first, "EU160-011");
  EXPECT_EQ(vehicles[2].first, "EU160-025");
  // Spaced as they stand: a length plus the next one's own offset apart (the export re-centres).
  EXPECT_NEAR(vehicles[0].second - vehicles[1].second, 19.9 + 0.35, 1e-3);
  EXPECT_NEAR(vehicles[1].second - vehicles[2].second, 19.9 + 1.2 - 0.35, 1e-3);
}

}  // namespace
}  // namespace sceneria
