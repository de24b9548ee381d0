#include "render/renderer.hpp"

#include <GLES3/gl3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <glm/gtc/type_ptr.hpp>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

#ifdef __EMSCRIPTEN__
// WEBGL_multi_draw's instanced elements draw, given copies of the three lists. Emscripten's own
// binding hands WebGL views of the whole heap, which with threads is a SharedArrayBuffer; the
// page then drew a frame's gathered draws wrong now and then (2 frames of 54 in
// e2e/textures.spec.mjs under a busy machine, none of 90 with copies): the lists are copied out.
EM_JS(int, has_multi_draw, (), { return GLctx.multiDrawWebgl ? 1 : 0; });
EM_JS(void, multi_draw_copied, (int mode, const int* counts, int type, const int* offsets, const int* instances, int n), {
  GLctx.multiDrawWebgl['multiDrawElementsInstancedWEBGL'](
      mode, HEAP32.slice(counts >> 2, (counts >> 2) + n), 0, type, HEAP32.slice(offsets >> 2, (offsets >> 2) + n), 0,
      HEAP32.slice(instances >> 2, (instances >> 2) + n), 0, n);
});
#endif

namespace sceneria {

namespace {

// Shared lighting and fog; `u_mode` 1 writes object ids (id + 1 as RGBA bytes) for picking.
constexpr const char* kCommonFragment = R"(
uniform vec3 u_light_dir;
uniform vec3 u_fog_color;
uniform vec2 u_fog;  // start, end (metres)
uniform int u_mode;
uniform uint u_highlight;
uniform uvec2 u_hidden;  // objects [first, end) left out of the frame and of picking
out vec4 o_color;
vec4 shade(vec3 color, vec3 normal, float lit, float dist, uint object) {
  if (object >= u_hidden.x && object < u_hidden.y) discard;
  if (u_mode == 1) {
    uint id = object + 1u;
    return vec4(float(id & 255u), float((id >> 8) & 255u), float((id >> 16) & 255u), float((id >> 24) & 255u)) / 255.0;
  }
  float diffuse = max(dot(normalize(normal), u_light_dir), 0.0);
  vec3 c = color * mix(1.0, 0.5 + 0.5 * diffuse, lit);
  if (object == u_highlight && object != 0xFFFFFFFFu) c = mix(c, vec3(1.0, 0.85, 0.1), 0.65);
  float fog = clamp((dist - u_fog.x) / max(u_fog.y - u_fog.x, 1.0), 0.0, 1.0);
  return vec4(mix(c, u_fog_color, fog), 1.0);
}
)";

constexpr const char* kStaticVertex = R"(#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_color;
layout(location = 3) in uint a_object;
uniform mat4 u_view_projection;
uniform vec3 u_offset;  // section origin relative to the eye
out vec3 v_color;
out vec3 v_normal;
out float v_distance;
flat out uint v_object;
void main() {
  vec3 p = a_position + u_offset;
  v_color = a_color.rgb;
  v_normal = a_normal;
  v_distance = length(p);
  v_object = a_object;
  gl_Position = u_view_projection * vec4(p, 1.0);
}
)";

constexpr const char* kStaticFragment = R"(
in vec3 v_color;
in vec3 v_normal;
in float v_distance;
flat in uint v_object;
uniform float u_lit;
void main() { o_color = shade(v_color, v_normal, u_lit, v_distance, v_object); }
)";

// Texture units: 0 for uploads; 1..kArrayUnits hold texture arrays (TextureLayers); then the
// override unit (an array without a unit of its own, bound for one part's draw); then the
// material, texture and mesh tables and the instances the vertex shader reads.
constexpr int kArrayUnits = 12;
constexpr int kOverrideUnit = kArrayUnits + 1;
constexpr int kMaterialTableUnit = kArrayUnits + 2, kTextureTableUnit = kArrayUnits + 3;
constexpr int kMeshTableUnit = kArrayUnits + 4, kInstanceUnit = kArrayUnits + 5;
constexpr int kTableWidth = 1024;  // texels a row of a table

constexpr const char* kInstancedVertex = R"(#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
// x: the vertex's material (into the material table, MeshLayout); y: its mesh (into the mesh
// table). Every mesh lives in a shared slab (MeshPool), so nothing is set per mesh or per draw.
layout(location = 3) in uvec2 a_ids;
uniform mat4 u_view_projection;
uniform float u_pixels_per_unit;  // pixels a 1 m object covers at 1 m (viewport height / 2 tan(fov/2))
// Per material: colour RGBA8, alpha mode, cutoff (float bits), texture (0xFFFFFFFF: none).
uniform highp usampler2D u_materials;
// Per texture: the unit of its array (0: not resident, drawn white) and its layer.
uniform highp usampler2D u_textures;
uniform ivec2 u_override;  // x 1: the texture is on the override unit, layer y (one part's draw)
// Per mesh: its first instance in u_instances this frame; a proxy's least height on screen in
// pixels (float bits; 0: not a proxy); its height in metres (float bits).
uniform highp usampler2D u_meshes;
// Per instance four texels: the rows of its 3x4 matrix (float bits; translation camera-relative),
// then its object id.
uniform highp usampler2D u_instances;
out vec3 v_normal;
out vec2 v_uv;
out float v_distance;
flat out uint v_object;
flat out vec4 v_color;
flat out int v_alpha_mode;
flat out float v_cutoff;
flat out int v_unit;
flat out float v_layer;
uvec4 row(highp usampler2D table, uint i) { return texelFetch(table, ivec2(int(i & 1023u), int(i >> 10)), 0); }
void main() {
  uvec4 mesh = row(u_meshes, a_ids.y);
  uint at = (mesh.x + uint(gl_InstanceID)) * 4u;
  vec4 a_row0 = uintBitsToFloat(row(u_instances, at));
  vec4 a_row1 = uintBitsToFloat(row(u_instances, at + 1u));
  vec4 a_row2 = uintBitsToFloat(row(u_instances, at + 2u));
  uint a_object = row(u_instances, at + 3u).x;
  vec2 a_mesh = uintBitsToFloat(mesh.yz);
  uvec4 m = row(u_materials, a_ids.x);
  v_color = vec4(uvec4(m.x, m.x >> 8, m.x >> 16, m.x >> 24) & 255u) / 255.0;
  v_alpha_mode = int(m.y);
  v_cutoff = uintBitsToFloat(m.z);
  v_unit = 0;
  v_layer = 0.0;
  if (m.w != 0xFFFFFFFFu) {
    uvec4 t = row(u_textures, m.w);
    v_unit = int(t.x);
    v_layer = float(t.y);
  }
  if (u_override.x != 0) {
    v_unit = OVERRIDE_UNIT;
    v_layer = float(u_override.y);
  }
  v_uv = a_uv;
  vec3 t = vec3(a_row0.w, a_row1.w, a_row2.w);
  vec3 local = vec3(dot(a_row0.xyz, a_position), dot(a_row1.xyz, a_position), dot(a_row2.xyz, a_position));
  // Far away, a proxy grows about its origin so it stays visible (and clickable).
  float size = a_mesh.y * length(vec3(a_row0.y, a_row1.y, a_row2.y));
  float pixels = size / max(length(t), 1.0) * u_pixels_per_unit;
  float grow = a_mesh.x > 0.0 ? max(1.0, a_mesh.x / max(pixels, 1e-3)) : 1.0;
  vec3 world = t + local * grow;
  v_normal = vec3(dot(a_row0.xyz, a_normal), dot(a_row1.xyz, a_normal), dot(a_row2.xyz, a_normal));
  v_distance = length(world);
  v_object = a_object;
  gl_Position = u_view_projection * vec4(world, 1.0);
}
)";

