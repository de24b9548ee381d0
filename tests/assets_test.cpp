// The asset resolver: case-insensitive lookups, nothing outside the root, missing files collected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/assets.hpp"

namespace sceneria {
namespace {

namespace fs = std::filesystem;

TEST(Assets, PathsNormaliseAndNeverClimbAboveTheRoot) {
  EXPECT_EQ(normalize_asset_path("Models\\Drzewa\\Sosna.T3D"), "models/drzewa/sosna.t3d");
  EXPECT_EQ(normalize_asset_path("./a//b/../c.e3d"), "a/c.e3d");
  EXPECT_EQ(normalize_asset_path("a/.."), std::nullopt);  // nothing left
  EXPECT_EQ(normalize_asset_path("../x.t3d"), std::nullopt);
  EXPECT_EQ(normalize_asset_path("a/../../x.t3d"), std::nullopt);
  EXPECT_EQ(normalize_asset_path("/etc/passwd"), std::nullopt);
  EXPECT_EQ(normalize_asset_path("\\\\server\\share\\x"), std::nullopt);
  EXPECT_EQ(normalize_asset_path("C:\\game\\models\\x.t3d"), std::nullopt);
  EXPECT_EQ(normalize_asset_path(std::string_view("a\0b", 3)), std::nullopt);
}

struct TempTree {
  fs::path root;
  TempTree() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root = fs::temp_directory_path() / (std::string("sceneria-") + test->name());
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~TempTree() { fs::remove_all(root); }
  void file(const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel, std::ios::binary) << text;
  }
};

TEST(Assets, ADirectoryMatchesNamesWithoutCaseAndStaysInsideItsRoot) {
  TempTree tree;
  tree.file("game/Models/Drzewa/Sosna.T3D", "pine");
  tree.file("secret.txt", "outside the root");
  DirectoryAssets assets((tree.root / "game").string());
  auto pine = assets.open("models\\drzewa\\sosna.t3d");
  ASSERT_TRUE(pine);
  std::vector<std::uint8_t> bytes(pine->size());
  ASSERT_FALSE(pine->read(0, bytes));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "pine");
  EXPECT_FALSE(assets.open("../secret.txt"));
  EXPECT_FALSE(assets.open((tree.root / "secret.txt").string()));
  EXPECT_FALSE(assets.open("models/drzewa"));  // a directory is not a file
  EXPECT_TRUE(assets.exists_any({"models/dab.e3d", "models/drzewa/sosna.t3d"}));
  EXPECT_FALSE(assets.exists_any({"models/dab.e3d", "models/dab.t3d"}));
  EXPECT_FALSE(assets.exists_any({"models/dab.e3d"}));  // asked twice, listed once
  EXPECT_EQ(assets.missing(), (std::vector<std::string>{"../secret.txt", (tree.root / "secret.txt").string(),
                                                        "models/drzewa", "models/dab.e3d"}));
}

TEST(Assets, DroppedFilesMatchWhicheverFolderWasDropped) {
  std::vector<std::string> opened;
  const std::vector<std::string> paths = {"MaSzyna/scenery/td.eu7", "MaSzyna/Models/Budynki/Dom.E3D", "textures/x.dds"};
  ListedAssets assets(paths, [&](std::size_t i) -> std::unique_ptr<ByteSource> {
    opened.push_back(paths[i]);
    return std::make_unique<MemorySource>(std::vector<std::uint8_t>{1, 2, 3}, paths[i]);
  });
  auto dom = assets.open("models/budynki/dom.e3d");  // the game folder itself was dropped
  ASSERT_TRUE(dom);
  EXPECT_EQ(dom->size(), 3u);
  EXPECT_TRUE(assets.exists_any({"TEXTURES\\X.DDS"}));
  EXPECT_FALSE(assets.open("budynki/dom.t3d"));
  EXPECT_FALSE(assets.open("../MaSzyna/scenery/td.eu7"));
  EXPECT_EQ(opened, (std::vector<std::string>{"MaSzyna/Models/Budynki/Dom.E3D"}));
  EXPECT_EQ(assets.missing(), (std::vector<std::string>{"budynki/dom.t3d", "../MaSzyna/scenery/td.eu7"}));
}

}  // namespace
}  // namespace sceneria
