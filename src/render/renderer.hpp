#pragma once
// The GLES3 / WebGL2 renderer. It draws a scene::Scene (never a file format) from a camera:
// sky, static section batches (terrain, shapes, track ribbons, wires), and every mesh's visible
// instances in one instanced draw. Everything is camera-relative (see camera.hpp). The GL context
// belongs to the platform layer (src/platform/).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/frame_plan.hpp"
#include "render/residency.hpp"
#include "scene/scene.hpp"

namespace sceneria {

struct FrameStats {
  std::uint32_t draw_calls = 0;
  std::uint64_t instances = 0;
  std::uint64_t triangles = 0;
  std::uint32_t sections_drawn = 0;
  std::uint32_t sections_total = 0;
  std::uint32_t meshes_drawn = 0;
  std::uint32_t parts_drawn = 0;  // instanced draws: one per material part of each drawn mesh
  std::uint32_t parts_textured = 0;  // of those, the ones drawn with their texture's pixels
  // GPU memory this renderer holds now (static geometry, the instance buffer, the meshes and
  // textures resident), its budget, and what the budget made it do: meshes and textures let go
  // since the scene was set, and those this frame wanted but found no room for (a mesh left out,
  // a texture drawn white).
  std::uint64_t gpu_bytes = 0, gpu_budget = 0, gpu_released = 0;
  std::uint64_t gpu_held = 0;  // of gpu_bytes: the meshes and textures (what can be let go)
  std::uint32_t meshes_waiting = 0, textures_waiting = 0;
  double plan_ms = 0;           // CPU: culling + instance packing
  // CPU: the whole frame as the renderer issues it (plan, uploads, state, draw calls), not the
  // GPU's work (with a software GPU the two share the cores: measure after a sync).
  double draw_ms = 0;
  // Textures of the scene: kept block-compressed on the GPU (WEBGL_compressed_texture_s3tc), or
  // decoded here because blocks came although the extension is missing (the parse worker decodes
  // them when told the extension is missing, so this stays 0 then).
  std::uint32_t textures_compressed = 0, textures_decoded_here = 0;
  bool s3tc = false;            // the context can take BC1-3 blocks
  std::uint64_t meshes_uploaded = 0;  // since the renderer started (models replacing proxies too)
};

// The budget where the context says nothing better (see Renderer::init).
inline constexpr std::uint64_t kDefaultGpuBudget = 512ull << 20;

class Renderer {
 public:
  Renderer() = default;
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  ~Renderer();

  // Needs a current GLES3 context. Returns false with a message if shaders fail.
  bool init(std::string& error);
  // Uploads a scene (kept by pointer: it must outlive the renderer's use of it).
  void set_scene(const scene::Scene* scene);
  // The scene's section `index` changed (streamed instances added or dropped), or is new; new
  // meshes may have been appended. Uploads only what changed.
  void update_section(std::size_t index);
  // The scene's meshes `ids` were replaced (scene::replace_meshes: a model in place of its proxy):
  // uploads them again, with the textures that came with them.
  void replace_meshes(const std::vector<std::uint32_t>& ids);
  // The GPU memory budget in bytes. Meshes and textures are uploaded when a frame first draws them;
  // beyond the budget, those drawn least recently are let go (and uploaded again from the scene
  // when the camera returns). init() sizes it from the context's limits (kDefaultGpuBudget).
  void set_gpu_budget(std::uint64_t bytes) { residency_.set_budget(bytes); }
  std::uint64_t gpu_budget() const { return residency_.budget(); }
  void set_highlight(std::uint32_t object) { highlight_ = object; }
  // Leaves objects [first, first + count) out (count 0: none): "hide this", and how tests prove
  // an object is what covers its pixels.
  void set_hidden(std::uint32_t first, std::uint32_t count) {
    hidden_first_ = first;
    hidden_end_ = count ? first + std::min(count, scene::kNoObject - first) : first;
  }
  void set_grid(bool on) { grid_ = on; }
  // Layers the user (and the tests, which compare frames with and without one) can switch off:
  // static section geometry (terrain, shapes, tracks, wires) and model instances. A hidden layer
  // is not pickable either.
  void set_layers(bool statics, bool models) {
    draw_static_ = statics;
    draw_models_ = models;
  }
  PlanSettings& settings() { return settings_; }

  void draw_frame(const CameraMatrices& camera, int width, int height);
  // The object under a window pixel (origin top-left), looking `radius` pixels around it for
  // thin lines; scene::kNoObject if none.
  std::uint32_t pick(const CameraMatrices& camera, int width, int height, int x, int y, int radius = 4);
  const FrameStats& stats() const { return stats_; }

