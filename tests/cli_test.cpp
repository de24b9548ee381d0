// The native CLI's commands, run in-process.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "sample_files.hpp"

namespace sceneria {
namespace {

struct Run {
  int code;
  std::string out, err;
};

Run run(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(Cli, InfoJsonMatchesTheReferenceChunkTables) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const char* rel : {"maszyna/eu7/TD.v9-root.eu7", "maszyna/eu7/historic/TD.v8.eu7"}) {
    const auto path = test::samples_dir() / rel;
    SCOPED_TRACE(path.string());
    auto r = run({"info", path.string(), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto ref = test::read_reference_decode(path);
    EXPECT_EQ(j["format"], "eu7b");
    EXPECT_EQ(j["version"], ref.number("version"));
    EXPECT_EQ(j["size"], 42548);
    EXPECT_EQ(j["strings"], 305);
    ASSERT_EQ(j["chunks"].size(), ref.chunks.size());
    for (std::size_t i = 0; i < ref.chunks.size(); ++i) {
      EXPECT_EQ(j["chunks"][i]["id"], ref.chunks[i].id);
      EXPECT_EQ(j["chunks"][i]["offset"], ref.chunks[i].offset);
      EXPECT_EQ(j["chunks"][i]["size"], ref.chunks[i].size);
    }
  }
}

TEST(Cli, InfoTablePrintsEveryChunk) {
  SCENERIA_REQUIRE_SAMPLES();
  auto r = run({"info", (test::samples_dir() / "maszyna/eu7/TD.v6.eu7").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("format   eu7b version 6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  Strings                  305\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chunks   9"), std::string::npos);
  EXPECT_NE(r.out.find("  FINT            42508           12"), std::string::npos) << r.out;
}

TEST(Cli, ErrorsAndUsage) {
  auto missing = run({"info", "/nonexistent/x.eu7"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);

  auto usage = run({"frobnicate"});
  EXPECT_EQ(usage.code, 2);
  auto none = run({});
  EXPECT_EQ(none.code, 2);
  auto help = run({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("info"), std::string::npos);
}

// A scratch directory per test, removed afterwards (ctest runs tests as separate processes).
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = std::filesystem::path(::testing::TempDir()) / (std::string("sceneria_cli_") + info->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::string path(const char* name) const { return (dir / name).string(); }
};

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::filesystem::path eu7(const char* rel) { return test::samples_dir() / "maszyna/eu7" / rel; }

// The JSON chunk of a .glb.
nlohmann::json glb_json(const std::string& path) {
  const auto bytes = test::read_file(path);
  EXPECT_GE(bytes.size(), 20u);
  if (bytes.size() < 20) return {};
  std::uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.begin() + 20, bytes.begin() + 20 + length);
}

// A B3D named by a path with folders, from another folder: its .res is found beside it (the
// file is named under its folder as the formats expect), the export holds the .res's textures,
// and the describe line counts them. A model whose textures are elsewhere names each one.
TEST(Cli, ExportsCarryTheTexturesBesideTheInputAndNameTheMissingOnes) {
  SCENERIA_REQUIRE_SAMPLES();
  Scratch tmp;
  namespace fs = std::filesystem;
  fs::create_directories(tmp.dir / "data");
  for (const char* f : {"ks.b3d", "ks.res"}) fs::copy_file(test::samples_dir() / "hardtruck" / f, tmp.dir / "data" / f);
  const fs::path cwd = fs::current_path();
  fs::current_path(tmp.dir);
  auto glb = run({"convert", "data/ks.b3d", "ks.glb"});
  auto obj = run({"convert", "data/ks.b3d", "ks.obj"});
  auto info = run({"info", "data/ks.b3d", "--json"});
  fs::current_path(cwd);
  ASSERT_EQ(glb.code, 0) << glb.err;
  EXPECT_NE(glb.out.find(", 11 texture images, "), std::string::npos) << glb.out;
  EXPECT_EQ(glb.err.find("not found"), std::string::npos) << glb.err;
  const auto j = glb_json(tmp.path("ks.glb"));
  EXPECT_EQ(j["images"].size(), 11u);
  std::size_t textured = 0;
  for (const auto& m : j["materials"]) textured += m["pbrMetallicRoughness"].contains("baseColorTexture");
  EXPECT_GE(textured, 11u);
  ASSERT_EQ(obj.code, 0) << obj.err;
  EXPECT_NE(obj.out.find(", 11 texture images, "), std::string::npos) << obj.out;
  std::ifstream mtl(tmp.path("ks.mtl"));
  std::string line;
  std::size_t maps = 0;
  while (std::getline(mtl, line))
    if (line.rfind("map_Kd ks_", 0) == 0) {
      ++maps;
      EXPECT_TRUE(fs::exists(tmp.dir / line.substr(7))) << line;
    }
  EXPECT_GE(maps, 11u);
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)["missingFiles"].size(), 0u) << info.out;

  // e6acta_detale_dual_power.e3d: one texture beside it, its replaceable skin nowhere.
  const auto model = test::samples_dir() / "maszyna/models/e6acta_detale_dual_power.e3d";
  auto e3d = run({"convert", model.string(), tmp.path("e6.glb")});
  ASSERT_EQ(e3d.code, 0) << e3d.err;
  EXPECT_NE(e3d.out.find(", 1 texture image, "), std::string::npos) << e3d.out;
  EXPECT_NE(e3d.err.find("warning: not found: skins/eu160-001,1: not found (replaceable skin 1)"), std::string::npos) << e3d.err;
  EXPECT_EQ(glb_json(tmp.path("e6.glb"))["images"].size(), 1u);
  auto about = run({"info", model.string()});
  EXPECT_NE(about.out.find("missing files 1\n"), std::string::npos) << about.out;
}

// A format's open choices are --param on info, validate and convert, as `formats` lists them.
// `example` lists the gallery and writes one as files a user's tools read: the X-Ray object
// written, then read from disk with its textures found under gamedata/.
TEST(Cli, ExamplesAreListedAndWrittenAsFiles) {
  const auto list = run({"example"});
  EXPECT_EQ(list.code, 0);
  for (const char* id : {"railway", "twin", "module", "b3d", "xray"}) EXPECT_NE(list.out.find(id), std::string::npos) << id;
  Scratch s;
  const auto written = run({"example", "xray", s.path("x")});
  ASSERT_EQ(written.code, 0) << written.err;
  const std::string object = s.path("x") + "/gamedata/objects/example/arm.object";
  ASSERT_TRUE(std::filesystem::exists(object));
  const auto info = run({"info", object, "--json"});
  ASSERT_EQ(info.code, 0) << info.err;
  const auto j = nlohmann::json::parse(info.out);
  EXPECT_TRUE(j["missingFiles"].empty()) << j["missingFiles"].dump();
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
  EXPECT_EQ(run({"example", "nothing", s.path("y")}).code, 1);
  EXPECT_EQ(run({"example", "xray"}).code, 2);  // no folder
}

TEST(Cli, OpenChoicesAreParams) {
  SCENERIA_REQUIRE_SAMPLES();
  const std::string object = (test::samples_dir() / "xray" / "test_fmt_sg_new.object").string();
  auto formats = run({"formats"});
  ASSERT_EQ(formats.code, 0);
  EXPECT_NE(formats.out.find("open choices smoothing=automatic|soc|cop\n"), std::string::npos) << formats.out;
  EXPECT_NE(formats.out.find("open choices skin-set  hidden=false|true\n"), std::string::npos) << formats.out;
  EXPECT_NE(formats.out.find("open choices group  hidden=false|true\n"), std::string::npos) << formats.out;

  auto as_soc = run({"info", object, "--json", "--param", "smoothing=soc"});
  ASSERT_EQ(as_soc.code, 0) << as_soc.err;
  const auto choices = nlohmann::json::parse(as_soc.out)["choices"];
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0]["param"], "smoothing");
  EXPECT_EQ(choices[0]["value"], "soc");
  EXPECT_EQ(choices[0]["values"][0]["label"], "automatic (CoP)");