// A part's material: base colour times texture; mask discards below the cutoff (in the id pass
// too, so holes are not clickable); blend keeps the alpha; a two-sided back face is lit as front.
// GLSL ES 3.00 indexes samplers by constants only, hence a branch per unit: v_unit is flat (the
// same over a triangle), and the gradients are taken before branching.
constexpr const char* kInstancedFragment = R"(
in vec3 v_normal;
in vec2 v_uv;
in float v_distance;
flat in uint v_object;
flat in vec4 v_color;
flat in int v_alpha_mode;  // 0 opaque, 1 mask, 2 blend
flat in float v_cutoff;
flat in int v_unit;
flat in float v_layer;
SAMPLERS
vec4 texel() {
  vec2 dx = dFdx(v_uv), dy = dFdy(v_uv);
  vec3 at = vec3(v_uv, v_layer);
BRANCHES
  return vec4(1.0);
}
void main() {
  vec4 c = v_color * texel();
  if (v_alpha_mode == 1 && c.a < v_cutoff) discard;
  vec4 lit = shade(c.rgb, gl_FrontFacing ? v_normal : -v_normal, 1.0, v_distance, v_object);
  o_color = (u_mode == 0 && v_alpha_mode == 2) ? vec4(lit.rgb, c.a) : lit;
}
)";

std::string replaced(std::string text, const std::string& what, const std::string& with) {
  const std::size_t at = text.find(what);
  return at == std::string::npos ? text : text.replace(at, what.size(), with);
}

std::string instanced_vertex() { return replaced(kInstancedVertex, "OVERRIDE_UNIT", std::to_string(kOverrideUnit)); }

std::string instanced_fragment() {
  std::string samplers, branches;
  for (int u = 1; u <= kOverrideUnit; ++u) {
    samplers += "uniform mediump sampler2DArray u_t" + std::to_string(u) + ";\n";
    branches += "  if (v_unit == " + std::to_string(u) + ") return textureGrad(u_t" + std::to_string(u) + ", at, dx, dy);\n";
  }
  return replaced(replaced(kInstancedFragment, "SAMPLERS\n", samplers), "BRANCHES\n", branches);
}

constexpr const char* kSkyVertex = R"(#version 300 es
out vec2 v_ndc;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;
  v_ndc = p;
  gl_Position = vec4(p, 0.99999, 1.0);  // just inside the far plane: exactly 1.0 may be clipped
}
)";

constexpr const char* kSkyFragment = R"(#version 300 es
precision highp float;
in vec2 v_ndc;
uniform mat4 u_inverse_view_projection;
uniform vec3 u_fog_color;
out vec4 o_color;
void main() {
  // Any depth on the pixel's ray gives its direction (the eye is the origin); the far plane at 1e6 m
  // loses float precision, a middle depth does not.
  vec4 far = u_inverse_view_projection * vec4(v_ndc, 0.0, 1.0);
  vec3 dir = normalize(far.xyz / far.w);
  float up = clamp(dir.y, 0.0, 1.0);
  vec3 zenith = vec3(0.28, 0.46, 0.74);
  vec3 below = mix(u_fog_color * 0.95, u_fog_color * 0.72, pow(clamp(-dir.y, 0.0, 1.0), 0.6));  // ground haze
  vec3 c = dir.y >= 0.0 ? mix(u_fog_color, zenith, pow(up, 0.55)) : below;
  o_color = vec4(c, 1.0);
}
)";

const glm::vec3 kFogColor(0.66f, 0.74f, 0.82f);
constexpr float kProxyMinPixels = 4.0f;
const glm::vec3 kLightDir = glm::normalize(glm::vec3(0.45f, 0.8f, 0.35f));

GLuint compile(GLenum type, const std::string& source, std::string& error) {
  GLuint shader = glCreateShader(type);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    error = std::string("shader compile failed: ") + log;
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

GLuint link(const std::string& vs_source, const std::string& fs_source, std::string& error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vs_source, error);
  if (!vs) return 0;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fs_source, error);
  if (!fs) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    error = std::string("shader link failed: ") + log;
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

std::string fragment(const char* body) {
  return std::string("#version 300 es\nprecision highp float;\nprecision highp int;\n") + kCommonFragment + body;
}

GLint loc(GLuint program, const char* name) { return glGetUniformLocation(program, name); }

struct StaticVertex {  // 32 bytes, interleaved
  glm::vec3 position;
  glm::vec3 normal;
  std::uint32_t color;
  std::uint32_t object;
};

void static_layout() {
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(StaticVertex), reinterpret_cast<void*>(0));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(StaticVertex), reinterpret_cast<void*>(12));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(StaticVertex), reinterpret_cast<void*>(24));
  glEnableVertexAttribArray(3);
  glVertexAttribIPointer(3, 1, GL_UNSIGNED_INT, sizeof(StaticVertex), reinterpret_cast<void*>(28));
}

}  // namespace

Renderer::~Renderer() {
  release_scene();
  if (grid_vbo_) glDeleteBuffers(1, &grid_vbo_);
  if (grid_vao_) glDeleteVertexArrays(1, &grid_vao_);
  if (sky_vao_) glDeleteVertexArrays(1, &sky_vao_);
  if (pick_fbo_) glDeleteFramebuffers(1, &pick_fbo_);
  if (pick_color_) glDeleteRenderbuffers(1, &pick_color_);
  if (pick_depth_) glDeleteRenderbuffers(1, &pick_depth_);
  for (unsigned t : {material_table_, texture_table_, mesh_table_, instance_texture_})
    if (t) glDeleteTextures(1, &t);
  for (GLuint p : {static_program_, instanced_program_, sky_program_})
    if (p) glDeleteProgram(p);
}

bool Renderer::init(std::string& error) {
  static_program_ = link(kStaticVertex, fragment(kStaticFragment), error);
  if (!static_program_) return false;
  instanced_program_ = link(instanced_vertex(), fragment(instanced_fragment().c_str()), error);
  if (!instanced_program_) return false;
  // Samplers name their units once: the program keeps them.
  glUseProgram(instanced_program_);
  for (int u = 1; u <= kOverrideUnit; ++u) glUniform1i(loc(instanced_program_, ("u_t" + std::to_string(u)).c_str()), u);
  glUniform1i(loc(instanced_program_, "u_materials"), kMaterialTableUnit);
  glUniform1i(loc(instanced_program_, "u_textures"), kTextureTableUnit);
  glUniform1i(loc(instanced_program_, "u_meshes"), kMeshTableUnit);
  glUniform1i(loc(instanced_program_, "u_instances"), kInstanceUnit);
  u_override_ = loc(instanced_program_, "u_override");
  glUseProgram(0);
  sky_program_ = link(kSkyVertex, kSkyFragment, error);
  if (!sky_program_) return false;
  glGenVertexArrays(1, &sky_vao_);
  build_grid();
  for (unsigned* table : {&material_table_, &texture_table_, &mesh_table_, &instance_texture_}) {
    glGenTextures(1, table);
    glBindTexture(GL_TEXTURE_2D, *table);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  }
  GLint max_layers = 0;
  glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &max_layers);
  layers_.reset(kArrayUnits, static_cast<std::uint32_t>(std::clamp(max_layers, 1, 256)));
  unit_bound_.assign(kArrayUnits + 1, 0);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  // Emscripten lists the WebGL extensions it enabled, with and without a GL_ prefix.
  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint i = 0; i < count && !s3tc_; ++i)
    if (const auto* name = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i))))
      s3tc_ = std::strstr(name, "compressed_texture_s3tc") != nullptr && std::strstr(name, "srgb") == nullptr;
  stats_.s3tc = s3tc_;  // known before the first frame: the page asks at once
#ifdef __EMSCRIPTEN__
  has_multi_draw_ = multi_draw_ = has_multi_draw() != 0;
#endif
  // WebGL tells nothing of memory, so the budget is inferred from the one size it gives (an
  // inference: 16384-texel contexts are desktop GPUs with gigabytes, 4096 old phones): a quarter
  // of what such devices have at least, leaving the rest to the page and the rest of the system.
  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  max_instance_rows_ = static_cast<std::size_t>(std::max(max_texture, 1));
  residency_.set_budget(max_texture >= 16384 ? 1024ull << 20 : max_texture >= 8192 ? kDefaultGpuBudget : 256ull << 20);
  stats_.gpu_budget = residency_.budget();
  return true;
}

