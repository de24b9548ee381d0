#include "render/renderer.hpp"

#include <GLES3/gl3.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/gtc/type_ptr.hpp>

namespace sceneria {

namespace {

constexpr const char* kLineVertex = R"(#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_color;
uniform mat4 u_view_projection;
uniform vec3 u_offset;  // grid origin relative to the eye
out vec3 v_color;
out float v_distance;
void main() {
  vec3 p = a_position + u_offset;
  v_color = a_color;
  v_distance = length(p);
  gl_Position = u_view_projection * vec4(p, 1.0);
}
)";

constexpr const char* kLineFragment = R"(#version 300 es
precision mediump float;
in vec3 v_color;
in float v_distance;
out vec4 o_color;
const vec3 kFog = vec3(0.55, 0.66, 0.78);
void main() {
  float fog = clamp((v_distance - 600.0) / 1400.0, 0.0, 1.0);
  o_color = vec4(mix(v_color, kFog, fog), 1.0);
}
)";

constexpr float kGridHalfExtent = 1000.0f;  // metres each way
constexpr float kGridStep = 10.0f;
constexpr float kGridMajorEvery = 100.0f;
constexpr float kGridSegment = 20.0f;

GLuint compile(GLenum type, const char* source, std::string& error) {
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    error = std::string("shader compile failed: ") + log;
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

Renderer::~Renderer() {
  if (grid_vbo_) glDeleteBuffers(1, &grid_vbo_);
  if (grid_vao_) glDeleteVertexArrays(1, &grid_vao_);
  if (program_) glDeleteProgram(program_);
}

bool Renderer::init(std::string& error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, kLineVertex, error);
  if (!vs) return false;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kLineFragment, error);
  if (!fs) {
    glDeleteShader(vs);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    error = std::string("shader link failed: ") + log;
    return false;
  }
  u_view_projection_ = glGetUniformLocation(program_, "u_view_projection");
  u_offset_ = glGetUniformLocation(program_, "u_offset");
  build_grid();
  glEnable(GL_DEPTH_TEST);
  return true;
}

void Renderer::build_grid() {
  struct Vertex {
    float x, y, z, r, g, b;
  };
  std::vector<Vertex> v;
  // Lines are cut into short segments: SwiftShader (headless Chromium's WebGL) drops a whole line
  // whose far end lies behind the eye instead of clipping it, which blanked the grid near the camera.
  auto line = [&v](glm::vec3 a, glm::vec3 b, glm::vec3 c) {
    const int pieces = std::max(1, static_cast<int>(glm::length(b - a) / kGridSegment));
    for (int k = 0; k < pieces; ++k) {
      const glm::vec3 p0 = a + (b - a) * (static_cast<float>(k) / static_cast<float>(pieces));
      const glm::vec3 p1 = a + (b - a) * (static_cast<float>(k + 1) / static_cast<float>(pieces));
      v.push_back({p0.x, p0.y, p0.z, c.r, c.g, c.b});
      v.push_back({p1.x, p1.y, p1.z, c.r, c.g, c.b});
    }
  };
  const glm::vec3 minor(0.36f, 0.40f, 0.44f);
  const glm::vec3 major(0.62f, 0.66f, 0.70f);
  const float e = kGridHalfExtent;
  const int lines = static_cast<int>(e / kGridStep);
  for (int i = -lines; i <= lines; ++i) {
    if (i == 0) continue;  // the axes take the centre lines
    const float t = static_cast<float>(i) * kGridStep;
    const glm::vec3 c = std::fmod(std::fabs(t), kGridMajorEvery) == 0.0f ? major : minor;
    line({t, 0, -e}, {t, 0, e}, c);
    line({-e, 0, t}, {e, 0, t}, c);
  }
  // Axes: X red, Y (up) green, Z blue, brighter on the positive side; lifted a hair above the
  // grid so they win the depth test.
  const float lift = 0.02f;
  line({-e, lift, 0}, {0, lift, 0}, {0.55f, 0.2f, 0.2f});
  line({0, lift, 0}, {e, lift, 0}, {1.0f, 0.25f, 0.25f});
  line({0, 0, 0}, {0, 200.0f, 0}, {0.3f, 1.0f, 0.35f});
  line({0, lift, -e}, {0, lift, 0}, {0.2f, 0.3f, 0.6f});
  line({0, lift, 0}, {0, lift, e}, {0.3f, 0.5f, 1.0f});
  grid_vertex_count_ = static_cast<int>(v.size());

  glGenVertexArrays(1, &grid_vao_);
  glBindVertexArray(grid_vao_);
  glGenBuffers(1, &grid_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, grid_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(v.size() * sizeof(Vertex)), v.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<void*>(3 * sizeof(float)));
  glBindVertexArray(0);
}

void Renderer::draw_frame(const CameraMatrices& camera, int width, int height) {
  stats_ = {};
  glViewport(0, 0, width, height);
  glClearColor(0.55f, 0.66f, 0.78f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

  glUseProgram(program_);
  glUniformMatrix4fv(u_view_projection_, 1, GL_FALSE, glm::value_ptr(camera.view_projection));
  const glm::vec3 offset(glm::dvec3(0.0) - camera.eye);  // grid is anchored at the world origin
  glUniform3f(u_offset_, offset.x, offset.y, offset.z);
  glBindVertexArray(grid_vao_);
  glDrawArrays(GL_LINES, 0, grid_vertex_count_);
  glBindVertexArray(0);
  stats_.draw_calls += 1;
  stats_.line_vertices += static_cast<std::uint32_t>(grid_vertex_count_);
}

}  // namespace sceneria