  auto soft = run({"validate", object, "--param", "smoothing=soft"});
  EXPECT_EQ(soft.code, 1);
  EXPECT_NE(soft.err.find("smoothing: 'soft' is not one of 'automatic', 'soc', 'cop'"), std::string::npos) << soft.err;
  auto unknown = run({"info", object, "--param", "skin-set=red"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("has no open choice 'skin-set' (it has smoothing)"), std::string::npos) << unknown.err;

  // Converting, the choice reaches the reader and the writer's options stay the writer's: read as
  // SoC, every face of this object is flat, so the glTF's normals differ from the automatic (CoP) read.
  Scratch scratch;
  auto automatic = run({"convert", object, scratch.path("auto.glb"), "--param", "instancing=false"});
  auto soc = run({"convert", object, scratch.path("soc.glb"), "--param", "smoothing=soc", "--param", "instancing=false"});
  ASSERT_EQ(automatic.code, 0) << automatic.err;
  ASSERT_EQ(soc.code, 0) << soc.err;
  const auto a = test::read_file(scratch.path("auto.glb")), b = test::read_file(scratch.path("soc.glb"));
  EXPECT_NE(a, b);
}

// The CLI's allocator choice asks the registry which files convert a piece at a time: a module,
// not its JSON form, not a text.
TEST(Cli, OnlyAModuleConvertsInPieces) {
  SCENERIA_REQUIRE_SAMPLES();
  EXPECT_TRUE(cli::converts_in_pieces(eu7("TD.v6.eu7").string()));
  Scratch scratch;
  ASSERT_EQ(run({"dump", eu7("TD.v6.eu7").string(), "-o", scratch.path("td.json")}).code, 0);
  EXPECT_FALSE(cli::converts_in_pieces(scratch.path("td.json")));
  write_file(scratch.path("a.scn"), {'n', 'o', 'd', 'e', '\n'});
  EXPECT_FALSE(cli::converts_in_pieces(scratch.path("a.scn")));
  EXPECT_FALSE(cli::converts_in_pieces(scratch.path("absent.eu7")));
}

TEST(Cli, ValidatePassesACleanSampleAndReportsCorruptionWithItsOffset) {
  SCENERIA_REQUIRE_SAMPLES();
  auto clean = run({"validate", eu7("wrapinc_linia053.v9-pack6.eu7").string()});
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find(": ok (EU7B v9, 7 chunks, 77 PACK models)"), std::string::npos) << clean.out;