void Renderer::build_grid() {
  // The ground grid (shown when there is no scene): 10 m lines over ±1 km, cut into 20 m pieces
  // because SwiftShader drops a whole line whose far end lies behind the eye.
  std::vector<StaticVertex> v;
  auto line = [&v](glm::vec3 a, glm::vec3 b, std::uint32_t c) {
    const int pieces = std::max(1, static_cast<int>(glm::length(b - a) / 20.0f));
    for (int k = 0; k < pieces; ++k) {
      v.push_back({a + (b - a) * (static_cast<float>(k) / static_cast<float>(pieces)), {0, 1, 0}, c, scene::kNoObject});
      v.push_back({a + (b - a) * (static_cast<float>(k + 1) / static_cast<float>(pieces)), {0, 1, 0}, c, scene::kNoObject});
    }
  };
  const std::uint32_t minor = scene::rgba(0.45f, 0.50f, 0.55f), major = scene::rgba(0.70f, 0.74f, 0.78f);
  const float e = 1000.0f;
  for (int i = -100; i <= 100; ++i) {
    if (i == 0) continue;
    const float t = static_cast<float>(i) * 10.0f;
    const std::uint32_t c = i % 10 == 0 ? major : minor;
    line({t, 0, -e}, {t, 0, e}, c);
    line({-e, 0, t}, {e, 0, t}, c);
  }
  grid_lines_ = static_cast<int>(v.size());  // the axes follow: drawn only for an empty view
  line({-e, 0.02f, 0}, {0, 0.02f, 0}, scene::rgba(0.55f, 0.2f, 0.2f));
  line({0, 0.02f, 0}, {e, 0.02f, 0}, scene::rgba(1.0f, 0.25f, 0.25f));
  line({0, 0, 0}, {0, 200, 0}, scene::rgba(0.3f, 1.0f, 0.35f));
  line({0, 0.02f, -e}, {0, 0.02f, 0}, scene::rgba(0.2f, 0.3f, 0.6f));
  line({0, 0.02f, 0}, {0, 0.02f, e}, scene::rgba(0.3f, 0.5f, 1.0f));
  grid_count_ = static_cast<int>(v.size());
  glGenVertexArrays(1, &grid_vao_);
  glBindVertexArray(grid_vao_);
  glGenBuffers(1, &grid_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, grid_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(v.size() * sizeof(StaticVertex)), v.data(), GL_STATIC_DRAW);
  static_layout();
  glBindVertexArray(0);
}

void Renderer::release_scene() {
  for (auto& list : section_batches_)
    for (GpuBatch& b : list) {
      glDeleteBuffers(1, &b.vbo);
      glDeleteVertexArrays(1, &b.vao);
    }
  section_batches_.clear();
  meshes_.clear();
  for (const MeshPool::Slab& slab : pool_.slabs())
    if (slab.live) delete_slab(slab);
  pool_.reset();
  for (const TextureLayers::Array& a : layers_.arrays())
    if (a.live && a.gl) glDeleteTextures(1, &a.gl);
  layers_.reset(layers_.units(), layers_.max_layers());
  std::fill(unit_bound_.begin(), unit_bound_.end(), 0u);
  textures_.clear();
  materials_dirty_ = textures_dirty_ = meshes_dirty_ = true;
  residency_.clear();
  residency_.set_fixed(0);
  textures_compressed_ = textures_decoded_here_ = 0;
  static_bytes_ = 0;
  scene_ = nullptr;
  prepared_ = {};
}

void Renderer::set_scene(const scene::Scene* scene) {
  release_scene();
  highlight_ = scene::kNoObject;
  if (!scene) return;
  scene_ = scene;
  prepare(*scene, prepared_);
  section_batches_.resize(scene->sections.size());
  for (std::size_t s = 0; s < scene->sections.size(); ++s) upload_batches(s);
  track_scene();
  glBindVertexArray(0);
}

// A section's static batches, uploaded again whole when a delta adds some (a scenery's shapes
// arriving after its track).
void Renderer::upload_batches(std::size_t s) {
  const scene::Section& section = scene_->sections[s];
  std::size_t uploaded = 0;
  for (const scene::Batch& b : section.batches) uploaded += b.positions.empty() ? 0 : 1;
  if (section_batches_[s].size() == uploaded) return;
  for (GpuBatch& g : section_batches_[s]) {
    static_bytes_ -= static_cast<std::size_t>(g.count) * sizeof(StaticVertex);
    glDeleteBuffers(1, &g.vbo);
    glDeleteVertexArrays(1, &g.vao);
  }
  section_batches_[s].clear();
  std::vector<StaticVertex> staging;
  for (const scene::Batch& b : section.batches) {
    if (b.positions.empty()) continue;
    staging.resize(b.positions.size());
    for (std::size_t i = 0; i < b.positions.size(); ++i)
      staging[i] = {b.positions[i], i < b.normals.size() ? b.normals[i] : glm::vec3(0, 1, 0),
                    i < b.colors.size() ? b.colors[i] : 0xFFFFFFFFu, i < b.objects.size() ? b.objects[i] : scene::kNoObject};
    GpuBatch g;
    g.count = static_cast<int>(staging.size());
    g.lines = b.primitive == scene::Batch::Primitive::lines;
    g.overlay = b.overlay;
    glGenVertexArrays(1, &g.vao);
    glBindVertexArray(g.vao);
    glGenBuffers(1, &g.vbo);
    glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(staging.size() * sizeof(StaticVertex)), staging.data(),
                 GL_STATIC_DRAW);
    static_layout();
    static_bytes_ += staging.size() * sizeof(StaticVertex);
    section_batches_[s].push_back(g);
  }
  glBindVertexArray(0);
}

namespace {

// The EXT_texture_compression_s3tc formats (not in the GLES3 headers).
constexpr GLenum kRgbaS3tcDxt1 = 0x83F1, kRgbaS3tcDxt3 = 0x83F2, kRgbaS3tcDxt5 = 0x83F3;

void sampling(int levels) {
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, levels - 1);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_REPEAT);
}

// A block-compressed texture's complete levels, level 0 down (a short one ends the chain):
// `use(level, w, h, bytes)` for each; returns their bytes. What is sized and what is uploaded
// walk the same chain.
template <class Use>
std::uint64_t block_levels(const scene::Texture& t, std::size_t block, Use&& use) {
  std::uint64_t total = 0;
  std::size_t level = 0;
  for (std::uint32_t w = t.width, h = t.height; level < t.levels.size(); w = std::max(1u, w / 2), h = std::max(1u, h / 2), ++level) {
    const std::size_t need = std::size_t{(w + 3) / 4} * ((h + 3) / 4) * block;
    if (t.levels[level].size() < need) break;
    use(level, w, h, need);
    total += need;
    if (w == 1 && h == 1) break;
  }
  return total;
}

}  // namespace

LayerShape Renderer::layer_shape(const scene::Texture& t) const {
  using Format = scene::Texture::Format;
  LayerShape shape;
  if (t.levels.empty() || !t.width || !t.height) return shape;
  const bool blocks = t.format == Format::bc1 || t.format == Format::bc2 || t.format == Format::bc3;
  // Blocks go to the GPU as they are where the context takes them; WebGL wants level 0 in whole
  // blocks (a 250x250 texture is decoded instead).
  if (blocks && s3tc_ && t.width % 4 == 0 && t.height % 4 == 0) {
    shape = {t.format == Format::bc1 ? kRgbaS3tcDxt1 : t.format == Format::bc2 ? kRgbaS3tcDxt3 : kRgbaS3tcDxt5, t.width, t.height, 0, 0};
    shape.bytes = block_levels(t, t.format == Format::bc1 ? 8 : 16, [&](std::size_t, std::uint32_t, std::uint32_t, std::size_t) { ++shape.levels; });
    if (!shape.levels) shape.format = 0;
    return shape;
  }
  if (!blocks && !(t.format == Format::rgba8 && t.levels[0].size() >= std::size_t{t.width} * t.height * 4)) return shape;
  // RGBA8 (decoded here if blocks), with every mip level down to 1x1, made here (see upload_layer).
  shape = {GL_RGBA8, t.width, t.height, 0, 0};
  for (std::uint32_t w = t.width, h = t.height;; w = std::max(1u, w / 2), h = std::max(1u, h / 2)) {
    ++shape.levels;
    shape.bytes += std::uint64_t{w} * h * 4;
    if (w == 1 && h == 1) break;
  }
  return shape;
}

