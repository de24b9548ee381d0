// libFuzzer target for the registered formats of one folder under src/formats/, through the
// registry only (SCENERIA_FUZZ_FORMAT names the folder; its formats are the ids equal to it or
// starting with it and a dash: `scenery` → scenery-text, scenery-twin). Each input goes to each
// of them. Whatever opens must summarise, page
// through its lists, give its records and build its scene without a crash, a leak or UB, and write
// itself back to the same bytes through the writer for its own extension, and export its scene;
// opened in stages, its
// later pieces must merge into its first scene. A format with a JSON form (docs/json-forms.md)
// must dump what it opened to JSON that reads back to the same dump; the input is also read as
// that JSON form (behind the form's first member, so the fuzzer starts inside the document).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "export/export.hpp"
#include "registry/registry.hpp"

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

// The document's JSON form read back dumps the same bytes; the reopened document is returned.
std::unique_ptr<sceneria::Document> json_round_trip(const sceneria::Format& format, const sceneria::Document& d) {
  using namespace sceneria;
  const Writer* json = format.writer_for("json");
  if (!json) return nullptr;
  auto dumped = json->write(d, {});
  if (!dumped) broken("the JSON dump failed: " + dumped.error().message, format.id);
  MemorySource source(*dumped, "fuzz.json");
  auto back = open_document(source);
  if (!back) broken("its JSON dump does not read back: " + back.error().message, format.id);
  const Format* back_format = find_format((*back)->format_id());
  auto again = back_format->writer_for("json")->write(**back, {});
  if (!again || *again != *dumped) broken("its JSON dump reads back to another dump", format.id);
  return std::move(back).value();
}

// The input as the body of the format's JSON form.
void json_form(const sceneria::Format& format, const std::uint8_t* data, std::size_t size) {
  using namespace sceneria;
  if (!format.writer_for("json")) return;
  std::string text = R"({"format":")" + std::string(format.id) + R"(","schema":1,)";
  text.append(reinterpret_cast<const char*>(data), size);
  MemorySource source(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), "fuzz.json");
  auto document = format.open(source, {});
  if (!document) {
    if (document.error().message.empty()) broken("a JSON failure without a message", format.id);
    return;
  }
  (void)json_round_trip(format, **document);
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
  if (auto back = json_round_trip(format, d); back && back->format_id() == format.id)
    if (const Writer* w = format.writer_for(name)) {
      auto bytes = w->write(*back, {});
      if (!bytes || *bytes != std::vector<std::uint8_t>(data, data + size)) broken("its JSON form writes back to different bytes", format.id);
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
  for (const sceneria::Format* f : formats) {
    one(*f, data, size);
    json_form(*f, data, size);
  }
  return 0;
}
