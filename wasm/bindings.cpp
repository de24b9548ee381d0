// Embind surface of the WebAssembly module. Bindings only: every behaviour lives in src/.
// The same module runs in two places: in the parse worker (inspect) and on the page (viewer).
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/eu7b/demo.hpp"
#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/inspect.hpp"
#include "scene/serialize.hpp"
#include "stream/eu7b_stream.hpp"
#include "io/byte_source.hpp"
#include "platform/web/web_viewer.hpp"

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

// Strings from files may not be UTF-8 even after display conversion; never throw.
std::string to_text(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One open file in the parse worker. A new open() replaces the previous document entirely, so
// nothing of a bad or old file leaks into the next.
class DocumentBinding {
 public:
  // {"ok":true,"summary":{...},"kinds":[...]} or {"ok":false,"error":{"code","offset","message"}}
  std::string open(const val& typed_array, const std::string& name, int string_sample) {
    document_.reset();
    sceneria::MemorySource source(copy_bytes(typed_array), name);
    auto result = sceneria::open_document(source);
    nlohmann::ordered_json out;
    out["ok"] = result.ok();
    if (result) {
      document_ = std::move(result).value();
      out["summary"] = document_->summary(string_sample > 0 ? static_cast<std::size_t>(string_sample) : 0);
      out["kinds"] = document_->record_kinds();
    } else {
      const sceneria::Error& e = result.error();
      out["error"] = {{"code", std::string(sceneria::errc_name(e.code))}, {"offset", e.offset}, {"message", e.message}};
    }
    return to_text(out);
  }
  std::string rows(const std::string& kind, double first, double count) const {
    if (!document_ || first < 0 || count < 0) return "[]";
    return to_text(document_->rows(kind, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(count)));
  }
  std::string record(const std::string& kind, double index) const {
    if (!document_ || index < 0) return "null";
    return to_text(document_->record(kind, static_cast<std::uint64_t>(index)));
  }
  std::string search(const std::string& kind, const std::string& query, double limit) const {
    if (!document_ || limit <= 0) return "[]";
    return to_text(document_->search(kind, query, static_cast<std::uint64_t>(limit)));
  }
  // The scene to draw, serialized (a JS-owned copy, transferable to the page).
  val scene() const {
    if (!document_) return val::null();
    auto bytes = document_->scene_bytes();
    if (!bytes) return val::null();
    return to_uint8_array(*bytes);
  }
  void close() { document_.reset(); }

 private:
  std::unique_ptr<sceneria::Document> document_;
};

val demo_module() { return to_uint8_array(sceneria::eu7b::demo_module()); }

// A module opened by URL (or a lazily read File) in the parse worker: the worker fetches the
// ranges this asks for and hands them back (see web/worker.js).
class StreamBinding {
 public:
  StreamBinding(double size, const std::string& name) : stream_(static_cast<std::uint64_t>(size), name) {}
  void addBytes(double offset, const val& bytes) { stream_.add_bytes(static_cast<std::uint64_t>(offset), copy_bytes(bytes)); }
  // {"need":[begin,end]} | {"ok":true,"summary":…,"kinds":…,"start":[x,y,z]} | {"ok":false,"error":…}
  std::string open() {
    auto r = stream_.open();
    nlohmann::ordered_json out;
    if (!r) {
      const sceneria::Error& e = r.error();
      out["ok"] = false;
      out["error"] = {{"code", std::string(sceneria::errc_name(e.code))}, {"offset", e.offset}, {"message", e.message}};
      return to_text(out);
    }
    if (*r) {
      out["need"] = {(*r)->begin, (*r)->end};
      return to_text(out);
    }
    out["ok"] = true;
    out["summary"] = sceneria::eu7b::summary_json(stream_.module(), 200);
    browser_ = std::make_unique<sceneria::eu7b::RecordBrowser>(stream_.module());
    out["kinds"] = nlohmann::ordered_json::array();
    for (const auto& k : browser_->kinds()) out["kinds"].push_back({{"id", k.id}, {"label", k.label}, {"count", k.count}});
    const glm::dvec3 start = stream_.start_position();
    out["start"] = {start.x, start.y, start.z};
    return to_text(out);
  }
  val staticScene() { return to_uint8_array(sceneria::scene::serialize(stream_.static_scene())); }
  // {"requests":[{row,col,begin,end}],"cancel":[{row,col}],"evict":[{row,col}],"inFlight":…,…}
  std::string update(double x, double y, double z) {
    std::vector<sceneria::stream::SectionId> cancel;
    const auto requests = stream_.update({x, y, z}, cancel);
    nlohmann::ordered_json out;
    out["requests"] = nlohmann::ordered_json::array();
    for (const auto& r : requests) out["requests"].push_back({{"row", r.id.row}, {"col", r.id.col}, {"begin", r.begin}, {"end", r.end}});
    out["cancel"] = nlohmann::ordered_json::array();
    for (const auto& id : cancel) out["cancel"].push_back({{"row", id.row}, {"col", id.col}});
    out["evict"] = nlohmann::ordered_json::array();
    for (const auto& id : stream_.evict({x, y, z})) out["evict"].push_back({{"row", id.row}, {"col", id.col}});
    out["inFlight"] = stream_.streamer().in_flight();
    out["ready"] = stream_.streamer().ready();
    out["resident"] = stream_.streamer().resident();
    out["errors"] = stream_.take_errors();  // sections that failed to decode (on the pool's threads)
    out["strings"] = {stream_.strings_loaded(), stream_.string_count()};
    out["decodedOffThread"] = stream_.decoded_off_thread();
    return to_text(out);
  }
  // [begin, end] of the next piece of STRS to fetch (model names), or null.
  std::string stringsRequest(double piece) {
    const auto span = stream_.strings_request(static_cast<std::uint64_t>(piece));
    return span ? to_text(nlohmann::ordered_json{span->begin, span->end}) : "null";
  }
  std::string stringsBytes(double offset, const val& bytes) {
    const sceneria::Error e = stream_.strings_bytes(static_cast<std::uint64_t>(offset), copy_bytes(bytes));
    return e ? e.describe() : std::string();
  }
  void stringsFailed() { stream_.strings_failed(); }
  std::string sectionBytes(int row, int col, const val& bytes) {
    const auto data = copy_bytes(bytes);
    const sceneria::Error e = stream_.section_bytes({row, col}, data);
    return e ? e.describe() : std::string();
  }
  void sectionFailed(int row, int col) { stream_.section_failed({row, col}); }
  // [row, col, state, row, col, state, …]: 0 idle, 1 loading, 2 decoded, 3 resident.
  val grid() const {
    std::vector<std::int32_t> out;
    for (const auto& [id, state] : stream_.streamer().states()) {
      out.push_back(id.row);
      out.push_back(id.col);
      out.push_back(static_cast<std::int32_t>(state));
    }
    val array = val::global("Int32Array").new_(out.size());
    array.call<void>("set", val(emscripten::typed_memory_view(out.size(), out.data())));
    return array;
  }
  val applyOne(double x, double y, double z) {
    auto delta = stream_.apply_one({x, y, z});
    if (!delta) return val::null();
    return to_uint8_array(sceneria::scene::serialize(*delta));
  }
  std::string rows(const std::string& kind, double first, double count) const {
    return browser_ ? to_text(browser_->rows(kind, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(count))) : "[]";
  }
  std::string search(const std::string& kind, const std::string& query, double limit) const {
    return browser_ ? to_text(browser_->search(kind, query, static_cast<std::uint64_t>(limit))) : "[]";
  }
  std::string record(const std::string& kind, double index) const {
    if (kind == "pack_models") return to_text(stream_.pack_record(static_cast<std::uint64_t>(index)));
    return browser_ ? to_text(browser_->record(kind, static_cast<std::uint64_t>(index))) : "null";
  }

 private:
  sceneria::stream::Eu7bStream stream_;
  std::unique_ptr<sceneria::eu7b::RecordBrowser> browser_;
};

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
    out.set("drawCalls", s.draw_calls);
    out.set("instances", static_cast<double>(s.instances));
    out.set("triangles", static_cast<double>(s.triangles));
    out.set("sectionsDrawn", s.sections_drawn);
    out.set("sectionsTotal", s.sections_total);
    out.set("meshesDrawn", s.meshes_drawn);
    out.set("meshes", viewer_.scene() ? static_cast<double>(viewer_.scene()->meshes.size()) : 0.0);
    out.set("objects", viewer_.scene() ? static_cast<double>(viewer_.scene()->objects.size()) : 0.0);
    out.set("gpuBytes", static_cast<double>(s.gpu_bytes));
    out.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
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
  void frameAll() {
    if (const auto* scene = viewer_.scene(); scene && !scene->sections.empty())
      viewer_.camera().frame(scene->bounds_min, scene->bounds_max);
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
    return out;
  }
  void orbit(double dx, double dy) { viewer_.camera().drag(dx, dy); }
  void zoom(double steps) { viewer_.camera().wheel(steps); }
  // Static geometry and model drawing distances, metres.
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

}  // namespace