std::uint64_t Renderer::texture_bytes(std::uint32_t t) {
  GpuTexture& g = textures_[t];
  if (!g.sized) g.bytes = layer_shape(scene_->textures[t]).bytes, g.sized = true;
  return g.bytes;
}

namespace {

// The next mip level of RGBA8 pixels: each texel the mean of the 2x2 (or 2x1 at an odd edge) it
// covers, rounded.
void half_rgba8(const std::uint8_t* src, std::uint32_t w, std::uint32_t h, std::vector<std::uint8_t>& out) {
  const std::uint32_t hw = std::max(1u, w / 2), hh = std::max(1u, h / 2);
  out.resize(std::size_t{hw} * hh * 4);
  for (std::uint32_t y = 0; y < hh; ++y) {
    const std::uint32_t y0 = std::min(2 * y, h - 1), y1 = std::min(2 * y + 1, h - 1);
    for (std::uint32_t x = 0; x < hw; ++x) {
      const std::uint32_t x0 = std::min(2 * x, w - 1), x1 = std::min(2 * x + 1, w - 1);
      for (int c = 0; c < 4; ++c) {
        const unsigned sum = src[(std::size_t{y0} * w + x0) * 4 + c] + src[(std::size_t{y0} * w + x1) * 4 + c] +
                             src[(std::size_t{y1} * w + x0) * 4 + c] + src[(std::size_t{y1} * w + x1) * 4 + c];
        out[(std::size_t{y} * hw + x) * 4 + c] = static_cast<std::uint8_t>((sum + 2) / 4);
      }
    }
  }
}

}  // namespace

bool Renderer::upload_layer(const TextureLayers::Array& array, std::uint32_t layer, const scene::Texture& t, bool count) {
  using Format = scene::Texture::Format;
  const LayerShape& shape = array.shape;
  const auto z = static_cast<GLint>(layer);
  if (shape.format != GL_RGBA8) {
    const std::size_t block = t.format == Format::bc1 ? 8 : 16;
    block_levels(t, block, [&](std::size_t level, std::uint32_t w, std::uint32_t h, std::size_t need) {
      if (level < shape.levels)
        glCompressedTexSubImage3D(GL_TEXTURE_2D_ARRAY, static_cast<GLint>(level), 0, 0, z, static_cast<GLsizei>(w), static_cast<GLsizei>(h), 1,
                                  shape.format, static_cast<GLsizei>(need), t.levels[level].data());
    });
    textures_compressed_ += count;
    return true;
  }
  std::vector<std::uint8_t> decoded, next;
  const std::uint8_t* pixels = nullptr;
  if (t.format == Format::rgba8) {
    pixels = t.levels[0].data();
  } else {
    decoded = scene::decode_blocks(t.format, t.width, t.height, t.levels[0]);
    if (decoded.size() < std::size_t{t.width} * t.height * 4) return false;
    pixels = decoded.data();
    textures_decoded_here_ += count;
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  // A texture array's mips cannot be generated for one layer: they are made here.
  std::uint32_t w = t.width, h = t.height;
  for (GLint level = 0;; ++level) {
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, level, 0, 0, z, static_cast<GLsizei>(w), static_cast<GLsizei>(h), 1, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    if (w == 1 && h == 1) break;
    half_rgba8(pixels, w, h, next);
    decoded.swap(next);
    pixels = decoded.data();
    w = std::max(1u, w / 2), h = std::max(1u, h / 2);
  }
  return true;
}

// A GL texture array deleted, and forgotten by the units that had it bound (a name GL hands out
// again must not look bound already).
void Renderer::delete_array(unsigned gl) {
  if (!gl) return;
  glDeleteTextures(1, &gl);
  for (unsigned& bound : unit_bound_)
    if (bound == gl) bound = 0;
}

bool Renderer::build_array(std::uint32_t a, std::uint32_t counted) {
  TextureLayers::Array& array = layers_.arrays()[a];
  delete_array(array.gl);
  glGenTextures(1, &array.gl);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D_ARRAY, array.gl);
  const LayerShape& shape = array.shape;
  glTexStorage3D(GL_TEXTURE_2D_ARRAY, static_cast<GLsizei>(shape.levels), shape.format, static_cast<GLsizei>(shape.width),
                 static_cast<GLsizei>(shape.height), static_cast<GLsizei>(array.layers.size()));
  sampling(static_cast<int>(shape.levels));
  bool counted_uploaded = true;
  for (std::uint32_t layer = 0; layer < array.layers.size(); ++layer) {
    const std::uint32_t t = array.layers[layer];
    if (t == TextureLayers::kNone) continue;
    const bool ok = upload_layer(array, layer, scene_->textures[t], t == counted);
    if (t == counted) counted_uploaded = ok;
    textures_[t].array = a;
    textures_[t].layer = layer;
  }
  textures_dirty_ = true;
  return counted_uploaded;
}

void Renderer::compact_layers() {
  layers_.compact(rebuilt_scratch_, deleted_scratch_);
  for (unsigned gl : deleted_scratch_) delete_array(gl);
  for (std::uint32_t a : rebuilt_scratch_) build_array(a, TextureLayers::kNone);
  textures_dirty_ = true;
}

void Renderer::set_texture_units(int units) {
  layers_.set_units(std::clamp(units, 0, kArrayUnits));
  textures_dirty_ = true;
}

void Renderer::track_scene() {
  if (meshes_.size() != scene_->meshes.size()) meshes_dirty_ = true;
  meshes_.resize(scene_->meshes.size());
  textures_.resize(scene_->textures.size());
}

void Renderer::replace_meshes(const std::vector<std::uint32_t>& ids) {
  if (!scene_) return;
  track_scene();
  // A delta may have given pixels to a texture that had none (scene::adopt_looks): look again.
  for (GpuTexture& t : textures_) t.no_pixels = t.sized = false;
  materials_dirty_ = meshes_dirty_ = true;  // a model's height and proxy flag are not its proxy's
  // Uploaded again, with the textures that came with them, when a frame next draws them.
  for (std::uint32_t id : ids) {
    if (id >= meshes_.size()) continue;
    residency_.release(mesh_item(id));
    release_mesh(meshes_[id]);
  }
  compact_pool();
  residency_.set_fixed(fixed_bytes());
}

void Renderer::release_mesh(GpuMesh& g) {
  if (g.resident) pool_.free(g.place, g.vertices, g.indices);
  g = {};
}

void Renderer::delete_slab(const MeshPool::Slab& slab) {
  glDeleteVertexArrays(1, &slab.vao);
  for (unsigned b : {slab.vbo, slab.ids, slab.ibo}) glDeleteBuffers(1, &b);
}

void Renderer::compact_pool() {
  pool_.compact(rebuild_scratch_, gone_scratch_);
  for (std::uint32_t s : gone_scratch_) {
    delete_slab(pool_.slabs()[s]);
    pool_.drop(s);
  }
  for (std::uint32_t s : rebuild_scratch_) rebuild_slab(s);
}

void Renderer::rebuild_slab(std::uint32_t s) {
  members_scratch_.clear();
  for (std::size_t m = 0; m < meshes_.size(); ++m)
    if (meshes_[m].resident && meshes_[m].place.slab == s) members_scratch_.push_back(static_cast<std::uint32_t>(m));
  // Laid out again first: the new storage is sized to what they take now.
  if (layouts_scratch_.size() < members_scratch_.size()) layouts_scratch_.resize(members_scratch_.size());
  std::uint64_t vertices = 0, indices = 0;
  for (std::size_t k = 0; k < members_scratch_.size(); ++k) {
    lay_out_mesh(scene_->meshes[members_scratch_[k]], scene_->materials, layouts_scratch_[k]);
    vertices += layouts_scratch_[k].materials.size();
    indices += layouts_scratch_[k].indices.size();
  }
  const auto v = static_cast<std::uint32_t>(std::min<std::uint64_t>(vertices, UINT32_MAX));
  const auto i = static_cast<std::uint32_t>(std::min<std::uint64_t>(indices, UINT32_MAX));
  pool_.clear_slab(s, std::max(v, 1u), std::max(i, 1u));
  remake_slab(s, 0, 0);
  for (std::size_t k = 0; k < members_scratch_.size(); ++k) {
    const MeshLayout& layout = layouts_scratch_[k];
    MeshPool::Plan plan{s, std::max(v, 1u), std::max(i, 1u), 0};
    bool grown = false;
    const MeshPool::Place place = pool_.place(plan, static_cast<std::uint32_t>(layout.materials.size()),
                                              static_cast<std::uint32_t>(layout.indices.size()), grown);
    upload_mesh(members_scratch_[k], layout, place, false);
  }
}

