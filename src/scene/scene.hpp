#pragma once
// The format-blind scene model between readers and the renderer. Formats produce it (their
// to_scene), the renderer and exporters consume it, and nothing here knows a file format.
//
// Geometry lives in the sections of a square grid that the format chooses (Scene::grid: EU07 uses
// 1 km cells, 250 from the origin); positions are floats relative to the section's origin, which
// is a double, so a scene keeps millimetre precision hundreds of kilometres from the world origin.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "core/error.hpp"

namespace sceneria::scene {

constexpr std::uint32_t kNoObject = 0xFFFFFFFFu;
constexpr std::uint32_t kNoTexture = 0xFFFFFFFFu;

// The sections' grid: square cells of `cell` metres; row = floor(z / cell + centre), col likewise
// from x, both in [0, cells). Scene data, set by the format (EU07: 1000 m, 250, 500).
struct Grid {
  double cell = 1000.0;
  std::int32_t centre = 250;
  std::int32_t cells = 500;
  int row_of(double z) const;
  int col_of(double x) const;
  glm::dvec3 origin(int row, int col) const;  // the cell's minimum corner
  glm::dvec3 middle(int row, int col) const;
  bool operator==(const Grid&) const = default;
};
// Something a user can click and inspect: a record of the source document, by its list ("kind")
// and index there, plus where it is.
struct Object {
  std::uint32_t kind = 0;   // index into Scene::kinds
  std::uint64_t index = 0;  // record index in that list of the source document
  glm::dvec3 anchor{0.0};   // world position to fly to
  float radius = 5.0f;      // rough size, for framing it
};

// An image by id. A texture the document names but could not load keeps its name and no pixels
// (format none): the renderer draws the material's base colour instead.
struct Texture {
  enum class Format : std::uint8_t { none = 0, rgba8 = 1, bc1 = 2, bc2 = 3, bc3 = 4 };
  std::string name;
  Format format = Format::none;
  std::uint32_t width = 0, height = 0;
  std::vector<std::vector<std::uint8_t>> levels;  // mip 0 first: RGBA8 pixels or 4x4 blocks
  // The file its pixels were decoded from, where every model naming that file decodes it alike
  // (the engine's texture manager keeps one texture per file): textures of one source are one
  // texture in a scene, however many model files name it. Empty: never shared.
  std::string source;
};

// How a surface looks (glTF's metallic-roughness subset that these formats use).
struct Material {
  enum class Alpha : std::uint8_t { opaque = 0, mask = 1, blend = 2 };
  std::string name;
  std::uint32_t color = 0xFFFFFFFFu;    // base colour RGBA8, multiplies the texture
  std::uint32_t texture = kNoTexture;   // into Scene::textures
  Alpha alpha = Alpha::opaque;
  float alpha_cutoff = 0.5f;            // mask: fragments below are discarded
  bool two_sided = false;
  bool operator==(const Material&) const = default;
};

// Static geometry of one primitive type and material in one section (terrain, shapes, track
// ribbons, wires).
struct Batch {
  enum class Primitive : std::uint8_t { triangles = 0, lines = 1 };
  Primitive primitive = Primitive::triangles;
  // Index into Scene::materials. Batches merge all geometry of a primitive in a section (one draw
  // each) and carry per-vertex colours, so a merged batch uses 0; materials that need their own
  // draw (textures, translucency) will get their own batches when textures load.
  std::uint32_t material = 0;
  std::vector<glm::vec3> positions;       // relative to the section origin
  std::vector<glm::vec3> normals;         // triangles only (same count as positions)
  std::vector<std::uint32_t> colors;      // RGBA8 per vertex
  std::vector<std::uint32_t> objects;     // object id per vertex (kNoObject: not pickable)
  // Drawn over everything after the models, without depth (a skeleton inside its model): a
  // viewing aid, which exports leave out (they say the same otherwise, as a glTF skin).
  bool overlay = false;
};

// A range of a mesh's indices drawn with one material.
struct Part {
  std::uint32_t material = 0;  // into Scene::materials
  std::uint32_t first = 0, count = 0;  // indices [first, first + count)
};

// A mesh drawn by instances, one draw per part over all its visible instances. Where a model file
// is not loaded, a proxy (a box coloured by the file's name) stands in.
struct Mesh {
  std::string name;  // e.g. the model file
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;  // empty, or one per position
  std::vector<glm::vec2> uvs;      // empty, or one per position
  std::vector<std::uint32_t> indices;
  std::vector<Part> parts;
  glm::vec3 bounds_min{0.0f}, bounds_max{0.0f};
  // A stand-in for a model file that is not loaded: the renderer keeps it a few pixels big however
  // far away, so a sparse scenery never opens on an empty sky.
  bool proxy = false;
  // A proxy's real model: the asset paths to try, in order (normalized, as AssetResolver takes
  // them). A model loader replaces the proxy with the first that loads (replace_meshes).
  std::vector<std::string> files;
  // The open choices its file is opened with, as the file's format declares them (param, value).
  std::vector<std::pair<std::string, std::string>> file_params;
  // Skinning (empty, or one per position): up to four joints, as indices into the joints of the
  // skin of the node that places the mesh, and their weights, which sum to 1.
  std::vector<glm::u16vec4> joints;
  std::vector<glm::vec4> weights;
};

// A model's node hierarchy (an E3D's submodel tree): transforms relative to the parent. A scene
// with nodes is a model, whose meshes the nodes place; its sections' instances place the same
// meshes once more for the renderer and the picker, which draw instances only. Exports and
// single_mesh take the nodes and leave those instances.
struct Node {
  std::string name;
  std::int32_t parent = -1;  // into Scene::nodes; parents come before their children
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 scale{1.0f};
  std::int32_t mesh = -1;    // into Scene::meshes
  std::uint32_t object = kNoObject;  // the record it stands for (an export's extras)
  std::int32_t skin = -1;    // into Scene::skins: the mesh is deformed by those joints, not placed by this node
};

// A skeleton that deforms meshes: its joints are nodes, each with the inverse of its world
// transform at rest (the bind pose), which takes a vertex into the joint's space.
struct Skin {
  std::string name;
  std::vector<std::uint32_t> joints;  // into Scene::nodes
  std::vector<glm::mat4> inverse_bind;
};

// Nodes' transforms over time, sampled: each channel holds keys at `times` (seconds from the
// clip's start) and a value per key (translation xyz, or rotation as a quaternion xyzw).
struct Animation {
  enum class Path : std::uint8_t { translation = 0, rotation = 1 };
  struct Channel {
    std::uint32_t node = 0;  // into Scene::nodes
    Path path = Path::translation;
    bool step = false;  // hold each value until the next key, rather than interpolate
    std::vector<float> times;
    std::vector<glm::vec4> values;
  };
  std::string name;
  std::vector<Channel> channels;
};

struct Instance {
  glm::vec3 offset{0.0f};  // relative to the section origin
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  // each format converts its own rotation order
  glm::vec3 scale{1.0f};
  std::uint32_t mesh = 0;
  float range_sq_min = 0.0f;  // squared visibility range (metres²), as MaSzyna stores it
  float range_sq_max = 1e30f;
  std::uint32_t object = kNoObject;
};

struct Section {
  int row = 0, col = 0;
  std::uint32_t static_instances = 0;     // instances[0..this) came with the scene; the rest streamed
  glm::dvec3 origin{0.0};                 // world position of the section's minimum corner
  glm::vec3 bounds_min{0.0f}, bounds_max{0.0f};  // of everything in it, relative to origin
  std::vector<Batch> batches;
  std::vector<Instance> instances;
};

// A drivable curve: cubic Bézier in world space with its connections (for the cab-ride camera).
struct TrackCurve {
  glm::dvec3 p[4]{};
  float roll[2] = {0.0f, 0.0f};  // degrees at each end
  double length = 0.0;
  std::uint32_t object = kNoObject;
  std::int32_t next[2] = {-1, -1};  // curve connected at the start (0) / end (1), -1 none
  std::uint8_t next_end[2] = {0, 0};  // which end of that curve touches this one
};

struct Scene {
  // A streamed delta (see merge_delta) continues the ids of the scene it is merged into: its first
  // mesh is mesh `mesh_base` there, its first object `object_base`. Full scenes have 0.
  std::uint32_t mesh_base = 0, object_base = 0;
  Grid grid;
  std::vector<std::string> kinds;  // object kinds: list ids of the document ("tracks", "pack_models")
  std::vector<Object> objects;
  std::vector<Texture> textures;
  std::vector<Material> materials;  // [0] is the default
  std::vector<Mesh> meshes;
  std::vector<Node> nodes;
  std::vector<Skin> skins;  // exports only: serialize() leaves skins and animations, which the renderer does not play
  std::vector<Animation> animations;
  std::vector<Section> sections;
  std::vector<TrackCurve> tracks;
  glm::dvec3 bounds_min{0.0}, bounds_max{0.0};  // world bounds of all content
  // Whether the scene has ground (terrain) of its own; without it the viewer draws a ground grid.
  bool has_ground = false;
  // A delta that replaces meshes (a model loaded in place of its proxy) instead of adding a
  // section: meshes[i] takes the place of the scene's mesh replaces[i]. It carries no sections.
  std::vector<std::uint32_t> replaces;
  // A delta whose instances the sections keep as their own (a streamed document's records that
  // came after its first sections), instead of the streamed instances of one section.
  bool keeps_instances = false;

