// EU7B decode and read -> write throughput on a generated module, the same code natively and as
// WebAssembly. Prints one JSON line; bench/run runs both side by side and prints ratios.
//   sceneria_bench [--models N] [--seed K] [--repeat R]
//   sceneria_bench --file PATH [--repeat R]   (a module written elsewhere, e.g. by the reference
//     writer: each decode reads the file first, as a reader given a path does)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_source.hpp"
#include "bench_clock.hpp"

using namespace sceneria;
using namespace sceneria::bench;

namespace {

// Full decode: the module, every PACK section, every prototype instance expanded.
std::size_t decode_all(ByteSource& src, eu7b::Module* keep) {
  auto m = eu7b::read_module(src, {.load_pack = true, .decode_pack = true});
  if (!m) {
    std::fprintf(stderr, "decode failed: %s\n", m.error().describe().c_str());
    std::exit(1);
  }
  std::size_t models = 0;
  for (const auto& s : m->pack()->sections) models += eu7b::expand_section(s, m->prototypes()).size();
  if (keep) *keep = std::move(m).value();
  return models;
}

// The file given, or the reason it cannot be read and the end of the run.
std::unique_ptr<FileSource> open_or_exit(const char* file) {
  auto src = FileSource::open(file);
  if (!src) {
    std::fprintf(stderr, "%s\n", src.error().describe().c_str());
    std::exit(1);
  }
  return std::move(src).value();
}

// What a reader of a file given its path does with a section and lets it go, as the engine's
// loader does: the module's header pass over the mapped file, then the sections one at a time,
// each decoded with its prototypes expanded and dropped before the next.
std::size_t sections_one_at_a_time(const char* file) {
  auto src = open_or_exit(file);
  auto m = eu7b::read_module(*src, {.map_pack = true});
  if (!m) std::exit(1);
  std::size_t models = 0;
  std::vector<std::uint8_t> prefix;
  std::vector<eu7b::Problem> problems;
  const Error e = eu7b::for_each_section(*m, prefix, problems, [&](eu7b::PackSection&& s) {
    models += eu7b::expand_section(s, m->prototypes()).size();
    return Error{};
  });
  if (e) std::exit(1);
  return models;
}

// The generated module from memory, or the file through the reader's own file source.
std::size_t decode_all(const char* file, const std::vector<std::uint8_t>& bytes, eu7b::Module* keep) {
  if (!file) {
    MemorySource src(bytes, "bench.eu7");
    return decode_all(src, keep);
  }
  return decode_all(*open_or_exit(file), keep);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t models = 1'000'000, seed = 1;
  int repeat = 3;
  const char* file = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--file")) file = argv[i + 1];
    else if (!std::strcmp(argv[i], "--models")) models = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  auto t = Clock::now();
  std::vector<std::uint8_t> bytes;
  if (file) {
    auto src = open_or_exit(file);
    bytes.resize(static_cast<std::size_t>(src->size()));
    if (src->read(0, bytes)) return 1;
  } else {
    auto module = eu7b::generate_module({.models = models, .seed = seed});
    if (!module) return 1;
    auto written = eu7b::write_module(*module);
    if (!written) return 1;
    bytes = std::move(written).value();
  }
  const double generate_ms = file ? 0.0 : ms_since(t);

  // Live heap held by one decoded module (everything but the input bytes).
  const std::size_t before = heap_in_use();
  eu7b::Module kept;
  const std::size_t decoded = decode_all(file, bytes, &kept);
  const std::size_t held = heap_in_use() - before;
  kept = eu7b::Module{};
  if (file) models = decoded;
  if (decoded != models) return 1;

  double decode_best = 1e300, roundtrip_best = 1e300, sections_best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    if (file) {
      t = Clock::now();
      if (sections_one_at_a_time(file) != models) return 1;
      sections_best = std::min(sections_best, ms_since(t));
    }

    t = Clock::now();
    decode_all(file, bytes, nullptr);
    decode_best = std::min(decode_best, ms_since(t));

    t = Clock::now();
    MemorySource src(bytes, "bench.eu7");
    auto m = eu7b::read_module(src, {.load_pack = true, .decode_pack = true});
    auto out = eu7b::write_module(*m);
    roundtrip_best = std::min(roundtrip_best, ms_since(t));
    if (!out || *out != bytes) {  // the benchmark also proves the round trip
      std::fprintf(stderr, "the module written back is not the one read\n");
      return 1;
    }
  }
  const double mb = static_cast<double>(bytes.size()) / 1e6;
#ifdef __EMSCRIPTEN__
  const char* platform = "wasm";
#else
  const char* platform = "native";
#endif
  std::printf("{\"platform\":\"%s\",\"models\":%llu,\"bytes\":%zu,\"generate_ms\":%.1f,\"decode_ms\":%.1f,"
              "\"decode_mb_s\":%.1f,\"decode_models_s\":%.0f,\"roundtrip_ms\":%.1f,\"roundtrip_mb_s\":%.1f,"
              "\"bytes_per_model\":%.1f",
              platform, static_cast<unsigned long long>(models), bytes.size(), generate_ms, decode_best,
              mb / (decode_best / 1000), static_cast<double>(models) / (decode_best / 1000), roundtrip_best,
              mb / (roundtrip_best / 1000), static_cast<double>(held) / static_cast<double>(models));
  if (file) std::printf(",\"sections_one_at_a_time_ms\":%.1f", sections_best);
  std::printf("}\n");
  return 0;
}