void Renderer::remake_slab(std::uint32_t s, std::uint32_t keep_vertices, std::uint32_t keep_indices) {
  MeshPool::Slab& slab = pool_.slabs()[s];
  if (!slab.vao) glGenVertexArrays(1, &slab.vao);
  glBindVertexArray(slab.vao);
  // A buffer of the new size with the old one's first `keep` bytes copied over on the GPU.
  const auto remake = [](unsigned& buffer, GLenum target, std::uint64_t bytes, std::uint64_t keep) {
    unsigned fresh = 0;
    glGenBuffers(1, &fresh);
    glBindBuffer(target, fresh);
    glBufferData(target, static_cast<GLsizeiptr>(bytes), nullptr, GL_STATIC_DRAW);
    if (buffer) {
      if (keep) {
        glBindBuffer(GL_COPY_READ_BUFFER, buffer);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, target, 0, 0, static_cast<GLsizeiptr>(keep));
      }
      glDeleteBuffers(1, &buffer);
    }
    buffer = fresh;
  };
  remake(slab.vbo, GL_ARRAY_BUFFER, std::uint64_t{slab.vertex_capacity} * 32, std::uint64_t{keep_vertices} * 32);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 32, reinterpret_cast<void*>(0));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 32, reinterpret_cast<void*>(12));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 32, reinterpret_cast<void*>(24));
  remake(slab.ids, GL_ARRAY_BUFFER, std::uint64_t{slab.vertex_capacity} * 8, std::uint64_t{keep_vertices} * 8);
  glEnableVertexAttribArray(3);
  glVertexAttribIPointer(3, 2, GL_UNSIGNED_INT, 8, reinterpret_cast<void*>(0));
  remake(slab.ibo, GL_ELEMENT_ARRAY_BUFFER, std::uint64_t{slab.index_capacity} * 4, std::uint64_t{keep_indices} * 4);
  glBindVertexArray(0);
}

// Vertices (32 bytes) and their material and mesh numbers (8), the indices: as uploaded where no
// vertex is shared across materials (ensure_mesh holds what it really took).
std::uint64_t Renderer::mesh_bytes(const scene::Mesh& m) const {
  return std::uint64_t{m.positions.size()} * MeshPool::kVertexBytes + std::uint64_t{m.indices.size()} * MeshPool::kIndexBytes;
}

std::uint64_t Renderer::fixed_bytes() const {
  return static_bytes_ + instance_capacity_ + layers_.slack() + pool_.slack();
}

void Renderer::let_go(std::vector<std::uint32_t>& items) {
  bool layers_freed = false, meshes_freed = false;
  for (std::uint32_t item : items) {
    if (item % 2 == 0) {
      release_mesh(meshes_[item / 2]);
      meshes_freed = true;
    } else if (GpuTexture& t = textures_[item / 2]; t.array != TextureLayers::kNone) {
      layers_.free(t.array, t.layer);
      t.array = TextureLayers::kNone;
      layers_freed = true;
    }
  }
  items.clear();
  // A free layer still takes its bytes: the arrays shrink to what they hold.
  if (layers_freed) compact_layers();
  if (meshes_freed) compact_pool();
  residency_.set_fixed(fixed_bytes());
}

bool Renderer::ensure_mesh(std::size_t m) {
  if (residency_.held(mesh_item(m))) return true;
  const scene::Mesh& mesh = scene_->meshes[m];
  lay_out_mesh(mesh, scene_->materials, layout_scratch_);
  const auto vertices = static_cast<std::uint32_t>(layout_scratch_.materials.size());
  const auto indices = static_cast<std::uint32_t>(layout_scratch_.indices.size());
  const std::uint64_t bytes = vertices * MeshPool::kVertexBytes + indices * MeshPool::kIndexBytes;
  // Room for what the pool grows by (nothing where a hole takes it: its bytes are counted already,
  // as slack); letting go of others may shrink slabs: then planned again.
  MeshPool::Plan plan;
  for (;;) {  // each round lets something go, or ends
    plan = pool_.plan(vertices, indices, false);
    if (!residency_.make_room(plan.bytes, let_go_)) {
      plan = pool_.plan(vertices, indices, true);
      if (!residency_.make_room(plan.bytes, let_go_)) return false;
    }
    if (let_go_.empty()) break;
    let_go(let_go_);
  }
  const MeshPool::Slab* before = plan.slab != MeshPool::kNone ? &pool_.slabs()[plan.slab] : nullptr;
  const std::uint32_t keep_vertices = before ? before->vertex_end : 0, keep_indices = before ? before->index_end : 0;
  bool grown = false;
  const MeshPool::Place place = pool_.place(plan, vertices, indices, grown);
  if (grown) remake_slab(place.slab, keep_vertices, keep_indices);
  upload_mesh(m, layout_scratch_, place, true);
  residency_.hold(mesh_item(m), bytes);
  residency_.set_fixed(fixed_bytes());
  return true;
}

bool Renderer::ensure_texture(std::uint32_t t) {
  if (t >= textures_.size() || textures_[t].no_pixels || residency_.held(texture_item(t))) return true;
  GpuTexture& g = textures_[t];
  const LayerShape shape = layer_shape(scene_->textures[t]);
  g.no_pixels = shape.format == 0;  // drawn in its material's colour
  if (g.no_pixels) return true;
  // Room for a free layer, or for an array grown (doubled where that fits, else by one layer).
  // Letting go of others may shrink arrays of this shape: then planned again.
  TextureLayers::Plan plan;
  for (;;) {  // each round lets something go, or ends
    plan = layers_.plan(shape, false);
    if (!residency_.make_room(plan.bytes, let_go_)) {
      plan = layers_.plan(shape, true);
      if (!residency_.make_room(plan.bytes, let_go_)) return false;
    }
    if (let_go_.empty()) break;
    let_go(let_go_);
  }
  bool rebuilt = false;
  const std::uint32_t layer = layers_.place(plan, shape, t, rebuilt);
  const std::uint32_t a = plan.array;
  g.array = a;
  g.layer = layer;
  const bool first = !g.counted;
  g.counted = true;
  bool uploaded = true;
  if (rebuilt) {
    uploaded = build_array(a, first ? t : TextureLayers::kNone);  // uploads this one too
  } else {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D_ARRAY, layers_.arrays()[a].gl);
    uploaded = upload_layer(layers_.arrays()[a], layer, scene_->textures[t], first);
  }
  if (!uploaded) {  // its blocks would not decode: drawn white
    layers_.free(a, layer);
    g.array = TextureLayers::kNone;
    g.no_pixels = true;
    compact_layers();
    residency_.set_fixed(fixed_bytes());
    return true;
  }
  residency_.hold(texture_item(t), shape.bytes);
  residency_.set_fixed(fixed_bytes());
  textures_dirty_ = true;
  return true;
}

