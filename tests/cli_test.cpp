// The native CLI's commands, run in-process.
#include <gtest/gtest.h>

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
  EXPECT_NE(r.out.find("strings  305"), std::string::npos);
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

}  // namespace
}  // namespace sceneria
