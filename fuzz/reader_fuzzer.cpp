// libFuzzer target for the readers alone of one folder under src/formats/ (SCENERIA_FUZZ_FORMAT
// names it, as for format_fuzzer.cpp): each input is opened by each of the folder's formats and
// what opens is validated and summarised. Nothing is drawn, written or exported, so a run costs
// what reading costs and the target reaches the volume (thousands of runs a second, inputs capped
// by scripts/fuzz) that the whole-pipeline target cannot.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "registry/registry.hpp"

namespace {

std::vector<const sceneria::Format*> folder_formats() {
  std::vector<const sceneria::Format*> out;
  const std::string folder = SCENERIA_FUZZ_FORMAT;
  for (const sceneria::Format& f : sceneria::formats())
    if (f.open && (f.id == folder || f.id.rfind(folder + "-", 0) == 0)) out.push_back(&f);
  if (out.empty()) {
    std::fprintf(stderr, "format %s: the folder has no reader in the registry\n", folder.c_str());
    std::abort();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sceneria;
  static const std::vector<const Format*> formats = folder_formats();
  for (const Format* f : formats) {
    const std::string name = "fuzz" + std::string(f->extensions.empty() ? "" : f->extensions.front());
    MemorySource source(std::span<const std::uint8_t>(data, size), name);
    auto document = f->open(source, {});
    if (!document) {
      // A refusal says why (the typed error every reader owes its caller).
      if (document.error().message.empty()) {
        std::fprintf(stderr, "format %.*s: a failure without a message\n", static_cast<int>(f->id.size()), f->id.data());
        std::abort();
      }
      continue;
    }
    (void)(*document)->validate();
    (void)(*document)->headline();
  }
  return 0;
}
