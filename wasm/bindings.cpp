// Embind surface of the WebAssembly module. Bindings only: every behaviour lives in src/.
// The same module runs in two places: in the parse worker (inspect) and on the page (viewer).
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "export/export.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "registry/examples.hpp"
#include "registry/registry.hpp"
#include "scene/material_board.hpp"
#include "scene/serialize.hpp"
#include "stream/model_loader.hpp"
#ifndef SCENERIA_NO_VIEWER
#include "platform/web/web_viewer.hpp"
#endif

using emscripten::val;

namespace {

std::vector<std::uint8_t> copy_bytes(const val& typed_array) {
  const auto length = typed_array["length"].as<std::size_t>();
  std::vector<std::uint8_t> bytes(length);
  // One bulk copy on the JS side instead of an element-by-element conversion.
  val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<void>("set", typed_array);
  return bytes;
}

// A JS-owned copy (views into wasm memory die when the heap grows or the vector is freed).
val to_uint8_array(const std::vector<std::uint8_t>& bytes) {
  val out = val::global("Uint8Array").new_(bytes.size());
  out.call<void>("set", val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
  return out;
}

// A writer's pieces copied out to JavaScript as they come, so a streaming writer's output (a JSON
// dump several times the module's size) never sits whole in the wasm heap.
class JsPartsSink final : public sceneria::ByteSink {
 public:
  sceneria::Error put(std::span<const std::uint8_t> bytes) override {
    if (bytes.empty()) return {};
    val part = val::global("Uint8Array").new_(bytes.size());
    part.call<void>("set", val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
    parts_.call<void>("push", part);
    written_ += bytes.size();
    return {};
  }
  using ByteSink::put;
  bool can_patch() const override { return true; }
  sceneria::Error patch(std::uint64_t offset, std::span<const std::uint8_t> bytes) override {
    if (offset + bytes.size() > written_) return sceneria::Error{sceneria::Errc::bad_value, offset, "patch past the end of the output"};
    const auto n = parts_["length"].as<std::size_t>();
    std::uint64_t at = 0;
    std::size_t done = 0;
    for (std::size_t i = 0; i < n && done < bytes.size(); ++i) {
      val part = parts_[i];
      const auto length = static_cast<std::uint64_t>(part["length"].as<double>());
      if (offset + done < at + length) {
        const auto within = offset + done - at;
        const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(length - within, bytes.size() - done));
        part.call<void>("set", val(emscripten::typed_memory_view(take, bytes.data() + done)), static_cast<double>(within));
        done += take;
      }
      at += length;
    }
    return {};
  }
  // The pieces as one Uint8Array (one copy, on the JavaScript side).
  val joined() const {
    val out = val::global("Uint8Array").new_(static_cast<double>(written_));
    const auto n = parts_["length"].as<std::size_t>();
    double at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      val part = parts_[i];
      out.call<void>("set", part, at);
      at += part["length"].as<double>();
    }
    return out;
  }

 private:
  val parts_ = val::array();
};

// Whether the page's WebGL context lacks WEBGL_compressed_texture_s3tc (Parser.configure): then
// block-compressed textures are decoded here, in the worker, before a scene is handed over.
bool g_decode_blocks = false;
void set_decode_blocks(bool on) { g_decode_blocks = on; }

val scene_array(sceneria::scene::Scene scene) {
  if (g_decode_blocks) sceneria::scene::decode_block_textures(scene);
  return to_uint8_array(sceneria::scene::serialize(scene));
}

// Strings from files may not be UTF-8 even after display conversion; never throw.
std::string to_text(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::ordered_json error_json(const sceneria::Error& e) {
  nlohmann::ordered_json j{{"code", std::string(sceneria::errc_name(e.code))}, {"offset", e.offset}, {"message", e.message}};
  if (!e.file.empty()) j["file"] = e.file;
  if (e.line) j["line"] = e.line, j["column"] = e.column;
  return j;
}

// The same error as a JS object ({code, offset, message, file?, line?, column?}): what answers
// that are JS objects carry, so every answer's error reads the same on the JS side.
val error_val(const sceneria::Error& e) { return val::global("JSON").call<val>("parse", val(to_text(error_json(e)))); }

// What the page shows of an open document.
nlohmann::ordered_json opened_json(const sceneria::Document& d, std::size_t string_sample) {
  nlohmann::ordered_json out;
  out["ok"] = true;
  out["format"] = d.format_id();
  out["headline"] = d.headline();
  out["summary"] = sceneria::describe(d, string_sample);
  out["lists"] = sceneria::lists_json(d);
  return out;
}

// Files dropped beside the document (a folder, or several files), read on demand in the worker:
// `assets` is {paths: [relative path...], read(index) -> Uint8Array} (api/engine.mjs).
std::unique_ptr<sceneria::AssetResolver> listed_assets(const val& assets) {
  if (assets.isNull() || assets.isUndefined()) return nullptr;
  const auto paths = emscripten::vecFromJSArray<std::string>(assets["paths"]);
  return std::make_unique<sceneria::ListedAssets>(paths, [assets, paths](std::size_t index) -> std::unique_ptr<sceneria::ByteSource> {
    val bytes = assets.call<val>("read", static_cast<double>(index));
    if (bytes.isNull() || bytes.isUndefined()) return nullptr;
    return std::make_unique<sceneria::MemorySource>(copy_bytes(bytes), paths[index]);
  });
}

// Files next to a document opened by URL: `files.read(path)` answers the bytes or null (the worker
// reads them synchronously: it may block, and it is the worker's thread, never the page's).
class CallbackAssets final : public sceneria::AssetResolver {
 public:
  explicit CallbackAssets(val files) : files_(std::move(files)) {}

 protected:
  std::unique_ptr<sceneria::ByteSource> find(const std::string& key) override {
    val bytes = files_.call<val>("read", key);
    if (bytes.isNull() || bytes.isUndefined()) return nullptr;
    return std::make_unique<sceneria::MemorySource>(copy_bytes(bytes), key);
  }
  bool has(const std::string& key) override { return find(key) != nullptr; }

 private:
  val files_;
};

// The real models of a scene's proxies, loaded one per call nearest the camera
// (stream::ModelLoader) from the files beside the document.
class ModelSupply {
 public:
  void reset(sceneria::AssetResolver* assets) {
    loader_ = sceneria::stream::ModelLoader(sceneria::open_model_scene);
    assets_ = assets;
  }
  void track(const sceneria::scene::Scene& scene) {
    if (assets_) loader_.track(scene);
  }
  // {delta: scene bytes replacing a proxy, or null; pending: models not tried; failed: [...];
  // stats: {...}}.
  val next(double x, double y, double z) {
    std::optional<sceneria::scene::Scene> delta;
    if (assets_ && loader_.pending()) delta = loader_.load_next({x, y, z}, *assets_);
    return answer(std::move(delta));
  }
  // The proxy next() would load now: {mesh, name, files: [path...]} or null (its files can then be
  // fetched before load(mesh) reads them).
  val wanted(double x, double y, double z) const {
    const auto w = assets_ ? loader_.nearest({x, y, z}) : std::nullopt;
    if (!w) return val::null();
    val out = val::object();
    out.set("mesh", w->mesh);
    out.set("name", w->name);
    val files = val::array();
    for (const std::string& f : w->files) files.call<void>("push", f);
    out.set("files", files);
    return out;
  }
  val load(double mesh) {
    std::optional<sceneria::scene::Scene> delta;
    if (assets_ && mesh >= 0) delta = loader_.load(static_cast<std::uint32_t>(mesh), *assets_);
    return answer(std::move(delta));
  }
  val give_up(double mesh, const std::string& why) {
    if (mesh >= 0) loader_.give_up(static_cast<std::uint32_t>(mesh), why);
    return answer(std::nullopt);
  }
  val answer(std::optional<sceneria::scene::Scene> delta) const {
    val out = val::object();
    out.set("delta", delta ? scene_array(std::move(*delta)) : val::null());
    out.set("pending", static_cast<double>(assets_ ? loader_.pending() : 0));
    const auto& s = loader_.stats();
    val stats = val::object();
    stats.set("loaded", static_cast<double>(s.loaded));
    stats.set("failed", static_cast<double>(s.failed));
    stats.set("bytes", static_cast<double>(s.bytes));
    stats.set("vertices", static_cast<double>(s.vertices));
    stats.set("indices", static_cast<double>(s.indices));
    stats.set("parts", static_cast<double>(s.parts));
    stats.set("texturesShared", static_cast<double>(s.textures_shared));
    stats.set("ms", s.ms);
    out.set("stats", stats);
    return out;
  }
  // `known` (the document's own list) and what loading models found missing or unreadable, each once.
  std::vector<std::string> missing(std::vector<std::string> known) const {
    const auto add = [&](const std::string& m) {
      if (std::find(known.begin(), known.end(), m) == known.end()) known.push_back(m);
    };
    if (assets_)
      for (const std::string& m : assets_->missing()) add(m);
    for (const std::string& m : loader_.failed()) add(m);
    return known;
  }

 private:
  sceneria::stream::ModelLoader loader_{sceneria::open_model_scene};
  sceneria::AssetResolver* assets_ = nullptr;
};

// A tree bake over dropped files: the scenery (`root`, named `root_name`) and what it includes
// come from the files the user gave; each twin goes to `files` under the name of the text it
// was baked from plus "b", as the folder names it ("MaSzyna/scenery/Tree.incb").
class ListedBakeIo final : public sceneria::BakeIo {
 public:
  ListedBakeIo(std::string root_name, std::vector<std::uint8_t> root, std::unique_ptr<sceneria::AssetResolver> assets, val files)
      : root_name_(std::move(root_name)), root_(sceneria::SharedBytes::own(std::move(root))), assets_(std::move(assets)), files_(std::move(files)) {}
  sceneria::Result<sceneria::SharedBytes> read(const std::string& path) override {
    if (sceneria::iequals(path, root_name_)) return root_;
    auto source = assets_ ? assets_->open(path) : nullptr;
    if (!source) return sceneria::Error{sceneria::Errc::io, 0, path + ": not among the files given"};
    real_[path] = source->name();
    return sceneria::read_shared(*source);
  }
  sceneria::Error write(const std::string& target, std::span<const std::uint8_t> bytes) override {
    const auto it = real_.find(target.substr(0, target.size() - 1));
    val file = val::object();
    file.set("path", it != real_.end() ? it->second + target.back() : target);
    file.set("bytes", to_uint8_array({bytes.begin(), bytes.end()}));
    files_.call<void>("push", file);
    return {};
  }
  bool fresh(const std::string&, const std::string&) override { return false; }  // dropped files: bake them all

 private:
  std::string root_name_;
  sceneria::SharedBytes root_;
  std::unique_ptr<sceneria::AssetResolver> assets_;
  val files_;
  std::map<std::string, std::string> real_;
};

// `sceneria bake` for dropped files: {ok: true, files: [{path, bytes}], missing: [...]} or
// {ok: false, error}.
val bake_tree(const std::string& name, const val& root, const val& assets) {
  val out = val::object();
  std::vector<std::uint8_t> bytes = copy_bytes(root);
  auto format = sceneria::detect(bytes, name, bytes.size());
  auto fail = [&](const sceneria::Error& e) {
    out.set("ok", false);
    out.set("error", error_val(e));
    return out;
  };
  if (!format) return fail(format.error());
  if (!(*format)->bake) return fail(sceneria::Error{sceneria::Errc::bad_value, 0, std::string((*format)->id) + " files have nothing to bake"});
  val files = val::array();
  ListedBakeIo io(name, std::move(bytes), listed_assets(assets), files);
  auto report = (*format)->bake(name, io, true, std::max(1u, std::thread::hardware_concurrency()));
  if (!report) return fail(report.error());
  out.set("ok", true);
  out.set("files", files);
  out.set("missing", val(to_text(nlohmann::ordered_json(report->missing))));
  return out;
}

// Threads a document's reading and writing may keep busy, the caller's included. In the browser:
// two, one of them the pool's, whose other thread stays for a stream's decoding; the JSON forms
// (dump, reading a dump) are written and read a PACK section per thread. The Node core has no
// pool (a thread it started would keep Node from exiting), so it keeps to its caller's.
unsigned document_threads() {
#ifdef SCENERIA_NO_VIEWER
  return 1;
#else
  return std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
#endif
}

// {ok: false, error}, as a write answers a failure.
val write_failed(const sceneria::Error& e) {
  val out = val::object();
  out.set("ok", false);
  out.set("error", error_val(e));
  return out;
}

// A document written as one of its format's targets (a writer id or a file name/extension:
// "twin", ".scnb", "x.eu7", "glb"): {ok: true, bytes: Uint8Array, writer, extension, losses: [...],
// images, advice, files: [{name, bytes}], zip} or {ok: false, error}: `images` counts the texture
// images a scene export holds, `advice` is what its writer says about reading it ("" when nothing).
// `params` is a JSON object of the writer's options; `progress`, if a function, is called with the share done (0 to 1) while a long write
// runs. `name` is the output's file name: files a writer makes beside it (an OBJ's .mtl and
// images) are named after it and come back in `files`, and then `zip` holds the output and them
// in one archive for a download (null when there are none). A scene export draws the models the
// document was opened with in place of their boxes.
val write_document(const sceneria::Document& document, sceneria::AssetResolver* assets, const std::string& target,
                   const std::string& params, bool lossy, val progress, const std::string& name) {
  val out = val::object();
  auto fail = [](const sceneria::Error& e) { return write_failed(e); };
  const sceneria::Format* format = sceneria::find_format(document.format_id());
  const sceneria::Writer* writer = format ? format->writer_for(target) : nullptr;
  if (!writer) return fail(sceneria::Error{sceneria::Errc::bad_value, 0, "this document cannot be written as '" + target + "'"});
  sceneria::WriteOptions options;
  options.threads = document_threads();
  options.lossy = lossy;
  std::vector<std::string> losses;
  options.losses = &losses;
  std::vector<sceneria::exports::File> files;
  options.name = name;
  options.assets = assets;
  sceneria::exports::Written written;
  options.written = &written;
  if (progress.typeOf().as<std::string>() == "function") options.progress = [&progress](double done) { progress(done); };
  const auto p = nlohmann::json::parse(params.empty() ? "{}" : params, nullptr, false);
  if (p.is_object())
    for (const auto& [k, v] : p.items()) {
      // "separate": the caller takes files beside the output (the page zips them); otherwise
      // a .gltf keeps its buffer and images inside as data: URIs.
      if (k == "separate") options.sidecars = v == true ? &files : nullptr;
      else options.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  if (writer->stream && !options.sidecars) {
    JsPartsSink sink;
    if (sceneria::Error e = writer->stream(document, options, sink)) return fail(e);
    out.set("ok", true);
    out.set("writer", std::string(writer->id));
    out.set("extension", std::string(writer->extension));
    out.set("losses", val(to_text(nlohmann::ordered_json(losses))));
    out.set("images", written.images);
    out.set("advice", written.advice);
    out.set("files", val::array());
    out.set("bytes", sink.joined());
    out.set("zip", val::null());
    return out;
  }
  auto bytes = writer->write(document, options);
  if (!bytes) return fail(bytes.error());
  out.set("ok", true);
  out.set("writer", std::string(writer->id));
  out.set("extension", std::string(writer->extension));
  out.set("losses", val(to_text(nlohmann::ordered_json(losses))));
  out.set("images", written.images);
  out.set("advice", written.advice);
  val list = val::array();
  for (const auto& f : files) {
    val file = val::object();
    file.set("name", f.name);
    file.set("bytes", to_uint8_array(f.bytes));
    list.call<void>("push", file);
  }
  out.set("files", list);
  out.set("bytes", to_uint8_array(*bytes));
  val archive = val::null();
  if (!files.empty()) {
    files.insert(files.begin(), {name.empty() ? std::string("scene") + std::string(writer->extension) : name, std::move(bytes).value()});
    auto zipped = sceneria::exports::zip(files);
    if (!zipped) return fail(zipped.error());
    archive = to_uint8_array(*zipped);
  }
  out.set("zip", archive);
  return out;
}

// One open file in the parse worker. A new open() replaces the previous document entirely, so
// nothing of a bad or old file leaks into the next.
class DocumentBinding {
 public:
  // {"ok":true,"format","headline","summary":{...},"lists":[...]} or {"ok":false,"error":{...}}
  // `params`: the format's open choices as a JSON object ({"skin-set": "…"}; summary.choices
  // lists those the file offers).
  std::string open(const val& typed_array, const std::string& name, int string_sample, const val& assets, const std::string& params) {
    // Staged: a scenery's infrastructure draws first; nextStage() brings the rest.
    return open_with(typed_array, name, assets, {.staged = true}, params, string_sample > 0 ? static_cast<std::size_t>(string_sample) : 0);
  }
  // open() for a conversion or an inspection (the JS API): the whole document at once, not in
  // stages, so that its scene is all of it.
  std::string openWhole(const val& typed_array, const std::string& name, const val& assets, const std::string& params) {
    return open_with(typed_array, name, assets, {}, params, 0);
  }
  // Every section of the scene: [{row, col, origin: [x, y, z], min, max, instances, batches}].
  std::string sections() const {
    auto out = nlohmann::ordered_json::array();
    if (!document_) return to_text(out);
    auto scene = document_->scene();
    if (!scene) return to_text(out);
    for (const auto& s : scene->sections) {
      const glm::dvec3 lo = s.origin + glm::dvec3(s.bounds_min), hi = s.origin + glm::dvec3(s.bounds_max);
      out.push_back({{"row", s.row}, {"col", s.col}, {"origin", {s.origin.x, s.origin.y, s.origin.z}}, {"min", {lo.x, lo.y, lo.z}},
                     {"max", {hi.x, hi.y, hi.z}}, {"instances", s.instances.size()}, {"batches", s.batches.size()}});
    }
    return to_text(out);
  }
  std::string rows(const std::string& list, double first, double count) const {
    if (!document_ || first < 0 || count < 0) return "[]";
    return to_text(document_->rows(list, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(count)));
  }
  std::string groupRows(const std::string& list, double group, double first, double count) const {
    if (!document_ || group < 0 || first < 0 || count < 0) return "[]";
    return to_text(document_->rows_in_group(list, static_cast<std::uint64_t>(group), static_cast<std::uint64_t>(first),
                                            static_cast<std::uint64_t>(count)));
  }
  std::string record(const std::string& list, double index) const {
    if (!document_ || index < 0) return "null";
    return to_text(document_->record(list, static_cast<std::uint64_t>(index)));
  }
  std::string search(const std::string& list, const std::string& query, double limit) const {
    if (!document_ || limit <= 0) return "[]";
    return to_text(document_->search(list, query, static_cast<std::uint64_t>(limit)));
  }
  // The scene to draw, serialized (a JS-owned copy, transferable to the page).
  val scene() {
    if (!document_) return val::null();
    auto scene = document_->scene();
    if (!scene) return val::null();
    models_.track(*scene);
    return scene_array(std::move(*scene));
  }
  // The next model of the scene's proxies, nearest (x, y, z): ModelSupply::next.
  val nextModel(double x, double y, double z) { return models_.next(x, y, z); }
  // The files the document and its models' loading could not find, as JSON.
  std::string missingFiles() const {
    return to_text(nlohmann::ordered_json(models_.missing(document_ ? document_->missing_assets() : std::vector<std::string>{})));
  }
  // What loads after the first view: {delta: scene bytes of the next piece nearest (x, y, z), or
  // null; staging: whether more is to come}. The first call reads the rest of the document, so
  // its lists change then (describe()).
  val nextStage(double x, double y, double z) {
    val out = val::object();
    std::optional<sceneria::scene::Scene> delta;
    if (document_) delta = document_->next_stage({x, y, z});
    if (delta) models_.track(*delta);
    out.set("delta", delta ? scene_array(std::move(*delta)) : val::null());
    out.set("staging", document_ && document_->staging());
    return out;
  }
  bool staging() const { return document_ && document_->staging(); }
  // open()'s answer again, for lists that changed since.
  std::string describe(int string_sample) const {
    if (!document_) return "null";
    return to_text(opened_json(*document_, string_sample > 0 ? static_cast<std::size_t>(string_sample) : 0));
  }
  void close() {
    models_.reset(nullptr);
    document_.reset();
  }
  // The open document written as one of its format's targets (write_document).
  val write(const std::string& target, const std::string& params, bool lossy, val progress, const std::string& name) const {
    if (!document_) return write_failed(sceneria::Error{sceneria::Errc::bad_value, 0, "no document is open"});
    return write_document(*document_, assets_.get(), target, params, lossy, std::move(progress), name);
  }

 private:
  std::string open_with(const val& typed_array, const std::string& name, const val& assets, sceneria::OpenOptions options, const std::string& params,
                        std::size_t string_sample) {
    document_.reset();
    models_.reset(nullptr);
    const auto p = nlohmann::json::parse(params.empty() ? "{}" : params, nullptr, false);
    if (!p.is_object()) return to_text({{"ok", false}, {"error", error_json({sceneria::Errc::bad_value, 0, "open choices: not a JSON object"})}});
    for (const auto& [k, v] : p.items()) options.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
    sceneria::MemorySource source(copy_bytes(typed_array), name);
    // Kept: the models of a scenery load from the same files after it opens.
    assets_ = listed_assets(assets);
    options.assets = assets_.get();
    options.threads = document_threads();
    auto result = sceneria::open_document(source, options);
    if (!result) return to_text({{"ok", false}, {"error", error_json(result.error())}});
    document_ = std::move(result).value();
    models_.reset(assets_.get());
    return to_text(opened_json(*document_, string_sample));
  }

  std::unique_ptr<sceneria::AssetResolver> assets_;  // before the document: it may outlive it
  std::unique_ptr<sceneria::Document> document_;
  ModelSupply models_;
};

// The registry, for the worker and the page: {"formats":[...],"accept":".eu7,..."}.
std::string formats() {
  return to_text({{"formats", sceneria::formats_json()}, {"accept", sceneria::accepted_extensions()}});
}

// The format of a file from its first bytes: {"ok":true,"id","streams"} or {"ok":false,"error"}.
std::string detect(const val& head, const std::string& name, double size) {
  const auto bytes = copy_bytes(head);
  auto format = sceneria::detect(bytes, name, static_cast<std::uint64_t>(size));
  if (!format) return to_text({{"ok", false}, {"error", error_json(format.error())}});
  return to_text({{"ok", true}, {"id", (*format)->id}, {"streams", (*format)->open_remote != nullptr}});
}

// The renderer's material test scene, serialized (src/scene/material_board.hpp).
val material_board() { return to_uint8_array(sceneria::scene::serialize(sceneria::scene::material_board())); }

// The gallery (registry/examples.hpp): [{id, title, what, view}].
std::string examples() { return to_text(sceneria::examples_json()); }

// One example's files, made now: {ok, files: [{path, bytes}]} or {ok: false, error}.
val example_files(const std::string& id) {
  val out = val::object();
  auto files = sceneria::example_files(id);
  out.set("ok", files.ok());
  if (!files) {
    out.set("error", error_val(files.error()));
    return out;
  }
  val list = val::array();
  for (auto& f : *files) {
    val file = val::object();
    file.set("path", f.path);
    file.set("bytes", to_uint8_array(f.bytes));
    list.call<void>("push", file);
  }
  out.set("files", list);
  return out;
}

// A document that streams (a URL, or a File too big to read whole), whatever its format: the
// worker fetches the ranges this asks for and hands them back (see api/stream.mjs).
class StreamBinding {
 public:
  StreamBinding(double size, const std::string& name, const std::string& format_id) {
    if (const sceneria::Format* f = sceneria::find_format(format_id); f && f->open_remote)
      stream_ = f->open_remote(static_cast<std::uint64_t>(size), name);
  }
  bool valid() const { return stream_ != nullptr; }
  void addBytes(double offset, const val& bytes) { stream_->add_bytes(static_cast<std::uint64_t>(offset), copy_bytes(bytes)); }
  // {"need":[begin,end]} | {"ok":true,"summary":…,"lists":…,"start":[x,y,z]} | {"ok":false,"error":…}
  std::string open() {
    auto r = stream_->open();
    if (!r) return to_text({{"ok", false}, {"error", error_json(r.error())}});
    if (*r) return to_text({{"need", {(*r)->begin, (*r)->end}}});
    nlohmann::ordered_json out = opened_json(*stream_, 200);
    const glm::dvec3 start = stream_->start_position();
    out["start"] = {start.x, start.y, start.z};
    const sceneria::scene::Grid grid = stream_->grid();
    out["grid"] = {{"cell", grid.cell}, {"centre", grid.centre}};
    return to_text(out);
  }
  val staticScene() {
    auto scene = stream_->static_scene();
    models_.track(scene);
    return scene_array(std::move(scene));
  }
  // Where the model files are: `files.read(path)` (CallbackAssets). Until then no model loads.
  void setAssets(const val& files) {
    assets_ = std::make_unique<CallbackAssets>(files);
    models_.reset(assets_.get());
  }
  val nextModel(double x, double y, double z) { return models_.next(x, y, z); }
  val modelWanted(double x, double y, double z) const { return models_.wanted(x, y, z); }
  void holdSections(bool on) { stream_->hold_sections(on); }
  val loadModel(double mesh) { return models_.load(mesh); }
  val giveUpModel(double mesh, const std::string& why) { return models_.give_up(mesh, why); }
  // {"reads":[{begin,end,parts:[{row,col,begin,end}]}],"cancel":[{row,col}],"evict":[{row,col}],…}:
  // the sections to fetch as reads (stream::plan_reads: alone until the nearest are in, then merged).
  std::string update(double x, double y, double z) {
    std::vector<sceneria::stream::SectionId> cancel;
    const auto requests = stream_->update({x, y, z}, cancel);
    std::vector<sceneria::Span> spans;
    for (const auto& r : requests) spans.push_back({r.begin, r.end});
    nlohmann::ordered_json out;
    out["reads"] = nlohmann::ordered_json::array();
    for (const auto& read : sceneria::stream::plan_reads(spans, stream_->streamer().near_loaded({x, y, z}))) {
      auto parts = nlohmann::ordered_json::array();
      for (std::size_t i : read.parts) {
        const auto& r = requests[i];
        parts.push_back({{"row", r.id.row}, {"col", r.id.col}, {"begin", r.begin}, {"end", r.end}});
      }
      out["reads"].push_back({{"begin", read.span.begin}, {"end", read.span.end}, {"parts", std::move(parts)}});
    }
    out["sections"] = requests.size();
    out["cancel"] = nlohmann::ordered_json::array();
    for (const auto& id : cancel) out["cancel"].push_back({{"row", id.row}, {"col", id.col}});
    out["evict"] = nlohmann::ordered_json::array();
    for (const auto& id : stream_->evict({x, y, z})) out["evict"].push_back({{"row", id.row}, {"col", id.col}});
    out["inFlight"] = stream_->streamer().in_flight();
    out["held"] = stream_->streamer().held();
    out["ready"] = stream_->streamer().ready();
    out["resident"] = stream_->streamer().resident();
    out["errors"] = stream_->take_errors();  // sections that failed to decode (on the pool's threads)
    const auto [loaded, total] = stream_->late_progress();
    out["late"] = {loaded, total};
    out["decodedOffThread"] = stream_->decoded_off_thread();
    if (stream_->take_described()) out["described"] = opened_json(*stream_, 200);  // late records: new lists
    return to_text(out);
  }
  // [begin, end] of the next piece of late data to fetch (model names, say), or null.
  std::string lateRequest(double piece) {
    const auto span = stream_->late_request(static_cast<std::uint64_t>(piece));
    return span ? to_text(nlohmann::ordered_json{span->begin, span->end}) : "null";
  }
  std::string lateBytes(double offset, const val& bytes) {
    const sceneria::Error e = stream_->late_bytes(static_cast<std::uint64_t>(offset), copy_bytes(bytes));
    return e ? e.describe() : std::string();
  }
  void lateFailed() { stream_->late_failed(); }
  // [{label, candidates: [path...]}]: files to look for next to the document that were not
  // handed out before (api/stream.mjs asks every tick).
  std::string takeAssetQueries() {
    auto out = nlohmann::ordered_json::array();
    for (const auto& q : stream_->take_asset_queries()) out.push_back({{"label", q.label}, {"candidates", q.candidates}});
    return to_text(out);
  }
  void assetMissing(const std::string& label) { stream_->asset_missing(label); }
  std::string missingFiles() const { return to_text(nlohmann::ordered_json(models_.missing(stream_->missing_assets()))); }
  std::string sectionBytes(int row, int col, const val& bytes) {
    const auto data = copy_bytes(bytes);
    const sceneria::Error e = stream_->section_bytes({row, col}, data);
    return e ? e.describe() : std::string();
  }
  void sectionFailed(int row, int col) { stream_->section_failed({row, col}); }
  // [row, col, state, row, col, state, …]: 0 idle, 1 loading, 2 decoded, 3 resident.
  val grid() const {
    std::vector<std::int32_t> out;
    for (const auto& [id, state] : stream_->streamer().states()) {
      out.push_back(id.row);
      out.push_back(id.col);
      out.push_back(static_cast<std::int32_t>(state));
    }
    val array = val::global("Int32Array").new_(out.size());
    array.call<void>("set", val(emscripten::typed_memory_view(out.size(), out.data())));
    return array;
  }
  val applyOne(double x, double y, double z) {
    auto delta = stream_->apply_one({x, y, z});
    if (!delta) return val::null();
    models_.track(*delta);
    return scene_array(std::move(*delta));
  }
  std::string rows(const std::string& list, double first, double count) const {
    return to_text(stream_->rows(list, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(count)));
  }
  std::string search(const std::string& list, const std::string& query, double limit) const {
    return to_text(stream_->search(list, query, static_cast<std::uint64_t>(limit)));
  }
  std::string record(const std::string& list, double index) const {
    return to_text(stream_->record(list, static_cast<std::uint64_t>(index)));
  }
  // The streamed document written as a scene export (write_document), its parts read as the
  // export reaches them through `read(offset, size)` -> Uint8Array (null: the read failed), which
  // the worker answers at once; the view's streaming is left as it was.
  val write(const std::string& target, const std::string& params, bool lossy, val progress, const std::string& name, val read) {
    stream_->set_read_now([&read](std::uint64_t offset, std::uint64_t size) -> sceneria::Result<std::vector<std::uint8_t>> {
      val bytes = read(static_cast<double>(offset), static_cast<double>(size));
      if (bytes.isNull() || bytes.isUndefined())
        return sceneria::Error{sceneria::Errc::io, offset, fmt::format("bytes {}-{} could not be read", offset, offset + size)};
      return copy_bytes(bytes);
    });
    val out = write_document(*stream_, assets_.get(), target, params, lossy, std::move(progress), name);
    stream_->set_read_now({});
    return out;
  }

 private:
  std::unique_ptr<sceneria::stream::RemoteDocument> stream_;
  std::unique_ptr<sceneria::AssetResolver> assets_;
  ModelSupply models_;
};

#ifndef SCENERIA_NO_VIEWER
class Viewer {
 public:
  std::string start() {
    std::string error;
    if (!viewer_.start(error)) return error.empty() ? "viewer failed to start" : error;
    return {};
  }
  void renderFrame() { viewer_.frame(); }
  val readPixels(int x, int y, int w, int h) { return to_uint8_array(viewer_.read_pixels(x, y, w, h)); }
  val project(double x, double y, double z) const {
    glm::dvec2 p;
    if (!viewer_.project({x, y, z}, p)) return val::null();
    val out = val::object();
    out.set("x", p.x);
    out.set("y", p.y);
    return out;
  }
  std::string loadScene(const val& bytes) {
    std::string error;
    const auto data = copy_bytes(bytes);
    return viewer_.load_scene(data, error) ? std::string() : error;
  }
  void clearScene() { viewer_.clear_scene(); }
  std::string addDelta(const val& bytes) {
    std::string error;
    const auto data = copy_bytes(bytes);
    return viewer_.add_delta(data, error) ? std::string() : error;
  }
  void dropSection(int row, int col) { viewer_.drop_section(row, col); }
  void startAt(double x, double y, double z) { viewer_.start_at({x, y, z}); }
  val stats() const {
    const auto& s = viewer_.stats();
    val out = val::object();
    out.set("width", viewer_.width());
    out.set("height", viewer_.height());
    out.set("frames", static_cast<double>(viewer_.frames()));
    out.set("fps", viewer_.fps());
    out.set("frameMs", viewer_.frame_ms());
    out.set("planMs", s.plan_ms);
    out.set("drawMs", s.draw_ms);
    out.set("drawCalls", s.draw_calls);
    out.set("instances", static_cast<double>(s.instances));
    out.set("triangles", static_cast<double>(s.triangles));
    out.set("sectionsDrawn", s.sections_drawn);
    out.set("sectionsTotal", s.sections_total);
    out.set("meshesDrawn", s.meshes_drawn);
    out.set("partsDrawn", s.parts_drawn);
    out.set("partsTextured", s.parts_textured);
    out.set("modelDraws", s.model_draws);
    out.set("modelCalls", s.model_calls);
    out.set("multiDraw", s.multi_draw);
    out.set("meshSlabs", s.mesh_slabs);
    out.set("textureArrays", s.texture_arrays);
    out.set("meshes", viewer_.scene() ? static_cast<double>(viewer_.scene()->meshes.size()) : 0.0);
    out.set("objects", viewer_.scene() ? static_cast<double>(viewer_.scene()->objects.size()) : 0.0);
    out.set("gpuBytes", static_cast<double>(s.gpu_bytes));
    out.set("gpuBudget", static_cast<double>(s.gpu_budget));
    out.set("gpuReleased", static_cast<double>(s.gpu_released));
    out.set("gpuHeld", static_cast<double>(s.gpu_held));
    out.set("meshesWaiting", s.meshes_waiting);
    out.set("texturesWaiting", s.textures_waiting);
    out.set("s3tc", s.s3tc);
    out.set("texturesCompressed", s.textures_compressed);
    out.set("texturesDecodedHere", s.textures_decoded_here);
    out.set("meshesUploaded", static_cast<double>(s.meshes_uploaded));
    out.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
    out.set("glError", viewer_.gl_error());
    out.set("contextLost", viewer_.context_lost());
    return out;
  }
  val object(std::uint32_t id) const {
    const auto* scene = viewer_.scene();
    if (!scene || id >= scene->objects.size()) return val::null();
    const auto& o = scene->objects[id];
    val out = val::object();
    out.set("id", id);
    out.set("kind", scene->kinds[o.kind]);
    out.set("index", static_cast<double>(o.index));
    out.set("x", o.anchor.x);
    out.set("y", o.anchor.y);
    out.set("z", o.anchor.z);
    return out;
  }
  val pick(int x, int y) { return object(viewer_.pick(x, y)); }
  void select(double id) { viewer_.select(id < 0 ? sceneria::scene::kNoObject : static_cast<std::uint32_t>(id)); }
  // Hides objects [first, first + count); a negative first shows everything again.
  void hide(double first, double count) {
    if (first < 0 || count < 1) viewer_.hide(0, 0);
    else viewer_.hide(static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(std::min(count, 4294967295.0)));
  }
  double findObject(const std::string& kind, double index) const {
    const auto id = viewer_.find_object(kind, static_cast<std::uint64_t>(index));
    return id == sceneria::scene::kNoObject ? -1.0 : id;
  }
  void goTo(double id) { viewer_.go_to(static_cast<std::uint32_t>(id)); }
  void frameAll() { viewer_.frame_all(); }
  void releaseKeys() { viewer_.release_keys(); }
  // What the scene holds, for a host to offer only the choices that apply to it (an export's
  // instancing where a mesh is placed more than once, its wires where there are lines, its area
  // where the scene is bigger than one view): {objects, instances, repeated, lines, textures, extent}.
  val contents() const {
    val out = val::object();
    const auto* scene = viewer_.scene();
    double instances = 0, lines = 0, repeated = 0, extent = 0;
    if (scene) {
      std::vector<std::uint32_t> uses(scene->meshes.size(), 0);
      for (const auto& s : scene->sections) {
        instances += static_cast<double>(s.instances.size());
        for (const auto& i : s.instances)
          if (i.mesh >= scene->mesh_base && i.mesh - scene->mesh_base < uses.size() && ++uses[i.mesh - scene->mesh_base] == 2) ++repeated;
        for (const auto& b : s.batches)
          if (b.primitive == sceneria::scene::Batch::Primitive::lines) lines += static_cast<double>(b.positions.size() / 2);
      }
      glm::dvec3 lo, hi;
      if (sceneria::drawn_bounds(*scene, lo, hi)) extent = glm::length(glm::dvec2(hi.x - lo.x, hi.z - lo.z));
    }
    out.set("objects", scene ? static_cast<double>(scene->objects.size()) : 0.0);
    out.set("instances", instances);
    out.set("repeated", repeated);
    out.set("lines", lines);
    out.set("textures", scene ? static_cast<double>(scene->textures.size()) : 0.0);
    out.set("extent", extent);
    return out;
  }
  void startView() { viewer_.frame_start(); }
  void setGrid(bool on) { viewer_.set_grid(on); }
  void setLayers(bool statics, bool models) { viewer_.set_layers(statics, models); }
  void step(double seconds) { viewer_.step(seconds); }
  bool driveFrom(double id) { return viewer_.drive_from(static_cast<std::uint32_t>(id)); }
  void setMode(const std::string& mode) {
    using sceneria::CameraMode;
    viewer_.camera().set_mode(mode == "fly" ? CameraMode::fly : mode == "drive" ? CameraMode::drive : CameraMode::orbit);
  }
  std::string mode() {
    switch (viewer_.camera().mode()) {
      case sceneria::CameraMode::fly: return "fly";
      case sceneria::CameraMode::drive: return "drive";
      default: return "orbit";
    }
  }
  val camera() {
    auto& rig = viewer_.camera();
    const glm::dvec3 eye = rig.eye(), f = rig.forward();
    val out = val::object();
    out.set("mode", mode());
    out.set("eye", val::array(std::vector<double>{eye.x, eye.y, eye.z}));
    out.set("forward", val::array(std::vector<double>{f.x, f.y, f.z}));
    out.set("target", val::array(std::vector<double>{rig.orbit().target.x, rig.orbit().target.y, rig.orbit().target.z}));
    out.set("distance", rig.orbit().distance);
    out.set("yaw", rig.orbit().yaw);
    out.set("pitch", rig.orbit().pitch);
    out.set("driveSpeed", rig.drive_speed());
    out.set("flySpeed", rig.fly_speed);
    return out;
  }
  void orbit(double dx, double dy) { viewer_.camera().drag(dx, dy); }
  void zoom(double steps) { viewer_.camera().wheel(steps); }
  // Static geometry and model drawing distances, metres.
  // The GPU memory budget in bytes (the renderer sizes a default from the context's limits).
  void setGpuBudget(double bytes) { viewer_.set_gpu_budget(static_cast<std::uint64_t>(std::clamp(bytes, 0.0, 1e15))); }
  // Texture units for texture arrays (at most the renderer's twelve): fewer draws the textures of
  // the arrays left without one part by part, as a page with more shapes of texture than units does.
  void setTextureUnits(int units) { viewer_.set_texture_units(units); }
  // Gathered draws in one call where the context has WEBGL_multi_draw (the default), or one call
  // a draw: what the benchmark and the tests compare. Returns whether gathering is now on.
  // The render loop stopped (false) or going again; renderFrame still draws on demand.
  void setLooping(bool on) { viewer_.set_looping(on); }
  bool setMultiDraw(bool on) {
    viewer_.set_multi_draw(on);
    return viewer_.multi_draw();
  }
  void setDistances(double draw, double models) {
    viewer_.set_distances(draw, models);
  }
  // Restores an orbit view exactly (share links).
  void setOrbit(double x, double y, double z, double distance, double yaw, double pitch) {
    auto& rig = viewer_.camera();
    rig.look_at({x, y, z}, distance);
    rig.orbit().yaw = yaw;
    rig.orbit().pitch = std::clamp(pitch, -1.55, 1.55);
  }
  void lookAt(double x, double y, double z, double distance) { viewer_.camera().look_at({x, y, z}, distance); }
  void update(double seconds, bool forward, bool back) {
    sceneria::MoveInput in;
    in.forward = forward;
    in.back = back;
    viewer_.camera().update(seconds, in);
  }

 private:
  sceneria::WebViewer viewer_;
};

#endif  // SCENERIA_NO_VIEWER

}  // namespace

EMSCRIPTEN_BINDINGS(sceneria) {
  emscripten::class_<DocumentBinding>("Document")
      .constructor<>()
      .function("open", &DocumentBinding::open)
      .function("openWhole", &DocumentBinding::openWhole)
      .function("sections", &DocumentBinding::sections)
      .function("rows", &DocumentBinding::rows)
      .function("groupRows", &DocumentBinding::groupRows)
      .function("record", &DocumentBinding::record)
      .function("scene", &DocumentBinding::scene)
      .function("nextStage", &DocumentBinding::nextStage)
      .function("staging", &DocumentBinding::staging)
      .function("describe", &DocumentBinding::describe)
      .function("nextModel", &DocumentBinding::nextModel)
      .function("missingFiles", &DocumentBinding::missingFiles)
      .function("search", &DocumentBinding::search)
      .function("close", &DocumentBinding::close)
      .function("write", &DocumentBinding::write);
  emscripten::function("examples", &examples);
  emscripten::function("exampleFiles", &example_files);
  emscripten::function("materialBoard", &material_board);
  emscripten::function("setDecodeBlocks", &set_decode_blocks);
  emscripten::function("formats", &formats);
  emscripten::function("detect", &detect);
  emscripten::function("bakeTree", &bake_tree);
  emscripten::class_<StreamBinding>("Stream")
      .constructor<double, std::string, std::string>()
      .function("valid", &StreamBinding::valid)
      .function("addBytes", &StreamBinding::addBytes)
      .function("open", &StreamBinding::open)
      .function("staticScene", &StreamBinding::staticScene)
      .function("update", &StreamBinding::update)
      .function("sectionBytes", &StreamBinding::sectionBytes)
      .function("sectionFailed", &StreamBinding::sectionFailed)
      .function("lateRequest", &StreamBinding::lateRequest)
      .function("lateBytes", &StreamBinding::lateBytes)
      .function("lateFailed", &StreamBinding::lateFailed)
      .function("takeAssetQueries", &StreamBinding::takeAssetQueries)
      .function("assetMissing", &StreamBinding::assetMissing)
      .function("missingFiles", &StreamBinding::missingFiles)
      .function("setAssets", &StreamBinding::setAssets)
      .function("nextModel", &StreamBinding::nextModel)
      .function("modelWanted", &StreamBinding::modelWanted)
      .function("holdSections", &StreamBinding::holdSections)
      .function("loadModel", &StreamBinding::loadModel)
      .function("giveUpModel", &StreamBinding::giveUpModel)
      .function("grid", &StreamBinding::grid)
      .function("applyOne", &StreamBinding::applyOne)
      .function("rows", &StreamBinding::rows)
      .function("search", &StreamBinding::search)
      .function("record", &StreamBinding::record)
      .function("write", &StreamBinding::write);
#ifndef SCENERIA_NO_VIEWER
  emscripten::class_<Viewer>("Viewer")
      .constructor<>()
      .function("start", &Viewer::start)
      .function("renderFrame", &Viewer::renderFrame)
      .function("readPixels", &Viewer::readPixels)
      .function("project", &Viewer::project)
      .function("stats", &Viewer::stats)
      .function("orbit", &Viewer::orbit)
      .function("zoom", &Viewer::zoom)
      .function("loadScene", &Viewer::loadScene)
      .function("addDelta", &Viewer::addDelta)
      .function("dropSection", &Viewer::dropSection)
      .function("startAt", &Viewer::startAt)
      .function("clearScene", &Viewer::clearScene)
      .function("object", &Viewer::object)
      .function("pick", &Viewer::pick)
      .function("select", &Viewer::select)
      .function("hide", &Viewer::hide)
      .function("findObject", &Viewer::findObject)
      .function("goTo", &Viewer::goTo)
      .function("frameAll", &Viewer::frameAll)
      .function("releaseKeys", &Viewer::releaseKeys)
      .function("contents", &Viewer::contents)
      .function("startView", &Viewer::startView)
      .function("setGrid", &Viewer::setGrid)
      .function("setLayers", &Viewer::setLayers)
      .function("step", &Viewer::step)
      .function("driveFrom", &Viewer::driveFrom)
      .function("setMode", &Viewer::setMode)
      .function("mode", &Viewer::mode)
      .function("camera", &Viewer::camera)
      .function("lookAt", &Viewer::lookAt)
      .function("setOrbit", &Viewer::setOrbit)
      .function("setDistances", &Viewer::setDistances)
      .function("setGpuBudget", &Viewer::setGpuBudget)
      .function("setTextureUnits", &Viewer::setTextureUnits)
      .function("setMultiDraw", &Viewer::setMultiDraw)
      .function("setLooping", &Viewer::setLooping)
      .function("update", &Viewer::update);
#endif
}