void Renderer::make_resident() {
  residency_.begin_frame();
  residency_.set_fixed(fixed_bytes());
  meshes_waiting_ = textures_waiting_ = 0;
  mesh_ready_.assign(meshes_.size(), 0);
  const auto texture_of = [&](const scene::Part& p) {
    return p.material < scene_->materials.size() ? scene_->materials[p.material].texture : scene::kNoTexture;
  };
  // What this frame draws, in mesh order (the same meshes win every frame: nothing flickers
  // in and out), as far as the budget reaches. What is here of it is marked used first, so that
  // making room never lets go of it; what is here beyond it is let go.
  ++frame_;
  texture_frame_.resize(textures_.size());
  const std::uint64_t room = residency_.budget() > residency_.fixed() ? residency_.budget() - residency_.fixed() : 0;
  std::uint64_t wanted = 0;
  const std::size_t meshes = std::min(meshes_.size(), plan_.mesh_count.size());
  for (std::size_t m = 0; m < meshes; ++m) {
    if (!plan_.mesh_count[m]) continue;
    std::uint64_t bytes = mesh_bytes(scene_->meshes[m]);
    for (const scene::Part& p : scene_->meshes[m].parts)
      if (const std::uint32_t t = texture_of(p); t < textures_.size() && texture_frame_[t] != frame_) bytes += texture_bytes(t);
    if (wanted + bytes > room) {
      ++meshes_waiting_;
      continue;
    }
    wanted += bytes;
    mesh_ready_[m] = 1;
    residency_.touch(mesh_item(m));
    for (const scene::Part& p : scene_->meshes[m].parts)
      if (const std::uint32_t t = texture_of(p); t < textures_.size()) {
        texture_frame_[t] = frame_;
        residency_.touch(texture_item(t));
      }
  }
  residency_.trim(let_go_);
  let_go(let_go_);
  for (std::size_t m = 0; m < meshes; ++m) {
    if (!mesh_ready_[m]) continue;
    if (!ensure_mesh(m)) {
      mesh_ready_[m] = 0;
      ++meshes_waiting_;
      continue;
    }
    for (const scene::Part& p : scene_->meshes[m].parts)
      if (!ensure_texture(texture_of(p))) ++textures_waiting_;
  }
  glBindVertexArray(0);
  upload_tables();
}

void Renderer::upload_tables() {
  const auto upload = [](unsigned table, int unit, const std::vector<std::uint32_t>& rows) {
    const std::size_t n = rows.size() / 4;
    const GLsizei w = static_cast<GLsizei>(std::clamp<std::size_t>(n, 1, kTableWidth));
    const GLsizei h = static_cast<GLsizei>(std::max<std::size_t>(1, (n + kTableWidth - 1) / kTableWidth));
    std::vector<std::uint32_t> texels(static_cast<std::size_t>(w) * h * 4, 0xFFFFFFFFu);
    std::copy(rows.begin(), rows.end(), texels.begin());
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));  // where it stays bound
    glBindTexture(GL_TEXTURE_2D, table);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32UI, w, h, 0, GL_RGBA_INTEGER, GL_UNSIGNED_INT, texels.data());
  };
  std::vector<std::uint32_t> rows;
  // A material names a texture of the texture table, or none (a number past it reads as none).
  if (materials_dirty_ || material_rows_ != scene_->materials.size() || texture_rows_ != textures_.size()) {
    rows.reserve(scene_->materials.size() * 4);
    for (const scene::Material& m : scene_->materials) {
      std::uint32_t cutoff;
      std::memcpy(&cutoff, &m.alpha_cutoff, 4);
      rows.insert(rows.end(), {m.color, static_cast<std::uint32_t>(m.alpha), cutoff, m.texture < textures_.size() ? m.texture : 0xFFFFFFFFu});
    }
    upload(material_table_, kMaterialTableUnit, rows);
    material_rows_ = scene_->materials.size();
    materials_dirty_ = false;
  }
  if (textures_dirty_ || texture_rows_ != textures_.size()) {
    rows.clear();
    rows.reserve(textures_.size() * 4);
    for (const GpuTexture& t : textures_) {
      const int unit = t.array != TextureLayers::kNone ? layers_.arrays()[t.array].unit : 0;
      rows.insert(rows.end(), {static_cast<std::uint32_t>(unit), t.layer, 0u, 0u});
    }
    upload(texture_table_, kTextureTableUnit, rows);
    texture_rows_ = textures_.size();
    textures_dirty_ = false;
  }
  // Where each mesh's instances start moves only when the plan lays its rooms out anew.
  if (meshes_dirty_ || mesh_table_layouts_ != plan_.layouts) {
    rows.clear();
    rows.reserve(meshes_.size() * 4);
    for (std::size_t m = 0; m < meshes_.size(); ++m) {
      const scene::Mesh& mesh = scene_->meshes[m];
      const float constants[2] = {mesh.proxy ? kProxyMinPixels : 0.0f, std::max(mesh.bounds_max.y - mesh.bounds_min.y, 0.01f)};
      std::uint32_t bits[2];
      std::memcpy(bits, constants, 8);
      rows.insert(rows.end(), {m < plan_.mesh_first.size() ? plan_.mesh_first[m] : 0u, bits[0], bits[1], 0u});
    }
    upload(mesh_table_, kMeshTableUnit, rows);
    meshes_dirty_ = false;
    mesh_table_layouts_ = plan_.layouts;
  }
}

void Renderer::upload_instances() {
  constexpr std::size_t kTexels = sizeof(InstanceGpu) / 16;
  const std::size_t texels = plan_.used_end * kTexels;
  const std::size_t rows = std::min((texels + kTableWidth - 1) / kTableWidth, max_instance_rows_);
  glActiveTexture(GL_TEXTURE0 + kInstanceUnit);  // where it stays bound
  glBindTexture(GL_TEXTURE_2D, instance_texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  if (rows > instance_rows_) {
    instance_rows_ = std::min(std::max(rows, instance_rows_ * 2), max_instance_rows_);
    instance_capacity_ = instance_rows_ * kTableWidth * 16;
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32UI, kTableWidth, static_cast<GLsizei>(instance_rows_), 0, GL_RGBA_INTEGER,
                 GL_UNSIGNED_INT, nullptr);
  }
  // Whole rows, then what there is of the last one.
  const std::size_t fits = std::min(texels, instance_rows_ * kTableWidth), full = fits / kTableWidth;
  const auto* data = reinterpret_cast<const std::uint32_t*>(plan_.instances.data());
  if (full)
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kTableWidth, static_cast<GLsizei>(full), GL_RGBA_INTEGER, GL_UNSIGNED_INT, data);
  if (const std::size_t rest = fits - full * kTableWidth)
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, static_cast<GLint>(full), static_cast<GLsizei>(rest), 1, GL_RGBA_INTEGER,
                    GL_UNSIGNED_INT, data + full * kTableWidth * 4);
  glActiveTexture(GL_TEXTURE0);
}

// The mesh as laid out, into its ranges of a slab: each vertex with its material and mesh
// numbers, the indices made absolute (WebGL2 has no base vertex).
void Renderer::upload_mesh(std::size_t m, const MeshLayout& layout, const MeshPool::Place& place, bool fresh) {
  const MeshPool::Slab& slab = pool_.slabs()[place.slab];
  GpuMesh& g = meshes_[m];
  g.resident = true;
  g.place = place;
  g.vertices = static_cast<std::uint32_t>(layout.materials.size());
  g.indices = static_cast<std::uint32_t>(layout.indices.size());
  g.parts = layout.parts;
  g.runs = layout.runs;
  // Bound for copying, not drawing: the slab's vertex array keeps its own bindings.
  glBindBuffer(GL_COPY_WRITE_BUFFER, slab.vbo);
  glBufferSubData(GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(std::uint64_t{place.vertex_first} * 32),
                  static_cast<GLsizeiptr>(layout.vertices.size() * sizeof(float)), layout.vertices.data());
  upload_scratch_.resize(std::size_t{g.vertices} * 2);
  for (std::size_t v = 0; v < g.vertices; ++v) {
    upload_scratch_[2 * v] = layout.materials[v];
    upload_scratch_[2 * v + 1] = static_cast<std::uint32_t>(m);
  }
  glBindBuffer(GL_COPY_WRITE_BUFFER, slab.ids);
  glBufferSubData(GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(std::uint64_t{place.vertex_first} * 8),
                  static_cast<GLsizeiptr>(upload_scratch_.size() * 4), upload_scratch_.data());
  upload_scratch_.resize(g.indices);
  for (std::size_t i = 0; i < g.indices; ++i) upload_scratch_[i] = layout.indices[i] + place.vertex_first;
  glBindBuffer(GL_COPY_WRITE_BUFFER, slab.ibo);
  glBufferSubData(GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(std::uint64_t{place.index_first} * 4),
                  static_cast<GLsizeiptr>(upload_scratch_.size() * 4), upload_scratch_.data());
  glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  if (fresh) ++meshes_uploaded_;
}

void Renderer::set_cull(bool two_sided) {
  const int cull = two_sided ? 0 : 1;
  if (cull_ == cull) return;
  if (cull) glEnable(GL_CULL_FACE);
  else glDisable(GL_CULL_FACE);
  cull_ = cull;
}

