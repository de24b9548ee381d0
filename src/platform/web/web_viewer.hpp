#pragma once
// The browser host for the renderer: SDL2 owns the WebGL2 canvas (#canvas), its input events and
// the GL context; the render loop runs in C++ via emscripten_set_main_loop.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "render/renderer.hpp"

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
  // One frame: events, resize, draw. Called by the loop; also callable directly because headless
  // browsers may deliver no animation frames.
  void frame();
  // Renders a frame and reads back pixels in the same frame (SDL's EGL context has no
  // preserveDrawingBuffer, so JS readPixels after compositing would see black). Rows top-down, RGBA.
  std::vector<std::uint8_t> read_pixels(int x, int y, int w, int h);
  bool project(const glm::dvec3& world, glm::dvec2& out) const;

  int width() const { return width_; }
  int height() const { return height_; }
  std::uint64_t frames() const { return frames_; }
  const FrameStats& stats() const { return renderer_.stats(); }
  OrbitCamera& camera() { return camera_; }

 private:
  void handle_events();
  void sync_canvas_size();

  SDL_Window* window_ = nullptr;
  void* gl_context_ = nullptr;
  Renderer renderer_;
  OrbitCamera camera_;
  int width_ = 0;
  int height_ = 0;
  std::uint64_t frames_ = 0;
  bool dragging_ = false;
  int drag_button_ = 0;
};

}  // namespace sceneria
