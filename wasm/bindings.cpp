// Embind surface of the WebAssembly module. Bindings only: every behaviour lives in src/.
// The same module runs in two places: in the parse worker (inspect) and on the page (viewer).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/eu7b/demo.hpp"
#include "formats/inspect.hpp"
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
  void close() { document_.reset(); }

 private:
  std::unique_ptr<sceneria::Document> document_;
};

// A JS-owned copy (views into wasm memory die when the heap grows or the vector is freed).
val to_uint8_array(const std::vector<std::uint8_t>& bytes) {
  val out = val::global("Uint8Array").new_(bytes.size());
  out.call<void>("set", val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
  return out;
}

val demo_module() { return to_uint8_array(sceneria::eu7b::demo_module()); }

class Viewer {
 public:
  std::string start() {
    std::string error;
    if (!viewer_.start(error)) return error.empty() ? "viewer failed to start" : error;
    return {};
  }
  void renderFrame() { viewer_.frame(); }
  val readPixels(int x, int y, int w, int h) {
    return to_uint8_array(viewer_.read_pixels(x, y, w, h));
  }
  val project(double x, double y, double z) const {
    glm::dvec2 p;
    if (!viewer_.project({x, y, z}, p)) return val::null();
    val out = val::object();
    out.set("x", p.x);
    out.set("y", p.y);
    return out;
  }
  val stats() const {
    val out = val::object();
    out.set("width", viewer_.width());
    out.set("height", viewer_.height());
    out.set("frames", static_cast<double>(viewer_.frames()));
    out.set("drawCalls", viewer_.stats().draw_calls);
    out.set("lineVertices", viewer_.stats().line_vertices);
    return out;
  }
  void orbit(double dx, double dy) { viewer_.camera().orbit(dx, dy); }
  void zoom(double steps) { viewer_.camera().zoom(steps); }

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
      .function("close", &DocumentBinding::close);
  emscripten::function("demoModule", &demo_module);
  emscripten::class_<Viewer>("Viewer")
      .constructor<>()
      .function("start", &Viewer::start)
      .function("renderFrame", &Viewer::renderFrame)
      .function("readPixels", &Viewer::readPixels)
      .function("project", &Viewer::project)
      .function("stats", &Viewer::stats)
      .function("orbit", &Viewer::orbit)
      .function("zoom", &Viewer::zoom);
}
