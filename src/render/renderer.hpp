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
#include "render/mesh_layout.hpp"
#include "render/mesh_pool.hpp"
#include "render/residency.hpp"
#include "render/texture_layers.hpp"
#include "scene/scene.hpp"

namespace sceneria {

struct FrameStats {
  std::uint32_t draw_calls = 0;
  std::uint64_t instances = 0;
  std::uint64_t triangles = 0;
  std::uint32_t sections_drawn = 0;
  std::uint32_t sections_total = 0;
  std::uint32_t meshes_drawn = 0;
  std::uint32_t parts_drawn = 0;  // material parts of the drawn meshes, over their visible instances
  std::uint32_t parts_textured = 0;  // of those, the ones drawn with their texture's pixels
  // Instanced draws: one per run of a mesh's parts drawn with the same state (MeshLayout), and
  // one per part whose texture's array found no free texture unit.
  std::uint32_t model_draws = 0;
  std::uint32_t model_calls = 0;  // the GL calls that drew them (of draw_calls)
  bool multi_draw = false;       // those draws gathered into a call per slab (WEBGL_multi_draw)
  std::uint32_t mesh_slabs = 0;  // shared buffers holding the resident meshes (MeshPool)
  std::uint32_t texture_arrays = 0;  // arrays holding the resident textures (TextureLayers)
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
  // Texture units holding texture arrays, 0..12 (12 by default): arrays beyond them are drawn part
  // by part (how a scene with more shapes of texture than units is drawn; tests use fewer units).
  void set_texture_units(int units);
  // Whether the draws of a slab are gathered into one call (WEBGL_multi_draw, where the context
  // has it; on by default) or issued one call a draw (what the benchmark compares it with).
  void set_multi_draw(bool on) { multi_draw_ = on && has_multi_draw_; }
  bool multi_draw() const { return multi_draw_; }
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
    bool resident = false;
    MeshPool::Place place;  // its slab, and where its vertices and indices start there
    std::uint32_t vertices = 0, indices = 0;
    std::vector<scene::Part> parts;  // as laid out (MeshLayout): ranges of its indices
    std::vector<MeshRun> runs;       // one draw each, over all visible instances
  };
  void release_scene();
  void draw_scene(const CameraMatrices& camera, bool ids);
  void plan_and_upload(const CameraMatrices& camera);  // frame plan + one instance-buffer upload
  void build_grid();
  void upload_batches(std::size_t section);
  struct GpuTexture {
    std::uint32_t array = TextureLayers::kNone;  // kNone while not resident (or it has no pixels: drawn white)
    std::uint32_t layer = 0;
    bool counted = false; // in textures_compressed_ / textures_decoded_here_ (the first upload)
    bool no_pixels = false;  // nothing to upload: drawn white (its material's colour)
    bool sized = false;      // `bytes` worked out (texture_bytes)
    std::uint64_t bytes = 0;
  };
  void track_scene();  // per-mesh and per-texture slots for what the scene has now
  // Uploads what this frame's plan draws and the ledger lets in; marks it used.
  void make_resident();
  bool ensure_mesh(std::size_t mesh);
  bool ensure_texture(std::uint32_t texture);
  void let_go(std::vector<std::uint32_t>& items);
  // What counts against the budget outside the ledger: static batches, the instance buffer and
  // the arrays' free layers.
  std::uint64_t fixed_bytes() const;
  static std::uint32_t mesh_item(std::size_t m) { return static_cast<std::uint32_t>(2 * m); }
  static std::uint32_t texture_item(std::size_t t) { return static_cast<std::uint32_t>(2 * t + 1); }
  std::uint64_t mesh_bytes(const scene::Mesh& mesh) const;
  std::uint64_t texture_bytes(std::uint32_t texture);  // its layer's (0: nothing to upload), worked out once
  // Lays out mesh `m` (`layout`) into its place in a slab; `fresh`: not a slab's rebuild (counted).
  void upload_mesh(std::size_t m, const MeshLayout& layout, const MeshPool::Place& place, bool fresh);
  void release_mesh(GpuMesh& mesh);  // its ranges given back to the pool (compact_pool gives the bytes back)
  // A slab's storage made anew at the pool's capacities, keeping its first vertices and indices.
  void remake_slab(std::uint32_t slab, std::uint32_t keep_vertices, std::uint32_t keep_indices);
  void delete_slab(const MeshPool::Slab& slab);  // its vertex array and buffers
  void compact_pool();  // after meshes were let go: slabs with room rebuilt, empty ones deleted
  void rebuild_slab(std::uint32_t slab);  // to just what it holds: its meshes laid out and uploaded again
  // A texture's layer shape as this context stores it (format 0: nothing to upload).
  LayerShape layer_shape(const scene::Texture& texture) const;
  // Makes array `a`'s storage anew at its capacity and uploads every texture it holds, counting
  // `counted` (its first upload) in the stats. False if that one's blocks would not decode.
  bool build_array(std::uint32_t a, std::uint32_t counted);
  void delete_array(unsigned gl);
  // Uploads a texture's pixels into its layer (the array bound on unit 0). False if its blocks
  // would not decode.
  bool upload_layer(const TextureLayers::Array& array, std::uint32_t layer, const scene::Texture& texture, bool count);
  void compact_layers();        // after textures were let go: their bytes given back
  void upload_tables();         // the material, texture and mesh tables, where they changed
  void upload_instances();      // this frame's plan into the instance texture
  void bind_arrays();           // each array with a unit on it
  bool s3tc_ = false;
  std::uint32_t textures_compressed_ = 0, textures_decoded_here_ = 0;
  std::uint64_t meshes_uploaded_ = 0;
  // A mesh's runs of one pass over its visible instances; part by part where a part's texture is
  // in an array without a unit (bound on the override unit for its draw).
  void draw_mesh(std::size_t mesh, bool blended_pass, bool ids);
  void set_cull(bool two_sided);
  int cull_ = -1;               // GL_CULL_FACE as last set in this pass (-1: unknown)
  // Draws gathered for one multi-draw: index counts, byte offsets, instance counts.
  struct DrawList {
    std::vector<std::int32_t> counts, offsets, instances;
    void clear() { counts.clear(), offsets.clear(), instances.clear(); }
  };
  DrawList gathered_;
  int gathered_cull_ = -1;
  void gather(std::int32_t count, std::int32_t offset, std::int32_t instances, bool two_sided);
  void flush_gathered();        // the draws gathered so far, as one call
  bool has_multi_draw_ = false, multi_draw_ = false;
  int u_override_ = -1;         // the instanced program's override uniform, looked up once
  TextureLayers layers_;
  std::vector<unsigned> unit_bound_;  // per unit: the array bound there
  std::vector<std::uint32_t> rebuilt_scratch_;
  std::vector<unsigned> deleted_scratch_;
  unsigned material_table_ = 0, texture_table_ = 0, mesh_table_ = 0;
  bool materials_dirty_ = true, textures_dirty_ = true, meshes_dirty_ = true;
  std::uint64_t mesh_table_layouts_ = ~0ull;  // the plan's rooms the mesh table points at
  std::size_t material_rows_ = 0, texture_rows_ = 0;  // in the tables as last uploaded
  MeshLayout layout_scratch_;
  std::vector<std::uint32_t> upload_scratch_;  // a mesh's vertex ids, then its indices made absolute
  MeshPool pool_;
  std::vector<std::uint32_t> rebuild_scratch_, gone_scratch_, members_scratch_;
  std::vector<MeshLayout> layouts_scratch_;
  // This frame's drawn meshes by slab: one vertex-array bind a slab, not one a mesh.
  std::vector<std::vector<std::uint32_t>> slab_draws_;

