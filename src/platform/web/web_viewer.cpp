#include "platform/web/web_viewer.hpp"

#include <GLES3/gl3.h>
#include <SDL2/SDL.h>
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "scene/serialize.hpp"
#include "scene/track_walk.hpp"

namespace sceneria {

namespace {
constexpr const char* kCanvas = "#canvas";  // SDL 2.26's emscripten backend hard-codes this id

void loop_trampoline(void* self) { static_cast<WebViewer*>(self)->frame(); }
}  // namespace

WebViewer::~WebViewer() {
  emscripten_cancel_main_loop();
  if (gl_context_) SDL_GL_DeleteContext(gl_context_);
  if (window_) SDL_DestroyWindow(window_);
}

bool WebViewer::start(std::string& error) {
  // Keys go to the canvas only, so typing in the page's inputs is not swallowed by SDL.
  SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, kCanvas);
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    error = std::string("SDL_Init failed: ") + SDL_GetError();
    return false;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);

  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  width_ = std::max(1, static_cast<int>(css_w));
  height_ = std::max(1, static_cast<int>(css_h));
  window_ = SDL_CreateWindow("sceneria", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, width_, height_,
                             SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE);
  if (!window_) {
    error = std::string("SDL_CreateWindow failed: ") + SDL_GetError();
    return false;
  }
  gl_context_ = SDL_GL_CreateContext(window_);
  if (!gl_context_) {
    error = std::string("WebGL2 context could not be created: ") + SDL_GetError();
    return false;
  }
  SDL_GL_MakeCurrent(window_, gl_context_);
  if (!renderer_.init(error)) return false;
  rig_.orbit().target = {0, 0, 0};
  rig_.orbit().distance = 180;
  sync_canvas_size();
  last_time_ = emscripten_get_now();
  emscripten_set_main_loop_arg(loop_trampoline, this, 0, 0);
  return true;
}

void WebViewer::set_looping(bool on) {
  if (on) emscripten_resume_main_loop();
  else emscripten_pause_main_loop();
}

bool WebViewer::load_scene(std::span<const std::uint8_t> bytes, std::string& error) {
  auto scene = scene::deserialize(bytes);
  if (!scene) {
    error = scene.error().describe();
    return false;
  }
  renderer_.set_scene(nullptr);
  renderer_.set_hidden(0, 0);  // object ids belong to the scene they came with
  scene_ = std::make_unique<scene::Scene>(std::move(scene).value());
  objects_by_kind_.assign(scene_->kinds.size(), {});
  for (std::uint32_t id = 0; id < scene_->objects.size(); ++id) {
    const scene::Object& o = scene_->objects[id];
    if (o.kind < objects_by_kind_.size()) objects_by_kind_[o.kind].push_back(id);
  }
  // Within a kind, objects are created in index order; keep it sorted for lookups.
  for (auto& ids : objects_by_kind_)
    std::stable_sort(ids.begin(), ids.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return scene_->objects[a].index < scene_->objects[b].index; });
  renderer_.set_scene(scene_.get());
  // A new scene starts from the default angles, whatever the last one was looked at from (the
  // page's demo opens at its own view): the same file opens the same way every time.
  const OrbitCamera fresh;
  rig_.orbit().yaw = fresh.yaw;
  rig_.orbit().pitch = fresh.pitch;
  frame_start();
  // Flying crosses what is shown in about twenty seconds: a cab at walking pace, a scenery's
  // few kilometres at a train's speed or more (its whole extent beyond that is too far to matter).
  glm::dvec3 lo, hi;
  const double extent = drawn_bounds(*scene_, lo, hi) ? glm::length(glm::dvec2(hi.x - lo.x, hi.z - lo.z)) : 100.0;
  rig_.fly_speed = CameraRig::fly_speed_for(std::min(extent, 8000.0));
  return true;
}

bool WebViewer::add_delta(std::span<const std::uint8_t> bytes, std::string& error) {
  if (!scene_) {
    error = "no scene to stream into";
    return false;
  }
  auto delta = scene::deserialize(bytes);
  if (!delta) {
    error = delta.error().describe();
    return false;
  }
  if (!delta->replaces.empty()) {  // a model loaded in place of its proxy
    auto replaced = scene::replace_meshes(*scene_, std::move(delta).value());
    if (!replaced) {
      error = replaced.error().describe();
      return false;
    }
    renderer_.replace_meshes(*replaced);
    return true;
  }
  const std::size_t objects_before = scene_->objects.size();
  auto changed = scene::merge_delta(*scene_, std::move(delta).value());
  if (!changed) {
    error = changed.error().describe();
    return false;
  }
  for (std::uint32_t id = static_cast<std::uint32_t>(objects_before); id < scene_->objects.size(); ++id) {
    const scene::Object& o = scene_->objects[id];
    if (o.kind < objects_by_kind_.size()) objects_by_kind_[o.kind].push_back(id);
  }
  for (std::size_t index : *changed) renderer_.update_section(index);
  return true;
}

