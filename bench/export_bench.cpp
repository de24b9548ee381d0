// Scene export throughput and memory: a module (bench/export-run.mjs generates it with the CLI)
// written through the registry's writer as the CLI, the page and the API write it (opened for a
// conversion, the document's scene in pieces, the output streamed to a sink that counts it), one
// format per process so each has its own peak: GLB with EXT_mesh_gpu_instancing, GLB with a node
// per model, or OBJ (instances baked).
//   sceneria_export_bench FILE --mode glb|plain|obj [--extras] [--repeat R]
// Prints one JSON line (bench/export-run.mjs runs it natively and as wasm side by side):
//   {"mode", "module_bytes", "ms", "bytes", "peak_bytes"}
// The time is the best of R writes (the module opened once, before); the peak is the process's
// (native: maximum resident set, the file's mapped pages included; wasm: the allocator's highest
// footprint, the file read into it included).
#include <sys/resource.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_clock.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"

using namespace sceneria;

namespace {

std::uint64_t peak_bytes() {
#ifdef __EMSCRIPTEN__
  return static_cast<std::uint64_t>(mallinfo().usmblks);
#else
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
#endif
}

// Counts the output and keeps none of it; takes a .glb's header rewrite as a file does.
class CountingFile final : public ByteSink {
 public:
  Error put(std::span<const std::uint8_t> bytes) override {
    written_ += bytes.size();
    return {};
  }
  using ByteSink::put;
  bool can_patch() const override { return true; }
  Error patch(std::uint64_t, std::span<const std::uint8_t>) override { return {}; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: sceneria_export_bench FILE --mode glb|plain|obj [--extras] [--repeat R]\n"), 2;
  int repeat = 1;
  std::string mode = "glb";
  bool extras = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--extras")) extras = true;
    if (i + 1 >= argc) continue;
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--mode")) mode = argv[i + 1];
  }
  auto source = FileSource::open(argv[1]);
  if (!source) return std::fprintf(stderr, "open: %s\n", source.error().describe().c_str()), 1;
  const std::uint64_t module_bytes = (*source)->size();
  // Opened as for a conversion (PACK kept encoded), as the CLI and the page's Save as open it.
  auto document = open_document(**source, {.deferred = true});
  if (!document) return std::fprintf(stderr, "open: %s\n", document.error().describe().c_str()), 1;
  const Writer* writer = find_format("eu7b")->writer_for(mode == "obj" ? "obj" : "glb");
  WriteOptions options;
  options.name = "bench." + std::string(mode == "obj" ? "obj" : "glb");
  options.params["extras"] = extras ? "true" : "false";
  if (mode == "plain") options.params["instancing"] = "false";
  double best_ms = 1e300;
  std::uint64_t written = 0;
  for (int r = 0; r < repeat; ++r) {
    CountingFile sink;
    const auto start = bench::Clock::now();
    if (Error e = writer->stream(**document, options, sink)) return std::fprintf(stderr, "export: %s\n", e.describe().c_str()), 1;
    best_ms = std::min(best_ms, bench::ms_since(start));
    written = sink.written();
  }
  std::printf("{\"mode\":\"%s\",\"module_bytes\":%llu,\"ms\":%.1f,\"bytes\":%llu,\"peak_bytes\":%llu}\n",
              mode.c_str(), static_cast<unsigned long long>(module_bytes), best_ms,
              static_cast<unsigned long long>(written), static_cast<unsigned long long>(peak_bytes()));
  return 0;
}