void Renderer::bind_arrays() {
  for (const TextureLayers::Array& array : layers_.arrays()) {
    if (!array.live || !array.unit || unit_bound_[static_cast<std::size_t>(array.unit)] == array.gl) continue;
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(array.unit));
    glBindTexture(GL_TEXTURE_2D_ARRAY, array.gl);
    unit_bound_[static_cast<std::size_t>(array.unit)] = array.gl;
  }
  glActiveTexture(GL_TEXTURE0);
}

void Renderer::draw_mesh(std::size_t m, bool blended_pass, bool ids) {
  const GpuMesh& g = meshes_[m];
  // Instances past the instance texture's rows (the context's height) are left out.
  const std::size_t fits = instance_rows_ * kTableWidth * 16 / sizeof(InstanceGpu), first = plan_.mesh_first[m];
  const auto count = static_cast<GLsizei>(first < fits ? std::min<std::size_t>(plan_.mesh_count[m], fits - first) : 0);
  if (!count) return;
  const std::uintptr_t base = std::uintptr_t{g.place.index_first} * 4;
  const auto texture_of = [&](const scene::Part& p) -> const GpuTexture* {
    if (p.material >= scene_->materials.size()) return nullptr;
    const std::uint32_t t = scene_->materials[p.material].texture;
    return t < textures_.size() && textures_[t].array != TextureLayers::kNone ? &textures_[t] : nullptr;
  };
  // In the id pass every part is drawn solid, blended ones too (so they can be clicked).
  const auto in_pass = [&](bool blended) { return ids ? !blended_pass : blended == blended_pass; };
  bool unitless = false;
  for (const scene::Part& p : g.parts) {
    const GpuTexture* t = texture_of(p);
    unitless |= t && layers_.arrays()[t->array].unit == 0;
    if (blended_pass) continue;  // counted in the first pass
    ++stats_.parts_drawn;
    if (t) ++stats_.parts_textured;
  }
  if (!unitless) {
    for (const MeshRun& run : g.runs) {
      if (!in_pass(run.blended)) continue;
      ++stats_.model_draws;
      if (multi_draw_) {
        gather(static_cast<std::int32_t>(run.count), static_cast<std::int32_t>(base + std::uintptr_t{run.first} * 4), count,
               run.two_sided);
        continue;
      }
      set_cull(run.two_sided);
      glDrawElementsInstanced(GL_TRIANGLES, static_cast<GLsizei>(run.count), GL_UNSIGNED_INT,
                              reinterpret_cast<void*>(base + std::uintptr_t{run.first} * 4), count);
      ++stats_.draw_calls;
      ++stats_.model_calls;
    }
    return;
  }
  flush_gathered();  // what came before this mesh is drawn before it
  // A texture whose array found no unit (more shapes of texture in use than units): part by part,
  // that array bound on the override unit for its part.
  std::size_t part = 0;
  for (const MeshRun& run : g.runs) {
    for (std::uint32_t k = 0; k < run.parts; ++k, ++part) {
      if (!in_pass(run.blended)) continue;
      const scene::Part& p = g.parts[part];
      const GpuTexture* t = texture_of(p);
      const bool override = t && layers_.arrays()[t->array].unit == 0;
      if (override) {
        glActiveTexture(GL_TEXTURE0 + kOverrideUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, layers_.arrays()[t->array].gl);
        glUniform2i(u_override_, 1, static_cast<GLint>(t->layer));
      }
      set_cull(run.two_sided);
      glDrawElementsInstanced(GL_TRIANGLES, static_cast<GLsizei>(p.count), GL_UNSIGNED_INT,
                              reinterpret_cast<void*>(base + std::uintptr_t{p.first} * 4), count);
      ++stats_.draw_calls;
      ++stats_.model_calls;
      ++stats_.model_draws;
      if (override) glUniform2i(u_override_, 0, 0);
    }
  }
  glActiveTexture(GL_TEXTURE0);
}

void Renderer::gather(std::int32_t count, std::int32_t offset, std::int32_t instances, bool two_sided) {
  // One call draws with one culling state: a change ends the list (the draws keep their order,
  // which decides coplanar ties).
  if (gathered_cull_ != static_cast<int>(two_sided)) flush_gathered();
  gathered_cull_ = two_sided;
  gathered_.counts.push_back(count);
  gathered_.offsets.push_back(offset);
  gathered_.instances.push_back(instances);
}

void Renderer::flush_gathered() {
  if (gathered_.counts.empty()) return;
  set_cull(gathered_cull_ != 0);
#ifdef __EMSCRIPTEN__
  multi_draw_copied(GL_TRIANGLES, gathered_.counts.data(), GL_UNSIGNED_INT, gathered_.offsets.data(),
                    gathered_.instances.data(), static_cast<int>(gathered_.counts.size()));
#endif
  ++stats_.draw_calls;
  ++stats_.model_calls;
  gathered_.clear();
  gathered_cull_ = -1;
}

void Renderer::update_section(std::size_t index) {
  if (!scene_ || index >= scene_->sections.size()) return;
  prepare_section(*scene_, index, prepared_);
  if (section_batches_.size() < scene_->sections.size()) section_batches_.resize(scene_->sections.size());
  upload_batches(index);
  track_scene();  // a streamed section may bring meshes (model files) not seen before
}