void WebViewer::drop_section(int row, int col) {
  if (!scene_) return;
  const std::ptrdiff_t index = scene::drop_streamed(*scene_, row, col);
  if (index >= 0) renderer_.update_section(static_cast<std::size_t>(index));
}

void WebViewer::frame_start() {
  if (!scene_ || scene_->sections.empty()) return;
  // A whole big scenery from afar is only fog and no models: start at its busiest section (the
  // most models), framing the models there; without models, at the start of its first track,
  // close enough to see the line and what stands beside it.
  const double size = glm::length(scene_->bounds_max - scene_->bounds_min);
  if (size <= 8000.0) {
    frame_all();
    return;
  }
  const scene::Section* busiest = nullptr;
  for (const scene::Section& s : scene_->sections)
    if (!s.instances.empty() && (!busiest || s.instances.size() > busiest->instances.size())) busiest = &s;
  if (busiest) {
    // Around the models' centroid, as far as their RMS spread: most of them fill the view, at a
    // distance where a 4 m proxy is still several pixels tall.
    glm::dvec3 sum(0.0);
    for (const scene::Instance& i : busiest->instances) sum += glm::dvec3(i.offset);
    const glm::dvec3 centre = sum / static_cast<double>(busiest->instances.size());
    double spread = 0;
    for (const scene::Instance& i : busiest->instances) {
      const glm::dvec3 d = glm::dvec3(i.offset) - centre;
      spread += glm::dot(d, d);
    }
    spread = std::sqrt(spread / static_cast<double>(busiest->instances.size()));
    rig_.look_at(busiest->origin + centre, std::clamp(spread * 1.6, 80.0, 1500.0));
  } else if (!scene_->tracks.empty()) {
    rig_.look_at(scene_->tracks.front().p[0], 350.0);
  } else {
    frame_all();
  }
}

void WebViewer::frame_all() {
  if (!scene_ || scene_->sections.empty()) return;
  if (!rig_.frame_scene(*scene_, aspect())) rig_.frame(scene_->bounds_min, scene_->bounds_max, aspect());
}

unsigned WebViewer::gl_error() const {
  if (!window_) return 0;
  const GLenum first = glGetError();
  while (glGetError() != GL_NO_ERROR) {}  // GL keeps one flag per kind: all cleared for the next ask
  return first;
}

bool WebViewer::context_lost() const {
  const EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = emscripten_webgl_get_current_context();
  return window_ && (!context || emscripten_is_webgl_context_lost(context));
}

void WebViewer::release_keys() { SDL_ResetKeyboard(); }

void WebViewer::clear_scene() {
  renderer_.set_scene(nullptr);
  renderer_.set_hidden(0, 0);
  scene_.reset();
  objects_by_kind_.clear();
}

std::uint32_t WebViewer::pick(int x, int y) {
  const std::uint32_t id = renderer_.pick(rig_.matrices(width_, height_), width_, height_, x, y);
  renderer_.set_highlight(id);
  return id;
}

void WebViewer::select(std::uint32_t object) { renderer_.set_highlight(object); }

std::uint32_t WebViewer::find_object(const std::string& kind, std::uint64_t index) const {
  if (!scene_) return scene::kNoObject;
  for (std::size_t k = 0; k < scene_->kinds.size(); ++k) {
    if (scene_->kinds[k] != kind) continue;
    const auto& ids = objects_by_kind_[k];
    auto it = std::lower_bound(ids.begin(), ids.end(), index,
                               [&](std::uint32_t id, std::uint64_t i) { return scene_->objects[id].index < i; });
    if (it != ids.end() && scene_->objects[*it].index == index) return *it;
  }
  return scene::kNoObject;
}

void WebViewer::go_to(std::uint32_t object) {
  if (!scene_ || object >= scene_->objects.size()) return;
  const scene::Object& o = scene_->objects[object];
  rig_.frame_ball(o.anchor, static_cast<double>(o.radius), aspect());
  renderer_.set_highlight(object);
}

