#pragma once
// Scene exports: the format-blind scene model (src/scene) written as files other tools read —
// glTF 2.0 (.glb, .gltf + .bin) and Wavefront OBJ + MTL. Every format the registry reads exports
// through here, so nothing in this folder knows a file format, and no reader knows an exporter.
//
// The options are a writer's named parameters (WriteOptions::params), the same from the CLI
// (`--param instancing=false`), the bindings and the page.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/format.hpp"
#include "io/assets.hpp"
#include "io/byte_sink.hpp"
#include "scene/pieces.hpp"
#include "scene/scene.hpp"

namespace sceneria::exports {

// What part of a scene to export: sections (the scene's grid cells) whose bounds reach into a
// circle on the ground or into a box. Sceneries too big for one file are exported a piece at a
// time.
struct Area {
  enum class Kind : std::uint8_t { all, circle, box };
  Kind kind = Kind::all;
  glm::dvec2 centre{0.0};  // circle: x, z
  double radius = 0.0;
  glm::dvec3 min{0.0}, max{0.0};  // box, world coordinates
};

// How line geometry (wires, and tracks drawn as lines) is written: as line primitives (what
// glTF and OBJ have), as thin flat ribbons of triangles (for tools that do not draw lines), or not.
enum class Lines : std::uint8_t { lines, ribbons, none };

struct Options {
  bool instancing = true;  // glTF: EXT_mesh_gpu_instancing; false: a plain node per instance
  Lines lines = Lines::lines;
  // Subtract a whole-metre offset (the exported part's centre) so that float coordinates keep
  // their precision far from the world origin; the offset is recorded (glTF extras, OBJ comment).
  // nullopt: only when the content lies further than kRecentreBeyond from the origin.
  std::optional<bool> recentre;
  Area area;
  bool extras = true;    // the source records' fields in glTF extras
  bool textures = true;  // texture images (PNG) embedded or beside the output
};
constexpr double kRecentreBeyond = 10'000.0;

// Parses the writers' parameters: instancing=true|false, lines=lines|ribbons|none,
// recentre=auto|true|false, area=x,z,radius or area=x0,y0,z0,x1,y1,z1, extras=true|false,
// textures=true|false. Unknown keys are an error naming the known ones.
Result<Options> parse_options(const std::map<std::string, std::string>& params);
// "instancing=true|false lines=lines|ribbons|none ..." for `sceneria formats`.
extern const char* const kParams;

// What an export holds that its caller tells the user (formats/format.hpp: every writer's).
using Written = WriteSummary;
// A file written beside the main output (a .gltf's .bin and images, an .obj's .mtl).
using File = WrittenFile;

// What an export asks of the document it came from: an object's fields for extras (null: none).
using Fields = std::function<nlohmann::ordered_json(const scene::Object& object, const std::string& kind)>;

struct Target {
  // The main output's file name: sidecars are named after its stem ("a/x.gltf" -> "x.bin").
  std::string name = "scene";
  // Where sidecars go; nullptr: inside the main file where the format can (a .gltf's buffer and
  // images as data: URIs), otherwise left out (an OBJ's materials).
  std::vector<File>* sidecars = nullptr;
  Fields fields = {};
  std::string source;  // a line naming the source document, for the file's own metadata
  // Called now and then with the share of the sections written, 0 to 1.
  std::function<void(double)> progress = {};
  // Where a big file beside the output (a .gltf's .bin) is written as it is made; unset: into
  // `sidecars` with the small ones.
  std::function<Result<std::unique_ptr<ByteSink>>(const std::string& name)> sidecar_sink = {};
  // Filled with what the output holds, for a caller's describe line.
  Written* written = nullptr;
};

// Where an export's scene comes from: its pieces, made afresh for each walk over them (a .glb
// walks its sections twice: for the JSON, then for the binary chunk that follows it).
struct Source {
  std::function<std::unique_ptr<scene::Pieces>()> pieces;
  AssetResolver* assets = nullptr;  // models read in place of their proxies; nullptr: boxes stay
};

// World bounds, lowest corner first.
using Bounds = std::pair<glm::dvec3, glm::dvec3>;
// Whether bounds reach into the area (everything does into Area::Kind::all).
bool reaches(const Bounds& bounds, const Area& area);
// Indices of the scene's sections inside the area, in scene order.
std::vector<std::size_t> sections_in(const scene::Scene& scene, const Area& area);
// The offset subtracted from world coordinates for what lies in `parts` (zero unless
// re-centring applies).
glm::dvec3 offset_for(const std::vector<Bounds>& parts, const Options& options);
// A texture's level 0 as RGBA8 (block-compressed ones decoded); empty if it has no pixels.
std::vector<std::uint8_t> texture_rgba(const scene::Texture& texture);
// RGBA8 pixels as a PNG file.
std::vector<std::uint8_t> png(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height);
// RGBA8 pixels as an uncompressed 32-bit TGA (what game folders mostly hold; stb_image reads it).
std::vector<std::uint8_t> tga(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height);
// "x" from "dir/x.gltf"; "scene" when empty.
std::string stem(const std::string& name);
// Text as a plain file name that is also a relative URI: what is not a letter, digit, '-', '_'
// or '.' becomes '_'. file_stem: the stem so (sidecars are named from it).
std::string file_safe(std::string_view text);
std::string file_stem(const std::string& name);

// The scene written to `sink` as it is walked (binary: .glb, else .gltf); memory holds the
// meshes and looks and one section of placements, whatever the scene's size.
Error gltf(const Source& source, const Options& options, const Target& target, bool binary, ByteSink& sink);
Error obj(const Source& source, const Options& options, const Target& target, ByteSink& sink);
// A scene already in hand (tests, the fuzzer), gathered.
Result<std::vector<std::uint8_t>> gltf(const scene::Scene& scene, const Options& options, const Target& target, bool binary);
Result<std::vector<std::uint8_t>> obj(const scene::Scene& scene, const Options& options, const Target& target);

}  // namespace sceneria::exports

namespace sceneria::exports {

// Files as one ZIP archive, stored (not deflated: the PNGs inside are compressed already, and
// every unzip tool reads stored entries), for a browser download of an export with sidecars.
// Names are UTF-8; sizes over 4 GB are refused.
Result<std::vector<std::uint8_t>> zip(const std::vector<File>& files);

}  // namespace sceneria::exports