 private:
  struct GpuBatch {
    unsigned vao = 0, vbo = 0;
    int count = 0;
    bool lines = false;
    bool overlay = false;
  };
  struct GpuMesh {
    unsigned vao = 0, vbo = 0, ibo = 0;
    std::size_t instance_base = SIZE_MAX;  // where its instance attributes point in the instance buffer
    std::vector<scene::Part> parts;  // one draw each, over all visible instances
  };
  void release_scene();
  void draw_scene(const CameraMatrices& camera, bool ids);
  void plan_and_upload(const CameraMatrices& camera);  // frame plan + one instance-buffer upload
  void build_grid();
  void upload_batches(std::size_t section);
  struct GpuTexture {
    unsigned id = 0;      // 0 while not resident (or it has no pixels: drawn white)
    bool counted = false; // in textures_compressed_ / textures_decoded_here_ (the first upload)
    bool no_pixels = false;  // nothing to upload: drawn white (its material's colour)
  };
  void track_scene();  // per-mesh and per-texture slots for what the scene has now
  // Uploads what this frame's plan draws and the ledger lets in; marks it used.
  void make_resident();
  bool ensure_mesh(std::size_t mesh);
  bool ensure_texture(std::uint32_t texture);
  void let_go(std::vector<std::uint32_t>& items);
  static std::uint32_t mesh_item(std::size_t m) { return static_cast<std::uint32_t>(2 * m); }
  static std::uint32_t texture_item(std::size_t t) { return static_cast<std::uint32_t>(2 * t + 1); }
  std::uint64_t mesh_bytes(const scene::Mesh& mesh) const;
  std::uint64_t texture_bytes(const scene::Texture& texture) const;  // 0: nothing to upload
  GpuMesh upload_mesh(const scene::Mesh& mesh);
  void release_mesh(GpuMesh& mesh);
  GpuTexture upload_texture(const scene::Texture& texture, bool count);
  bool s3tc_ = false;
  std::uint32_t textures_compressed_ = 0, textures_decoded_here_ = 0;
  std::uint64_t meshes_uploaded_ = 0;
  // One part of a mesh over its visible instances, with its material's state.
  void draw_part(std::size_t mesh, const scene::Part& part, bool ids);
  // The instanced program's per-part uniforms, looked up once (a lookup is a call with a string
  // per use), and the part state last set in this pass: a part whose material sets what is
  // already set costs only its draw (hundreds of parts a frame at scale).
  struct PartUniforms {
    int color = -1, alpha_mode = -1, cutoff = -1;
  } part_uniforms_;
  struct PartState {
    unsigned texture = 0;
    std::uint32_t color = 0;
    int alpha_mode = -1, cull = -1;
    float cutoff = -1.0f;
    bool known = false;
  } part_state_;

  unsigned static_program_ = 0, instanced_program_ = 0, sky_program_ = 0;
  unsigned sky_vao_ = 0;
  unsigned grid_vao_ = 0, grid_vbo_ = 0;
  int grid_count_ = 0, grid_lines_ = 0;
  unsigned instance_vbo_ = 0;
  std::size_t instance_capacity_ = 0;
  unsigned pick_fbo_ = 0, pick_color_ = 0, pick_depth_ = 0;
  int pick_w_ = 0, pick_h_ = 0;

  const scene::Scene* scene_ = nullptr;
  PreparedScene prepared_;
  std::vector<std::vector<GpuBatch>> section_batches_;
  std::vector<GpuMesh> meshes_;       // per scene mesh: vao 0 while not resident
  std::vector<GpuTexture> textures_;  // per scene texture
  std::vector<std::uint8_t> mesh_ready_;  // per mesh: resident for this frame's plan
  std::vector<std::uint32_t> let_go_;     // scratch: items the ledger let go
  std::vector<std::uint64_t> texture_frame_;  // per texture: the last frame that counted it
  std::uint64_t frame_ = 0;
  Residency residency_;
  std::uint32_t meshes_waiting_ = 0, textures_waiting_ = 0;
  unsigned white_texture_ = 0;      // bound for untextured materials
  FramePlan plan_;
  PlanSettings settings_;
  std::uint32_t highlight_ = scene::kNoObject;
  std::uint32_t hidden_first_ = 0, hidden_end_ = 0;
  bool grid_ = true;
  int viewport_h_ = 1;
  bool draw_static_ = true, draw_models_ = true;
  std::uint64_t static_bytes_ = 0;  // the sections' static batches (never let go)
  FrameStats stats_;
};

}  // namespace sceneria
