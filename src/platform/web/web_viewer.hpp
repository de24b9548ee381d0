#pragma once
// The browser host for the renderer: SDL2 owns the WebGL2 canvas (#canvas), its input events and
// the GL context; the render loop runs in C++ via emscripten_set_main_loop.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "render/camera_rig.hpp"
#include "render/renderer.hpp"
#include "scene/scene.hpp"

struct SDL_Window;

namespace sceneria {

class WebViewer {
 public:
  WebViewer() = default;
  WebViewer(const WebViewer&) = delete;
  WebViewer& operator=(const WebViewer&) = delete;
  ~WebViewer();

  // Creates the window/context on the page's canvas and starts the render loop.
  bool start(std::string& error);
  // One frame: events, movement, resize, draw. Called by the loop; also callable directly because
  // headless browsers may deliver no animation frames.
  void frame();
  // Renders a frame and reads back pixels in the same frame (SDL's EGL context has no
  // preserveDrawingBuffer, so JS readPixels after compositing would see black). Rows top-down, RGBA.
  std::vector<std::uint8_t> read_pixels(int x, int y, int w, int h);
  bool project(const glm::dvec3& world, glm::dvec2& out) const;

  // Replaces the scene (a serialized scene::Scene) and frames it; false with a message if bad.
  bool load_scene(std::span<const std::uint8_t> bytes, std::string& error);
  void clear_scene();
  // Streaming: merges a scene delta (one PACK section) into the scene; drops one again.
  bool add_delta(std::span<const std::uint8_t> bytes, std::string& error);
  void drop_section(int row, int col);
  // Starts the camera at a world point (the stream's start: the first track).
  void start_at(const glm::dvec3& point) { rig_.look_at(point, 350.0); }
  // The start view: framing the content, or the line's start for big sceneries.
  void frame_start();
  // Frames everything drawn so that it fills the view.
  void frame_all();
  // Lets go of every held key (focus left the canvas while one was down: its release went elsewhere).
  void release_keys();
  void set_grid(bool on) { renderer_.set_grid(on); }
  void set_layers(bool statics, bool models) { renderer_.set_layers(statics, models); }
  // Advances the camera by `seconds` with the keys held now, without drawing: deterministic
  // movement for tests and scripted flights (the render loop moves by real elapsed time).
  void step(double seconds) { rig_.update(seconds, held_keys()); }
  void set_distances(double draw, double models) {
    draw_distance_ = draw;
    renderer_.settings().model_distance = models;
  }
  void set_gpu_budget(std::uint64_t bytes) { renderer_.set_gpu_budget(bytes); }
  void set_texture_units(int units) { renderer_.set_texture_units(units); }
  void set_multi_draw(bool on) { renderer_.set_multi_draw(on); }
  // Stops or restarts the render loop; frame() still draws on demand. A benchmark's page at rest
  // while another is measured (both would otherwise draw on the same cores).
  void set_looping(bool on);
  bool multi_draw() const { return renderer_.multi_draw(); }
  const scene::Scene* scene() const { return scene_.get(); }
  // The object under a canvas pixel, or scene::kNoObject; highlights it.
  std::uint32_t pick(int x, int y);
  void select(std::uint32_t object);
  void hide(std::uint32_t first, std::uint32_t count) { renderer_.set_hidden(first, count); }
  // The object for a (kind, index) of the document, or kNoObject.
  std::uint32_t find_object(const std::string& kind, std::uint64_t index) const;
  void go_to(std::uint32_t object);
  bool drive_from(std::uint32_t object);  // starts drive mode on the track of `object`

  double aspect() const { return static_cast<double>(width_) / std::max(1, height_); }
  int width() const { return width_; }
  int height() const { return height_; }
  std::uint64_t frames() const { return frames_; }
  double fps() const { return fps_; }
  double frame_ms() const { return frame_ms_; }
  const FrameStats& stats() const { return renderer_.stats(); }
  // What GL reported since the last ask (0: nothing) and whether the browser took the context
  // away: asked with the stats, so that a view that draws nothing says why.
  unsigned gl_error() const;
  bool context_lost() const;
  CameraRig& camera() { return rig_; }


 private:
  void handle_events();
  MoveInput held_keys() const;
  void sync_canvas_size();

  SDL_Window* window_ = nullptr;
  void* gl_context_ = nullptr;
  Renderer renderer_;
  CameraRig rig_;
  std::unique_ptr<scene::Scene> scene_;
  std::vector<std::vector<std::uint32_t>> objects_by_kind_;  // per kind: object ids by index
  int width_ = 0;
  int height_ = 0;
  std::uint64_t frames_ = 0;
  double last_time_ = 0, fps_ = 0, frame_ms_ = 0;
  int drag_button_ = 0;
  double draw_distance_ = 6000.0;
};

}  // namespace sceneria
