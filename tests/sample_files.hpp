#pragma once
// Access to ../shared/samples, read in place (never copied into the repository).
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sceneria::test {

// SCENERIA_SAMPLES overrides the directory configured at build time.
std::filesystem::path samples_dir();
bool samples_available();
std::vector<std::uint8_t> read_file(const std::filesystem::path& path);
// Every *.eu7 below samples/maszyna, sorted.
std::vector<std::filesystem::path> eu7_samples();

struct ReferenceChunk {
  std::string id;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// What a `.reference-decode.txt` says about a module: `key=value` / `key: value` facts (first
// occurrence wins) and the chunk table, when the decode lists one.
struct ReferenceDecode {
  std::map<std::string, std::string> facts;
  std::vector<ReferenceChunk> chunks;
  std::uint64_t number(const std::string& key) const;
  bool has(const std::string& key) const { return facts.count(key) != 0; }
};
ReferenceDecode read_reference_decode(const std::filesystem::path& eu7_path);

}  // namespace sceneria::test

namespace sceneria::test {
// CI=true (what CI services set) and nothing else: CI=false or CI=0 is a local run.
inline bool running_under_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}
}  // namespace sceneria::test

// Skips when the samples are absent (a clone without ../shared); under CI=true it fails instead.
#define SCENERIA_REQUIRE_SAMPLES()                                                                     \
  do {                                                                                                 \
    if (!::sceneria::test::samples_available()) {                                                      \
      if (::sceneria::test::running_under_ci())                                                        \
        FAIL() << "samples missing at " << ::sceneria::test::samples_dir();                            \
      GTEST_SKIP() << "samples not found at " << ::sceneria::test::samples_dir();                      \
    }                                                                                                  \
  } while (0)