bool WebViewer::drive_from(std::uint32_t object) {
  if (!scene_ || object >= scene_->objects.size()) return false;
  for (std::size_t c = 0; c < scene_->tracks.size(); ++c)
    if (scene_->tracks[c].object == object) return rig_.drive(*scene_, static_cast<int>(c));
  // Something standing on a track (a vehicle): from its front, the way it faces.
  for (const scene::Section& sec : scene_->sections)
    for (const scene::Instance& i : sec.instances) {
      if (i.object != object) continue;
      const glm::dvec3 ahead = glm::dvec3(i.rotation * glm::vec3(0, 0, 1));
      const double reach = i.mesh < scene_->meshes.size() ? static_cast<double>(scene_->meshes[i.mesh].bounds_max.z * i.scale.z) : 0.0;
      const glm::dvec3 front = sec.origin + glm::dvec3(i.offset) + ahead * reach;  // its model's front face
      const scene::TrackPlace at = scene::nearest_on_tracks(scene_->tracks, front, 6.0);
      if (at.curve < 0) return false;
      return rig_.drive(*scene_, at.curve, at.t, glm::dot(at.forward, ahead) < 0 ? -1 : 1);
    }
  return false;
}

void WebViewer::sync_canvas_size() {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const int w = std::max(1, static_cast<int>(std::lround(css_w)));
  const int h = std::max(1, static_cast<int>(std::lround(css_h)));
  if (w == width_ && h == height_) return;
  width_ = w;
  height_ = h;
  // Through SDL, so its mouse coordinate scaling matches the new canvas size.
  SDL_SetWindowSize(window_, w, h);
}

void WebViewer::handle_events() {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    switch (e.type) {
      case SDL_MOUSEBUTTONDOWN:
        drag_button_ = e.button.button;
        break;
      case SDL_MOUSEBUTTONUP:
        drag_button_ = 0;
        break;
      case SDL_MOUSEMOTION:
        if (!drag_button_) break;
        if (drag_button_ == SDL_BUTTON_LEFT && !(SDL_GetModState() & KMOD_SHIFT)) rig_.drag(e.motion.xrel, e.motion.yrel);
        else rig_.pan(e.motion.xrel, e.motion.yrel, height_);
        break;
      case SDL_MOUSEWHEEL:
        rig_.wheel(e.wheel.y > 0 ? 1.0 : (e.wheel.y < 0 ? -1.0 : 0.0));
        break;
      default:
        break;
    }
  }
}

MoveInput WebViewer::held_keys() const {
  const Uint8* keys = SDL_GetKeyboardState(nullptr);
  MoveInput in;
  in.forward = keys[SDL_SCANCODE_W] || keys[SDL_SCANCODE_UP];
  in.back = keys[SDL_SCANCODE_S] || keys[SDL_SCANCODE_DOWN];
  in.left = keys[SDL_SCANCODE_A] || keys[SDL_SCANCODE_LEFT];
  in.right = keys[SDL_SCANCODE_D] || keys[SDL_SCANCODE_RIGHT];
  in.up = keys[SDL_SCANCODE_E];
  in.down = keys[SDL_SCANCODE_Q];
  in.fast = keys[SDL_SCANCODE_LSHIFT] || keys[SDL_SCANCODE_RSHIFT];
  return in;
}

void WebViewer::frame() {
  if (!window_) return;
  const double now = emscripten_get_now();
  const double dt = std::clamp((now - last_time_) / 1000.0, 0.0, 0.25);
  last_time_ = now;
  handle_events();
  rig_.update(dt, held_keys());
  sync_canvas_size();
  // Fog and drawing distance follow the zoom: a wide view sees far, a close one stays sharp.
  renderer_.settings().draw_distance =
      std::max(draw_distance_, rig_.mode() == CameraMode::orbit ? rig_.orbit().distance * 3.0 : 0.0);
  renderer_.draw_frame(rig_.matrices(width_, height_), width_, height_);
  ++frames_;
  const double took = emscripten_get_now() - now;
  frame_ms_ = frame_ms_ == 0 ? took : frame_ms_ * 0.9 + took * 0.1;
  if (dt > 0) fps_ = fps_ == 0 ? 1.0 / dt : fps_ * 0.9 + (1.0 / dt) * 0.1;
}

std::vector<std::uint8_t> WebViewer::read_pixels(int x, int y, int w, int h) {
  std::vector<std::uint8_t> out;
  if (!window_ || w <= 0 || h <= 0) return out;
  frame();
  x = std::clamp(x, 0, width_ - 1);
  y = std::clamp(y, 0, height_ - 1);
  w = std::min(w, width_ - x);
  h = std::min(h, height_ - y);
  std::vector<std::uint8_t> bottom_up(static_cast<std::size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  // GL's origin is bottom-left; callers speak in window pixels from the top-left.
  glReadPixels(x, height_ - y - h, w, h, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  out.resize(bottom_up.size());
  const std::size_t row = static_cast<std::size_t>(w) * 4;
  for (int r = 0; r < h; ++r)
    std::memcpy(out.data() + r * row, bottom_up.data() + (h - 1 - r) * row, row);
  return out;
}

bool WebViewer::project(const glm::dvec3& world, glm::dvec2& out) const {
  return project_to_window(rig_.matrices(width_, height_), world, width_, height_, out);
}

}  // namespace sceneria
