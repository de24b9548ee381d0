// EU7B JSON both ways, the document tree (module_to_json / module_from_json) against the streamed
// text (write_module_json / read_module_json), one mode per process so each has its own peak
// memory. bench/json-run.mjs runs every mode natively and as wasm, alternating.
//   sceneria_json_bench MODE FILE     MODE: tree-write|stream-write (FILE .eu7), tree-read|stream-read (FILE .json)
// Prints one JSON line: {"mode", "ms", "json_bytes", "module_bytes", "peak_bytes"}; the time is
// the whole job (reading its input too), the peak is the process's (native: maximum resident
// set, the input file's mapped pages included; wasm: the allocator's highest footprint).
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <malloc.h>

#include "bench_clock.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

using namespace sceneria;

namespace {

std::uint64_t peak_bytes() {
#ifdef __EMSCRIPTEN__
  return static_cast<std::uint64_t>(mallinfo().usmblks);  // dlmalloc's highest footprint
#else
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
#endif
}

int fail(const char* what, const Error& e) {
  std::fprintf(stderr, "%s: %s\n", what, e.describe().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4)
    return std::fprintf(stderr, "usage: sceneria_json_bench tree-write|stream-write|tree-read|stream-read FILE [THREADS]\n"), 2;
  const unsigned threads = argc == 4 ? static_cast<unsigned>(std::atoi(argv[3])) : 1;
  const std::string mode = argv[1];
  auto source = FileSource::open(argv[2]);
  if (!source) return fail("open", source.error());
  std::uint64_t json_bytes = 0, module_bytes = 0;
  const auto start = bench::Clock::now();
  if (mode == "tree-write" || mode == "stream-write") {
    const bool tree = mode == "tree-write";
    auto m = eu7b::read_module(**source, {.load_pack = true, .decode_pack = tree});
    if (!m) return fail("read", m.error());
    module_bytes = (*source)->size();
    if (tree) {
      auto j = eu7b::module_to_json(*m);
      if (!j) return fail("json", j.error());
      json_bytes = j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
    } else {
      CountingByteSink sink;
      if (Error e = eu7b::write_module_json(*m, sink, -1, threads)) return fail("json", e);
      json_bytes = sink.written();
    }
  } else if (mode == "tree-read" || mode == "stream-read") {
    json_bytes = (*source)->size();
    Result<eu7b::Module> m = Error{};
    if (mode == "tree-read") {
      auto bytes = (*source)->read_vector(0, json_bytes);
      if (!bytes) return fail("read", bytes.error());
      auto j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
      if (j.is_discarded()) return std::fprintf(stderr, "not JSON\n"), 1;
      bytes->clear();
      bytes->shrink_to_fit();
      m = eu7b::module_from_json(j);
    } else {
      m = eu7b::read_module_json(**source, eu7b::kJsonTreeLimit, threads);
    }
    if (!m) return fail("json", m.error());
    CountingByteSink sink;  // written as the CLI writes a file: chunk by chunk
    if (Error e = eu7b::write_module(*m, sink)) return fail("write", e);
    module_bytes = sink.written();
  } else {
    return std::fprintf(stderr, "unknown mode %s\n", mode.c_str()), 2;
  }
  const double ms = bench::ms_since(start);
  std::printf("{\"mode\": \"%s\", \"ms\": %.1f, \"json_bytes\": %llu, \"module_bytes\": %llu, \"peak_bytes\": %llu}\n", mode.c_str(), ms,
              static_cast<unsigned long long>(json_bytes), static_cast<unsigned long long>(module_bytes),
              static_cast<unsigned long long>(peak_bytes()));
  return 0;
}
