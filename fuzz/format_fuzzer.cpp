// libFuzzer target for the registered formats of one folder under src/formats/, through the
// registry only (SCENERIA_FUZZ_FORMAT names the folder; its formats are the ids equal to it or
// starting with it and a dash: `scenery` → scenery-text, scenery-twin). Each input goes to each
// of them. Whatever opens must summarise, page
// through its lists, give its records and build its scene without a crash, a leak or UB, and write
// itself back to the same bytes through the writer for its own extension, and export its scene;
// opened in stages, its
// later pieces must merge into its first scene.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "formats/registry.hpp"

namespace {

// An abort with the broken promise in the log: a CI run keeps only the log's tail.
[[noreturn]] void broken(const std::string& what, std::string_view format) {
  std::fprintf(stderr, "format %.*s: %s\n", static_cast<int>(format.size()), format.data(), what.c_str());
  std::abort();
}

std::vector<const sceneria::Format*> folder_formats() {
  std::vector<const sceneria::Format*> out;
  const std::string folder = SCENERIA_FUZZ_FORMAT;
  for (const sceneria::Format& f : sceneria::formats())
    if (f.id == folder || f.id.rfind(folder + "-", 0) == 0) out.push_back(&f);
  if (out.empty()) broken("the folder has no registry entry", folder);
  return out;
}

void one(const sceneria::Format& format, const std::uint8_t* data, std::size_t size) {
  using namespace sceneria;
  const std::string name = "fuzz" + std::string(format.extensions.empty() ? "" : format.extensions.front());
  MemorySource source(std::span<const std::uint8_t>(data, size), name);
  auto document = format.open(source, {});
  if (!document) {
    if (document.error().message.empty()) broken("a failure without a message", format.id);
    return;
  }
  const Document& d = **document;
  (void)describe(d, 8).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)d.headline();
  for (const ListInfo& list : d.lists()) {
    (void)d.rows(list.id, 0, 50);
    if (list.count > 0) (void)d.record(list.id, list.count - 1);
    if (!d.record(list.id, list.count).is_null()) broken("a record past the end of a list", format.id);
  }
  (void)d.validate();
  if (auto scene = d.scene()) {
    for (const auto& o : scene->objects)
      if (o.kind >= scene->kinds.size()) broken("an object of an unknown kind", format.id);
    // Whatever it draws exports: glTF (instanced, and plain with ribbons) and OBJ, never with a
    // number JSON cannot hold.
    // (Record fields stay out: records are fuzzed above, and each object's would slow every run.)
    exports::Options options;
    exports::Target target;
    auto gltf = exports::gltf(*scene, options, target, false);
    if (!gltf) broken("glTF export failed: " + gltf.error().message, format.id);
    if (!nlohmann::json::accept(gltf->begin(), gltf->end())) broken("glTF export is not JSON", format.id);
    // The PNG encoder ran once above; the other layouts go without (encoding dominates a run).
    options.instancing = false, options.lines = exports::Lines::ribbons, options.textures = false;
    if (!exports::gltf(*scene, options, target, true)) broken("GLB export failed", format.id);
    if (!exports::obj(*scene, options, target)) broken("OBJ export failed", format.id);
  }
  if (const Writer* w = format.writer_for(name)) {
    auto bytes = w->write(d, {});
    if (!bytes) broken("writing back failed: " + bytes.error().message, format.id);
    if (*bytes != std::vector<std::uint8_t>(data, data + size)) broken("written back to different bytes", format.id);
  }
  // Opened in stages (a scenery: infrastructure first), every piece merges into the first scene.
  MemorySource again(std::span<const std::uint8_t>(data, size), name);
  auto staged = format.open(again, {.staged = true});
  if (!staged) broken("opening in stages failed; whole it opened", format.id);
  auto scene = (*staged)->scene();
  if (!scene) return;
  while (auto delta = (*staged)->next_stage({0, 0, 0}))
    if (!scene::merge_delta(*scene, std::move(*delta))) broken("a stage did not merge", format.id);
  if ((*staged)->staging()) broken("still staging after its last stage", format.id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<const sceneria::Format*> formats = folder_formats();
  for (const sceneria::Format* f : formats) one(*f, data, size);
  return 0;
}
