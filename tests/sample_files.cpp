#include "sample_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

namespace sceneria::test {

std::filesystem::path samples_dir() {
  if (const char* env = std::getenv("SCENERIA_SAMPLES")) return env;
  return SCENERIA_SAMPLES_DIR;
}

bool samples_available() { return std::filesystem::is_directory(samples_dir() / "maszyna" / "eu7"); }

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::filesystem::path> eu7_samples() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(samples_dir() / "maszyna"))
    if (e.is_regular_file() && e.path().extension() == ".eu7") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t ReferenceDecode::number(const std::string& key) const {
  auto it = facts.find(key);
  return it == facts.end() ? ~0ull : std::stoull(it->second);
}

ReferenceDecode read_reference_decode(const std::filesystem::path& eu7_path) {
  auto path = eu7_path;
  path.replace_extension(".reference-decode.txt");
  std::ifstream in(path);
  ReferenceDecode out;
  static const std::regex kv(R"(([A-Za-z_()]+)=([^\s]+))");
  static const std::regex colon(R"(^\s*([A-Za-z_]+): (\d+))");
  static const std::regex chunk_eq(R"(^\s+([A-Z0-9]{4}) offset=(\d+) size=(\d+))");
  static const std::regex chunk_cols(R"(^\s+([A-Z0-9]{4})\s+(\d+)\s+(\d+)\s+(\d+)\s*$)");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, chunk_eq) || std::regex_search(line, m, chunk_cols)) {
      out.chunks.push_back({m[1], std::stoull(m[2]), std::stoull(m[3])});
      continue;
    }
    if (std::regex_search(line, m, colon)) out.facts.emplace(m[1], m[2]);
    for (auto it = std::sregex_iterator(line.begin(), line.end(), kv); it != std::sregex_iterator(); ++it)
      out.facts.emplace((*it)[1], (*it)[2]);
  }
  return out;
}

}  // namespace sceneria::test