  std::uint32_t add_kind(const std::string& kind);
  std::uint32_t add_object(std::uint32_t kind, std::uint64_t index, const glm::dvec3& anchor, float radius = 5.0f);
  // The material with these properties (deduplicated); [0], the default, is made first.
  std::uint32_t add_material(const Material& material);
  // A texture by name (deduplicated): not loaded until the format fills its pixels.
  std::uint32_t add_texture(const std::string& name);
  // The section containing a world point (created on demand).
  Section& section_at(const glm::dvec3& world);
  void finish();  // computes section and scene bounds; call once after building
  void update_bounds(Section& section) const;

 private:
  std::vector<std::int32_t> section_lookup_;  // grid cell -> index in sections, -1 none
};

// Streaming: merges a delta (new meshes with their materials and textures, objects, and sections'
// instances and batches) into a scene; returns the indices of the sections it changed. The
// delta's material and texture ids are its own and are renumbered; mesh and object ids continue.
// Its sections' instances are streamed ones, which replace those the section had (a section
// streams in whole), unless the delta keeps them (Scene::keeps_instances). Batches a delta
// brings stay until the scene is replaced (drop_streamed leaves them): only instances stream out.
Result<std::vector<std::size_t>> merge_delta(Scene& scene, Scene&& delta);
// Merges a replacing delta (Scene::replaces): its materials and textures join the scene, each of
// its meshes takes the place of the mesh it names (instances keep pointing at the same id), and
// the sections whose instances now reach further get their bounds again. Returns the ids replaced.
Result<std::vector<std::uint32_t>> replace_meshes(Scene& scene, Scene&& delta);
// A model's scene (nodes or instances placing meshes) as one mesh in the model's own space, for
// drawing by instances: every placed mesh transformed and appended, indices regrouped so that each
// material is one part (one draw). The result is a delta replacing `replaced`: that mesh, the
// materials and the textures it uses. Empty meshes come out as a mesh with no parts.
Scene single_mesh(const Scene& model, std::uint32_t replaced, std::string name);
// A delta's meshes and their looks moved into the scene, which takes nothing else of it (an
// export keeps the meshes and writes each section once): the delta's instances' mesh ids now
// name them there, and its batches' materials are renumbered in place. The delta must continue
// the scene's mesh ids. Returns the id the delta's material 0 now has.
Result<std::uint32_t> adopt_meshes(Scene& scene, Scene& delta);
// A delta's textures and materials moved into the scene under new ids (its materials' texture
// ids renumbered with them); returns the id the delta's material 0 now has.
std::uint32_t adopt_looks(Scene& scene, Scene& delta);
// Drops a section's streamed instances (back to what came with the scene); its index, or -1.
std::ptrdiff_t drop_streamed(Scene& scene, int row, int col);

// A cubic Bézier (TrackCurve::p) at t in [0, 1], and its unit direction there (a degenerate
// curve points from its start to its end, or along +Z).
glm::dvec3 bezier_point(const glm::dvec3 p[4], double t);
glm::dvec3 bezier_direction(const glm::dvec3 p[4], double t);
// dB/dt: metres per unit of t there (a curve's t is not uniform in length).
glm::dvec3 bezier_derivative(const glm::dvec3 p[4], double t);

std::uint32_t rgba(float r, float g, float b, float a = 1.0f);
// A world matrix as translation, rotation and scale; false (and the identity's parts) for one
// that does not decompose (a zero scale, a projection).
struct Trs {
  glm::dvec3 translation{0.0};
  glm::dquat rotation{1.0, 0.0, 0.0, 0.0};
  glm::dvec3 scale{1.0};
};
bool decompose_trs(const glm::dmat4& m, Trs& out);
// An instance of `mesh` placed by `world`, in the section its translation falls in (made if
// needed): the instance, for the caller's remaining fields.
Instance& add_instance(Scene& scene, const glm::dmat4& world, std::uint32_t mesh);
// A proxy mesh: an axis-aligned box [lo, hi] with one part of material `material`.
Mesh box_mesh(std::string name, const glm::vec3& lo, const glm::vec3& hi, std::uint32_t material);
// Block-compressed pixels (BC1/DXT1, BC2/DXT3, BC3/DXT5) to RGBA8, for renderers without the
// extension. `blocks` must hold ceil(w/4)*ceil(h/4) blocks; otherwise nothing is decoded.
std::vector<std::uint8_t> decode_blocks(Texture::Format format, std::uint32_t width, std::uint32_t height,
                                        std::span<const std::uint8_t> blocks);
// Every block-compressed texture of the scene as RGBA8 (level 0; the renderer makes the mips):
// for a context without WEBGL_compressed_texture_s3tc, done where the scene is built.
void decode_block_textures(Scene& scene);
// A stable, pleasant colour for a name (proxy boxes, materials without lighting).
std::uint32_t color_for_name(std::string_view name);

}  // namespace sceneria::scene