  Scratch tmp;
  auto bytes = test::read_file(eu7("TD.v6.eu7"));
  // The first INCL record's source path (file offset 3428 = 0xd64) pointed past STRS: the file
  // still decodes, and validate names the field and where it is.
  auto bad_id = bytes;
  const std::uint32_t id = 0xABCDEF;
  std::memcpy(bad_id.data() + 3428, &id, 4);
  write_file(tmp.path("bad_id.eu7"), bad_id);
  auto r = run({"validate", tmp.path("bad_id.eu7")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find(": 0xd64: source_path 11259375 is outside STRS (305 strings)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": 1 problem\n"), std::string::npos) << r.out;

  // Cut inside TRAK (0x24ea, 11043 bytes): a decode error with the chunk's offset.
  write_file(tmp.path("cut.eu7"), {bytes.begin(), bytes.begin() + 12000});
  r = run({"validate", tmp.path("cut.eu7")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("truncated at 0x24ea: chunk TRAK at 0x24ea claims 11043 bytes but only 2550 remain"),
            std::string::npos) << r.err;
}

TEST(Cli, DumpCountsAgreeWithTheReferenceDecode) {
  SCENERIA_REQUIRE_SAMPLES();
  Scratch tmp;
  for (const char* rel : {"TD.v6.eu7", "wrapinc_linia053.v9-pack6.eu7"}) {
    SCOPED_TRACE(rel);
    const auto ref = test::read_reference_decode(eu7(rel));
    auto r = run({"dump", eu7(rel).string(), "-o", tmp.path("m.json")});
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(tmp.path("m.json"));
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["version"], ref.number("version"));
    EXPECT_EQ(j["strings"].size(), ref.number("strings"));
    std::map<std::string, std::size_t> records;
    std::size_t sections = 0, models = 0;
    for (const auto& c : j["chunks"]) {
      if (c.contains("records")) records[c["id"]] = c["records"].size();
      if (c.contains("sections"))
        for (const auto& s : c["sections"]) {
          ++sections;
          models += s["solo"].size() + s["inst"].size();
        }
    }
    EXPECT_EQ(records["INCL"], ref.number("includes"));
    EXPECT_EQ(records["TRAK"], ref.number("tracks"));
    EXPECT_EQ(records["MESH"], ref.number("shapes"));
    EXPECT_EQ(records["TRAC"], ref.number("traction"));
    EXPECT_EQ(records["DYNM"], ref.number("dynamics"));
    EXPECT_EQ(records["EVNT"], ref.number("events"));
    EXPECT_EQ(records["PIDX"], ref.number("pidx_entries"));
    EXPECT_EQ(records["PROT"], ref.number("prototypes"));
    EXPECT_EQ(sections, ref.number("pidx_entries"));
    EXPECT_EQ(models, std::string(rel) == "TD.v6.eu7" ? 0u : 77u);
  }
  // Without -o the JSON goes to standard output.
  auto r = run({"dump", eu7("tree_inc.v6.eu7").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  // 68 bytes: the 8-byte header and five empty chunks of 12 bytes.
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> ids;
  for (const auto& c : j["chunks"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"STRS", "INCL", "PLAC", "TRAK", "MESH"}));
}

// A scenery compiled as a root: its includes found under the `scenery` folder above it, the
// .inc's models in PACK; a progress bar when asked for.
TEST(Cli, ConvertCompilesASceneryRootWithItsIncFiles) {
  SCENERIA_REQUIRE_SAMPLES();
  Scratch tmp;
  std::filesystem::create_directories(tmp.path("MaSzyna/scenery/sub"));
  std::filesystem::copy_file(eu7("wrapinc_linia053.scn"), tmp.path("MaSzyna/scenery/sub/wrapinc_linia053.scn"));
  // The include names "linia053-misja5.inc" from the scenery folder, in another case.
  std::filesystem::copy_file(test::samples_dir() / "maszyna/text/linia053-misja5.scm", tmp.path("MaSzyna/scenery/Linia053-Misja5.INC"));
  const std::string out = tmp.path("root.eu7");
  auto r = run({"convert", tmp.path("MaSzyna/scenery/sub/wrapinc_linia053.scn"), out, "--version", "9", "--lossy", "--progress"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("wrapinc_linia053.v9-pack6.eu7")));
  EXPECT_NE(r.err.find("] 100%"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warning: section (250, 249): texture 'bud/#ZabrzegStacja.tga'"), std::string::npos) << r.err;
  // No bar unless asked for (standard error is not a terminal here).
  r = run({"convert", tmp.path("MaSzyna/scenery/sub/wrapinc_linia053.scn"), out, "--version", "9"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find('%'), std::string::npos) << r.err;
  // Without the .inc around, the root is written with an empty PACK run and the include listed.
  r = run({"convert", eu7("wrapinc_linia053.scn").string(), out, "--version", "9"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("EU7B v9, 7 chunks, 0 PACK models"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: 1 included file not found, so not in PACK: linia053-misja5.inc\n"), std::string::npos) << r.err;
}

TEST(Cli, ConvertWritesTheReferenceBytes) {
  SCENERIA_REQUIRE_SAMPLES();
  Scratch tmp;
  const std::string out = tmp.path("out.eu7");
  auto r = run({"convert", eu7("historic/wrapinc_linia053.v7-flat.eu7").string(), out, "--version", "8",
                "--pack-format", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  // The line describes the file as read back.
  EXPECT_EQ(r.out, out + ": EU7B v8, 7 chunks, 77 PACK models, 7780 bytes\n");
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("historic/wrapinc_linia053.v8-pack5.eu7")));

  r = run({"convert", eu7("TD.v6.eu7").string(), out, "--version", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("historic/TD.v7.eu7")));

  // Explicit flags naming the source's own version and format: the same file.
  r = run({"convert", eu7("wrapinc_linia053.v9-pack6.eu7").string(), out, "--version", "9", "--pack-format", "6"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("wrapinc_linia053.v9-pack6.eu7")));

  // Through JSON and back.
  r = run({"convert", eu7("historic/wrapinc_linia053.v7-pack3.eu7").string(), tmp.path("m.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  r = run({"convert", tmp.path("m.json"), out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("historic/wrapinc_linia053.v7-pack3.eu7")));
}

TEST(Cli, LossyAndPackFormatOptions) {
  SCENERIA_REQUIRE_SAMPLES();
  Scratch tmp;
  const std::string out = tmp.path("out.eu7");
  const std::string flat = eu7("historic/wrapinc_linia053.v7-flat.eu7").string();
  // Format 6 cannot hold two solo skins: refused, and no file is written...
  auto r = run({"convert", flat, out, "--version", "9", "--pack-format", "6"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("texture 'bud/#ZabrzegStacja.tga' of a solo model (UTEX filters it) cannot be stored in "
                       "format 6"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // ...unless --lossy: each loss is a warning and the bytes are the reference writer's.
  r = run({"convert", flat, out, "--version", "9", "--pack-format", "6", "--lossy"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err,
            "warning: section (250, 249): texture 'bud/#ZabrzegStacja.tga' of a solo model (UTEX filters it) dropped\n"
            "warning: section (267, 250): texture 'pm/#red.tga' of a solo model (UTEX filters it) dropped\n");
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("wrapinc_linia053.v9-pack6.eu7")));

  // --pack-format alone keeps the version; a format the version cannot hold, or no format, is an error.
  r = run({"convert", flat, out, "--pack-format", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), test::read_file(eu7("historic/wrapinc_linia053.v7-pack4.eu7")));
  r = run({"convert", flat, out, "--pack-format", "5"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("section format 5 needs prototypes (PROT), which exist from version 8"), std::string::npos)
      << r.err;
  r = run({"convert", flat, out, "--pack-format", "7"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("pack-format must be flat, 1, 2, 3, 4, 5 or 6, not '7'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

// `bake` writes the twins of a scenery and everything it includes, byte for byte as the reference
// baker does, finding includes without case under the `scenery` folder; fresh twins stay.
TEST(Cli, BakeWritesTheReferenceTwinsOfAScenery) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto text = test::samples_dir() / "maszyna/text";
  const auto twins = test::samples_dir() / "maszyna/twin";
  const auto root = std::filesystem::path(::testing::TempDir()) / "sceneria_cli_bake" / "Scenery";
  std::filesystem::remove_all(root.parent_path());
  std::filesystem::create_directories(root / "sub");
  std::filesystem::copy_file(text / "TD.scn", root / "TD.scn");
  std::filesystem::copy_file(text / "trees.scm", root / "sub" / "Trees.SCM");
  std::filesystem::copy_file(text / "tree.inc", root / "tree.inc");
  {
    std::ofstream top(root / "top.scn");
    top << "include sub\\trees.scm end\ninclude tree.inc t 1 2 3 4 5 6 end\ninclude TD.scn end\ninclude nothere.inc end\n";
  }
  auto r = run({"bake", (root / "top.scn").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("4 written, 0 fresh"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("include not found: nothere.inc"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(root / "TD.scnb"), test::read_file(twins / "TD.scnb"));
  EXPECT_EQ(test::read_file(root / "tree.incb"), test::read_file(twins / "tree.incb"));
  EXPECT_EQ(test::read_file(root / "sub" / "Trees.SCMb"), test::read_file(twins / "trees.scmb"));
  r = run({"bake", (root / "top.scn").string()});
  EXPECT_NE(r.out.find("0 written, 4 fresh"), std::string::npos) << r.out;
  r = run({"bake", (root / "top.scn").string(), "--force"});
  EXPECT_NE(r.out.find("4 written, 0 fresh"), std::string::npos) << r.out;
  std::filesystem::remove_all(root.parent_path());
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

// A folder of models and sceneries converted at once: every file the target takes, in the same
// place under the output folder, pictures passed by, sidecars beside each output.
TEST(Cli, ConvertRecursiveWritesEveryFileOfAFolder) {
  SCENERIA_REQUIRE_SAMPLES();
  namespace fs = std::filesystem;
  const fs::path in = fs::temp_directory_path() / "sceneria_cli_recursive_in", out = fs::temp_directory_path() / "sceneria_cli_recursive_out";
  fs::remove_all(in), fs::remove_all(out);
  fs::create_directories(in / "models"), fs::create_directories(in / "eu7");
  const fs::path models = test::samples_dir() / "maszyna/models";
  fs::copy_file(models / "oslony_syren.e3d", in / "models/oslony_syren.e3d");
  fs::copy_file(models / "oslony_syren.t3d", in / "models/oslony_syren.t3d");
  fs::copy_file(models / "kratka.dds", in / "models/kratka.dds");  // a picture: passed by
  fs::copy_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7", in / "eu7/TD.v6.eu7");
  auto r = run({"convert", "--recursive", in.string(), out.string(), "--to", "gltf"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 converted, 0 failed"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out / "eu7/TD.v6.gltf"));
  EXPECT_TRUE(fs::exists(out / "eu7/TD.v6.bin"));
  // Two models of one name in one folder keep their extensions apart instead of overwriting.
  EXPECT_TRUE(fs::exists(out / "models/oslony_syren.e3d.gltf"));
  EXPECT_TRUE(fs::exists(out / "models/oslony_syren.t3d.gltf"));
  EXPECT_TRUE(fs::exists(out / "models/oslony_syren.t3d.bin"));
  EXPECT_FALSE(fs::exists(out / "models/oslony_syren.gltf"));
  EXPECT_FALSE(fs::exists(out / "models/kratka.gltf"));
  const auto j = nlohmann::json::parse(std::ifstream(out / "eu7/TD.v6.gltf"));
  EXPECT_EQ(j["asset"]["version"], "2.0");
  EXPECT_EQ(j["buffers"][0]["uri"], "TD.v6.bin");
  EXPECT_EQ(j["buffers"][0]["byteLength"].get<std::uintmax_t>(), fs::file_size(out / "eu7/TD.v6.bin"));

  auto missing = run({"convert", "--recursive", in.string(), out.string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--recursive needs --to"), std::string::npos);
  fs::remove_all(in), fs::remove_all(out);
}

TEST(Cli, ConvertToOverridesTheExtensionAndObjGetsItsMtl) {
  SCENERIA_REQUIRE_SAMPLES();
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "sceneria_cli_to";
  fs::remove_all(dir), fs::create_directories(dir);
  auto r = run({"convert", (test::samples_dir() / "maszyna/models/oslony_syren.e3d").string(), (dir / "model.data").string(), "--to", "glb"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream glb(dir / "model.data", std::ios::binary);
  char magic[4] = {};
  glb.read(magic, 4);
  EXPECT_EQ(std::string(magic, 4), "glTF");
  auto o = run({"convert", (test::samples_dir() / "maszyna/models/oslony_syren.e3d").string(), (dir / "model.obj").string()});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(fs::exists(dir / "model.mtl"));
  std::ifstream obj(dir / "model.obj");
  std::string first, second;
  std::getline(obj, first), std::getline(obj, second);
  EXPECT_EQ(first.rfind("# sceneria export of E3D", 0), 0u) << first;
  auto bad = run({"convert", (test::samples_dir() / "maszyna/models/oslony_syren.e3d").string(), (dir / "x.glb").string(), "--param", "lines=maybe"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("option lines: 'maybe' is not lines, ribbons or none"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sceneria
