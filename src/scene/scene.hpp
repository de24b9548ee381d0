#pragma once
// The format-blind scene model between readers and the renderer. Formats produce it (their
// to_scene), the renderer and exporters consume it, and nothing here knows a file format.
//
// Geometry lives in 1 km sections (the EU07 grid: row = floor(z/1000 + 250), col = floor(x/1000
// + 250)); positions are floats relative to the section's origin, which is a double, so a scene
// keeps millimetre precision hundreds of kilometres from the world origin.
#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "core/error.hpp"

namespace sceneria::scene {

constexpr std::uint32_t kNoObject = 0xFFFFFFFFu;
constexpr double kSectionSize = 1000.0;

// Something a user can click and inspect: a record of the source document, by its list ("kind")
// and index there, plus where it is.
struct Object {
  std::uint32_t kind = 0;   // index into Scene::kinds
  std::uint64_t index = 0;  // record index in that list of the source document
  glm::dvec3 anchor{0.0};   // world position to fly to
  float radius = 5.0f;      // rough size, for framing it
};

// How a surface looks. Textures are referenced by name until texture loading arrives; the
// renderer uses the colour (and vertex colours) meanwhile.
struct Material {
  std::string texture;                 // file name as the scenery gives it ("" = none)
  std::uint32_t color = 0xFFFFFFFFu;   // RGBA8 (diffuse)
  bool translucent = false;
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
};

// A mesh drawn by instances. Until model files load, these are proxies (boxes coloured by file).
struct Mesh {
  std::string name;  // e.g. the model file
  std::uint32_t material = 0;  // index into Scene::materials
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<std::uint32_t> indices;
  std::uint32_t color = 0xFFFFFFFFu;  // RGBA8
  glm::vec3 bounds_min{0.0f}, bounds_max{0.0f};
};

struct Instance {
  glm::vec3 offset{0.0f};  // relative to the section origin
  glm::vec3 angles{0.0f};  // degrees (x, y, z)
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
  std::vector<std::string> kinds;  // object kinds, e.g. "tracks", "pack_models"
  std::vector<Object> objects;
  std::vector<Material> materials;  // [0] is the default
  std::vector<Mesh> meshes;
  std::vector<Section> sections;
  std::vector<TrackCurve> tracks;
  glm::dvec3 bounds_min{0.0}, bounds_max{0.0};  // world bounds of all content

  std::uint32_t add_kind(const std::string& kind);
  std::uint32_t add_object(std::uint32_t kind, std::uint64_t index, const glm::dvec3& anchor, float radius = 5.0f);
  // The material with these properties (deduplicated).
  std::uint32_t add_material(const std::string& texture, std::uint32_t color, bool translucent);
  // The section containing a world point (created on demand).
  Section& section_at(const glm::dvec3& world);
  void finish();  // computes section and scene bounds; call once after building
  void update_bounds(Section& section) const;

 private:
  std::vector<std::int32_t> section_lookup_;  // 500 x 500 grid -> index in sections, -1 none
};

// Streaming: merges a delta (new meshes, objects and one section's streamed instances) into a
// scene; returns the index of the section it changed. Errors if the ids do not continue.
Result<std::size_t> merge_delta(Scene& scene, Scene&& delta);
// Drops a section's streamed instances (back to what came with the scene); its index, or -1.
std::ptrdiff_t drop_streamed(Scene& scene, int row, int col);

// A cubic Bézier (TrackCurve::p) at t in [0, 1], and its unit direction there (a degenerate
// curve points from its start to its end, or along +Z).
glm::dvec3 bezier_point(const glm::dvec3 p[4], double t);
glm::dvec3 bezier_direction(const glm::dvec3 p[4], double t);

std::uint32_t rgba(float r, float g, float b, float a = 1.0f);
// A stable, pleasant colour for a name (proxy boxes, materials without lighting).
std::uint32_t color_for_name(std::string_view name);

}  // namespace sceneria::scene
