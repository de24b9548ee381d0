#include "platform/web/web_viewer.hpp"

#include <GLES3/gl3.h>
#include <SDL2/SDL.h>
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <cstring>

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
  sync_canvas_size();
  emscripten_set_main_loop_arg(loop_trampoline, this, 0, 0);
  return true;
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
        dragging_ = true;
        drag_button_ = e.button.button;
        break;
      case SDL_MOUSEBUTTONUP:
        dragging_ = false;
        break;
      case SDL_MOUSEMOTION:
        if (!dragging_) break;
        if (drag_button_ == SDL_BUTTON_LEFT && !(SDL_GetModState() & KMOD_SHIFT))
          camera_.orbit(e.motion.xrel, e.motion.yrel);
        else
          camera_.pan(e.motion.xrel, e.motion.yrel, height_);
        break;
      case SDL_MOUSEWHEEL:
        camera_.zoom(e.wheel.y > 0 ? 1.0 : (e.wheel.y < 0 ? -1.0 : 0.0));
        break;
      default:
        break;
    }
  }
}

void WebViewer::frame() {
  if (!window_) return;
  handle_events();
  sync_canvas_size();
  renderer_.draw_frame(camera_.matrices(width_, height_), width_, height_);
  ++frames_;
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
  return project_to_window(camera_.matrices(width_, height_), world, width_, height_, out);
}

}  // namespace sceneria