  unsigned static_program_ = 0, instanced_program_ = 0, sky_program_ = 0;
  unsigned sky_vao_ = 0;
  unsigned grid_vao_ = 0, grid_vbo_ = 0;
  int grid_count_ = 0, grid_lines_ = 0;
  // Every drawn instance, 4 texels each (InstanceGpu), read by the vertex shader at its mesh's
  // first instance (the mesh table) plus gl_InstanceID: no per-mesh instance attributes to point.
  unsigned instance_texture_ = 0;
  std::size_t instance_rows_ = 0, instance_capacity_ = 0;  // rows allocated; their bytes
  std::size_t max_instance_rows_ = 1;  // the context's texture height
  unsigned pick_fbo_ = 0, pick_color_ = 0, pick_depth_ = 0;
  int pick_w_ = 0, pick_h_ = 0;

  const scene::Scene* scene_ = nullptr;
  PreparedScene prepared_;
  std::vector<std::vector<GpuBatch>> section_batches_;
  std::vector<GpuMesh> meshes_;       // per scene mesh
  std::vector<GpuTexture> textures_;  // per scene texture
  std::vector<std::uint8_t> mesh_ready_;  // per mesh: resident for this frame's plan
  std::vector<std::uint32_t> let_go_;     // scratch: items the ledger let go
  std::vector<std::uint64_t> texture_frame_;  // per texture: the last frame that counted it
  std::uint64_t frame_ = 0;
  Residency residency_;
  std::uint32_t meshes_waiting_ = 0, textures_waiting_ = 0;
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