EMSCRIPTEN_BINDINGS(sceneria) {
  emscripten::class_<DocumentBinding>("Document")
      .constructor<>()
      .function("open", &DocumentBinding::open)
      .function("rows", &DocumentBinding::rows)
      .function("record", &DocumentBinding::record)
      .function("scene", &DocumentBinding::scene)
      .function("search", &DocumentBinding::search)
      .function("close", &DocumentBinding::close);
  emscripten::function("demoModule", &demo_module);
  emscripten::class_<StreamBinding>("Stream")
      .constructor<double, std::string>()
      .function("addBytes", &StreamBinding::addBytes)
      .function("open", &StreamBinding::open)
      .function("staticScene", &StreamBinding::staticScene)
      .function("update", &StreamBinding::update)
      .function("sectionBytes", &StreamBinding::sectionBytes)
      .function("sectionFailed", &StreamBinding::sectionFailed)
      .function("stringsRequest", &StreamBinding::stringsRequest)
      .function("stringsBytes", &StreamBinding::stringsBytes)
      .function("stringsFailed", &StreamBinding::stringsFailed)
      .function("grid", &StreamBinding::grid)
      .function("applyOne", &StreamBinding::applyOne)
      .function("rows", &StreamBinding::rows)
      .function("search", &StreamBinding::search)
      .function("record", &StreamBinding::record);
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
      .function("update", &Viewer::update);
}