void Renderer::draw_scene(const CameraMatrices& camera, bool ids) {
  const int mode = ids ? 1 : 0;
  // Static batches of the visible sections.
  glUseProgram(static_program_);
  glUniformMatrix4fv(loc(static_program_, "u_view_projection"), 1, GL_FALSE, glm::value_ptr(camera.view_projection));
  glUniform3fv(loc(static_program_, "u_light_dir"), 1, glm::value_ptr(kLightDir));
  glUniform3fv(loc(static_program_, "u_fog_color"), 1, glm::value_ptr(kFogColor));
  glUniform2f(loc(static_program_, "u_fog"), static_cast<float>(settings_.draw_distance * 0.45),
              static_cast<float>(settings_.draw_distance));
  glUniform1i(loc(static_program_, "u_mode"), mode);
  glUniform1ui(loc(static_program_, "u_highlight"), highlight_);
  glUniform2ui(loc(static_program_, "u_hidden"), hidden_first_, hidden_end_);
  const GLint u_offset = loc(static_program_, "u_offset"), u_lit = loc(static_program_, "u_lit");
  // The ground grid where the scene brings no ground of its own: under the camera (in 100 m
  // steps, so it does not swim), at the height of the lowest content.
  if (grid_ && (!scene_ || scene_->sections.empty() || !scene_->has_ground) && !ids) {
    const bool empty = !scene_ || scene_->sections.empty();
    // Just below the lowest content, so it never shows through a ground the scenery draws itself.
    const double ground = empty ? 0.0 : scene_->bounds_min.y - 0.5;
    // Centred where the view's centre meets the ground (what an orbit looks at), else under the eye.
    const glm::dvec3 forward = -glm::dvec3(camera.view[0][2], camera.view[1][2], camera.view[2][2]);
    glm::dvec3 centre = camera.eye;
    if (forward.y < -0.05) centre += forward * std::min((ground - camera.eye.y) / forward.y, 5000.0);
    const glm::dvec3 at(std::floor(centre.x / 100.0) * 100.0, ground, std::floor(centre.z / 100.0) * 100.0);
    const glm::vec3 offset(empty ? -camera.eye : at - camera.eye);
    glUniform3fv(u_offset, 1, glm::value_ptr(offset));
    glUniform1f(u_lit, 0.0f);
    glBindVertexArray(grid_vao_);
    // Beneath everything: drawn first and without depth, so the scenery's own ground always
    // covers it (at a distance, depth precision alone would let it show through).
    glDepthMask(empty ? GL_TRUE : GL_FALSE);
    glDrawArrays(GL_LINES, 0, empty ? grid_count_ : grid_lines_);
    glDepthMask(GL_TRUE);
    ++stats_.draw_calls;
  }
  // Overlays (a skeleton inside its model) are drawn after the models, over them.
  bool any_overlay = false;
  const auto draw_batches = [&](bool overlays) {
    for (std::uint32_t s : plan_.sections) {
      const glm::vec3 offset(scene_->sections[s].origin - camera.eye);
      glUniform3fv(u_offset, 1, glm::value_ptr(offset));
      for (const GpuBatch& b : section_batches_[s]) {
        any_overlay |= b.overlay;
        if (b.overlay != overlays) continue;
        glUniform1f(u_lit, b.lines ? 0.0f : 1.0f);
        glBindVertexArray(b.vao);
        glDrawArrays(b.lines ? GL_LINES : GL_TRIANGLES, 0, b.count);
        ++stats_.draw_calls;
      }
    }
  };
  if (scene_ && draw_static_) draw_batches(false);
  // One instanced draw per mesh with visible instances.
  if (scene_ && draw_models_ && plan_.visible) {
    glUseProgram(instanced_program_);
    glUniformMatrix4fv(loc(instanced_program_, "u_view_projection"), 1, GL_FALSE, glm::value_ptr(camera.view_projection));
    glUniform3fv(loc(instanced_program_, "u_light_dir"), 1, glm::value_ptr(kLightDir));
    glUniform3fv(loc(instanced_program_, "u_fog_color"), 1, glm::value_ptr(kFogColor));
    glUniform2f(loc(instanced_program_, "u_fog"), static_cast<float>(settings_.draw_distance * 0.45),
                static_cast<float>(settings_.draw_distance));
    glUniform1i(loc(instanced_program_, "u_mode"), mode);
    glUniform1ui(loc(instanced_program_, "u_highlight"), highlight_);
    glUniform2ui(loc(instanced_program_, "u_hidden"), hidden_first_, hidden_end_);
    glUniform1f(loc(instanced_program_, "u_pixels_per_unit"), camera.projection[1][1] * 0.5f * static_cast<float>(viewport_h_));
    bind_arrays();
    cull_ = -1;  // other passes set culling between frames
    // The drawn meshes by slab: a slab's vertex array is bound once for all of its meshes.
    slab_draws_.resize(pool_.slabs().size());
    for (auto& list : slab_draws_) list.clear();
    bool any_blended = false;
    for (std::size_t m = 0; m < meshes_.size(); ++m) {
      if (!plan_.mesh_count[m] || !mesh_ready_[m] || !meshes_[m].resident) continue;
      slab_draws_[meshes_[m].place.slab].push_back(static_cast<std::uint32_t>(m));
      for (const MeshRun& run : meshes_[m].runs) any_blended |= run.blended;
    }
    const auto draw_pass = [&](bool blended) {
      for (std::size_t s = 0; s < slab_draws_.size(); ++s) {
        if (slab_draws_[s].empty()) continue;
        glBindVertexArray(pool_.slabs()[s].vao);
        for (std::uint32_t m : slab_draws_[s]) {
          const auto& runs = meshes_[m].runs;
          if (blended && std::none_of(runs.begin(), runs.end(), [](const MeshRun& r) { return r.blended; })) continue;
          draw_mesh(m, blended, ids);
        }
        flush_gathered();  // before the next slab's vertex array
      }
    };
    // Opaque and masked runs first; blended ones after them, without writing depth (in the id
    // pass they are solid, so they can be clicked).
    draw_pass(false);
    if (any_blended && !ids) {
      glEnable(GL_BLEND);
      glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      glDepthMask(GL_FALSE);
      draw_pass(true);
      glDepthMask(GL_TRUE);
      glDisable(GL_BLEND);
    }
    glDisable(GL_CULL_FACE);
  }
  if (scene_ && draw_static_ && any_overlay) {
    glUseProgram(static_program_);
    glDisable(GL_DEPTH_TEST);
    draw_batches(true);
    glEnable(GL_DEPTH_TEST);
  }
  glBindVertexArray(0);
}

void Renderer::plan_and_upload(const CameraMatrices& camera) {
  plan_frame(prepared_, camera, settings_, plan_);
  // One upload for all meshes' instances; each mesh draws from its own range.
  upload_instances();
  make_resident();
}

void Renderer::draw_frame(const CameraMatrices& camera, int width, int height) {
  stats_ = {};
  stats_.s3tc = s3tc_;
  stats_.textures_compressed = textures_compressed_, stats_.textures_decoded_here = textures_decoded_here_;
  stats_.meshes_uploaded = meshes_uploaded_;
  viewport_h_ = height;
  const auto started = std::chrono::steady_clock::now();
  if (scene_) plan_and_upload(camera);
  stats_.plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

  glViewport(0, 0, width, height);
  glClearColor(kFogColor.r, kFogColor.g, kFogColor.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  // Sky first, at the far plane, without writing depth.
  glDepthMask(GL_FALSE);
  glUseProgram(sky_program_);
  const glm::mat4 inverse = glm::inverse(camera.view_projection);
  glUniformMatrix4fv(loc(sky_program_, "u_inverse_view_projection"), 1, GL_FALSE, glm::value_ptr(inverse));
  glUniform3fv(loc(sky_program_, "u_fog_color"), 1, glm::value_ptr(kFogColor));
  glBindVertexArray(sky_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  ++stats_.draw_calls;
  glDepthMask(GL_TRUE);

  draw_scene(camera, false);

  stats_.instances = plan_.visible;
  stats_.triangles = plan_.triangles;
  stats_.sections_drawn = static_cast<std::uint32_t>(plan_.sections.size());
  stats_.sections_total = scene_ ? static_cast<std::uint32_t>(scene_->sections.size()) : 0;
  stats_.meshes_drawn = plan_.meshes_drawn;
  // Counted apart from the ledger, so that a ledger gone wrong shows.
  stats_.gpu_bytes = static_bytes_ + instance_capacity_ + layers_.slack() + pool_.slack() + residency_.held_bytes();
  stats_.gpu_budget = residency_.budget();
  stats_.gpu_held = residency_.held_bytes();
  stats_.gpu_released = residency_.released();
  stats_.meshes_waiting = meshes_waiting_;
  stats_.texture_arrays = static_cast<std::uint32_t>(
      std::count_if(layers_.arrays().begin(), layers_.arrays().end(), [](const TextureLayers::Array& a) { return a.live; }));
  stats_.textures_waiting = textures_waiting_;
  stats_.multi_draw = multi_draw_;
  stats_.mesh_slabs = static_cast<std::uint32_t>(
      std::count_if(pool_.slabs().begin(), pool_.slabs().end(), [](const MeshPool::Slab& s) { return s.live; }));
  stats_.draw_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
}

std::uint32_t Renderer::pick(const CameraMatrices& camera, int width, int height, int x, int y, int radius) {
  if (!scene_ || width <= 0 || height <= 0) return scene::kNoObject;
  if (!pick_fbo_ || pick_w_ != width || pick_h_ != height) {
    if (!pick_fbo_) {
      glGenFramebuffers(1, &pick_fbo_);
      glGenRenderbuffers(1, &pick_color_);
      glGenRenderbuffers(1, &pick_depth_);
    }
    glBindRenderbuffer(GL_RENDERBUFFER, pick_color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, pick_depth_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, pick_fbo_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, pick_color_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, pick_depth_);
    pick_w_ = width;
    pick_h_ = height;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, pick_fbo_);
  glViewport(0, 0, width, height);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  const FrameStats keep = stats_;
  viewport_h_ = height;
  plan_and_upload(camera);
  draw_scene(camera, true);
  stats_ = keep;

  // Read a small square around the cursor and take the nearest hit: lines are one pixel wide.
  const int x0 = std::clamp(x - radius, 0, width - 1), x1 = std::clamp(x + radius, 0, width - 1);
  const int gy = height - 1 - y;
  const int y0 = std::clamp(gy - radius, 0, height - 1), y1 = std::clamp(gy + radius, 0, height - 1);
  const int w = x1 - x0 + 1, h = y1 - y0 + 1;
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x0, y0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  std::uint32_t best = scene::kNoObject;
  int best_d = 1 << 30;
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      const std::uint8_t* p = &pixels[(static_cast<std::size_t>(j) * w + i) * 4];
      const std::uint32_t id = p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;
      if (!id) continue;
      const int dx = x0 + i - x, dy = y0 + j - gy, d = dx * dx + dy * dy;
      if (d < best_d) {
        best_d = d;
        best = id - 1;
      }
    }
  return best;
}

}  // namespace sceneria
