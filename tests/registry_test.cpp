#include <gtest/gtest.h>

#include <map>
#include <random>

#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria {
namespace {

// What `sceneria info --json` prints: the registry's description of the opened document.
Result<nlohmann::ordered_json> inspect(ByteSource& source, std::size_t string_sample = 0) {
  auto document = open_document(source);
  if (!document) return document.error();
  return describe(**document, string_sample);
}

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

TEST(Inspect, RandomBytesAreAnUnknownFormat) {
  auto bytes = random_bytes(4096, 7);
  MemorySource src(bytes, "noise.bin");
  auto r = inspect(src);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::unknown_format);
  EXPECT_NE(r.error().message.find("noise.bin: not a recognised file (4096 bytes"), std::string::npos);
  // Each format tried is named with its extensions once, whether or not its name ends in them.
  const std::string& m = r.error().message;
  for (const Format& f : formats()) {
    for (std::string_view ext : f.extensions) {
      std::size_t seen = 0;
      for (std::size_t at = m.find(std::string(ext) + ")"); at != std::string::npos; at = m.find(std::string(ext) + ")", at + 1)) ++seen;
      for (std::size_t at = m.find(std::string(ext) + " "); at != std::string::npos; at = m.find(std::string(ext) + " ", at + 1)) ++seen;
      EXPECT_EQ(seen, 1u) << ext << " in: " << m;
    }
  }
}

TEST(Inspect, RandomBytesNamedEu7GetTheEu7bVerdict) {
  auto bytes = random_bytes(100, 8);
  MemorySource src(bytes, "scenery.EU7");
  auto r = inspect(src);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::bad_magic);
}

TEST(Inspect, SummaryOfTdV6) {
  SCENERIA_REQUIRE_SAMPLES();
  auto bytes = test::read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7");
  MemorySource src(bytes, "TD.v6.eu7");
  auto r = inspect(src, 3);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const auto& j = *r;
  EXPECT_EQ(j["format"], "eu7b");
  EXPECT_EQ(j["version"], 6);
  EXPECT_EQ(j["size"], 42520);
  EXPECT_EQ(j["strings"], 305);
  ASSERT_EQ(j["chunks"].size(), 9u);
  EXPECT_EQ(j["chunks"][0]["id"], "STRS");
  EXPECT_EQ(j["chunks"][0]["offset"], 8);
  EXPECT_EQ(j["chunks"][0]["size"], 3404);
  EXPECT_EQ(j["stringSample"], nlohmann::ordered_json::parse(R"(["ZwrP34R300.inc","ZwrP34R300.eu7","zwr02"])"));
  // Keys in the documented order.
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"format", "version", "size", "chunks", "structureName", "structure", "strings",
                                            "counts", "sections", "stringSample", "lists", "choices", "missingFiles", "warnings",
                                            "capabilities"}));
  EXPECT_EQ(j["choices"], nlohmann::ordered_json::array());  // a module offers no open choice
  EXPECT_EQ(j["capabilities"]["streams"], true);
  ASSERT_EQ(j["capabilities"]["writes"].size(), 5u);  // its own two, then the scene exports
  EXPECT_EQ(j["capabilities"]["writes"][0]["id"], "eu7b");
  EXPECT_EQ(j["capabilities"]["writes"][0]["extension"], ".eu7");
  EXPECT_EQ(j["capabilities"]["writes"][0]["params"], find_format("eu7b")->writers[0].params);  // what the page offers
  EXPECT_EQ(j["capabilities"]["writes"][1]["id"], "json");
  EXPECT_EQ(j["capabilities"]["writes"][1]["extension"], ".json");
  EXPECT_EQ(j["capabilities"]["writes"][2]["id"], "glb");
  EXPECT_EQ(j["capabilities"]["writes"][3]["id"], "gltf");
  EXPECT_EQ(j["capabilities"]["writes"][4]["id"], "obj");
  // The structure panel's table is the chunk table.
  ASSERT_EQ(j["structure"].size(), j["chunks"].size());
  EXPECT_EQ(j["structure"][2], nlohmann::ordered_json::parse(R"({"name":"TRAK","offset":9450,"size":11043,"count":87})"));
  EXPECT_EQ(j["chunks"][0]["records"], 305);  // STRS
  EXPECT_EQ(j["chunks"][2]["records"], 87);   // TRAK
  EXPECT_EQ(j["counts"]["tracks"], 87);
  EXPECT_EQ(j["counts"]["traction"], 115);
  EXPECT_EQ(j["counts"]["events"], 4);
  EXPECT_TRUE(j["sections"].empty());
}

TEST(Inspect, Cp1250StringsAreShownAsUnicode) {
  SCENERIA_REQUIRE_SAMPLES();
  auto bytes = test::read_file(test::samples_dir() / "maszyna/allnodes/allnodes.v9-root.eu7");
  MemorySource src(bytes, "allnodes.v9-root.eu7");
  auto r = inspect(src, 1000);
  ASSERT_TRUE(r.ok());
  bool found = false;
  for (const auto& s : (*r)["stringSample"])
    if (s.get<std::string>() == "plot/plot_Słup_A.t3d") found = true;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

TEST(Inspect, EnumeratedFieldsCarryTheirNames) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7");
  MemorySource src(bytes, "TD.v6.eu7");
  auto doc = open_document(src);
  ASSERT_TRUE(doc.ok());
  std::map<std::string, int> types;
  for (std::uint64_t i = 0; i < 87; ++i) {
    const auto r = (*doc)->record("tracks", i);
    ASSERT_TRUE(r.contains("$labels")) << i;
    const auto& labels = r["$labels"];
    const std::uint64_t type = r["type"];
    const std::vector<std::string> names = {"unknown", "normal", "switch", "table", "cross", "tributary"};
    ASSERT_LT(type, names.size());
    EXPECT_EQ(labels["type"], names[type]);
    EXPECT_EQ(labels["category"], r["category"] == 1 ? "rail" : r["category"] == 2 ? "road" : "water");
    ++types[labels["type"].get<std::string>()];
  }
  // The text the module was compiled from names each track's type: 85 normal, 2 switches.
  const auto scn = test::read_file(test::samples_dir() / "maszyna/text/TD.scn");
  const std::string text(scn.begin(), scn.end());
  auto count = [&](const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(types["switch"], count("track switch"));
  EXPECT_EQ(types["normal"], count("track normal"));
  EXPECT_EQ(types["switch"] + types["normal"], 87);
}

}  // namespace
}  // namespace sceneria
