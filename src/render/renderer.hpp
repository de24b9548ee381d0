#pragma once
// The GLES3 / WebGL2 renderer. It draws what the scene model and cameras give it and knows
// nothing of file formats or of the window system (src/platform/ owns the GL context).
#include <cstdint>
#include <string>

#include "render/camera.hpp"

namespace sceneria {

struct FrameStats {
  std::uint32_t draw_calls = 0;
  std::uint32_t line_vertices = 0;
};

class Renderer {
 public:
  Renderer() = default;
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  ~Renderer();

  // Needs a current GLES3 context. Returns false with a message if shaders fail.
  bool init(std::string& error);
  void draw_frame(const CameraMatrices& camera, int width, int height);
  const FrameStats& stats() const { return stats_; }

 private:
  void build_grid();

  unsigned program_ = 0;
  int u_view_projection_ = -1;
  int u_offset_ = -1;
  unsigned grid_vao_ = 0;
  unsigned grid_vbo_ = 0;
  int grid_vertex_count_ = 0;
  FrameStats stats_;
};

}  // namespace sceneria
