#pragma once
// An X-Ray `.object` behind the Document interface: its meshes, surfaces and bones as lists, and
// the render mesh (notes xray-object.md §6).
//
// Axes: X-Ray is Direct3D's left-handed Y-up frame with clockwise front faces; the scene (glTF's
// frame) is right-handed and counter-clockwise, so a point (x, y, z) is (x, y, -z) and each face
// (p0, p1, p2) is drawn as (p0, p2, p1), a reflection with the windings turned to match.
#include <memory>
#include <string>
#include <vector>

#include "formats/format.hpp"
#include "formats/row_lists.hpp"
#include "formats/xray/xray.hpp"

namespace sceneria::xray {

// How smoothing groups say which edges are smooth (notes §6): `soc`, equal groups; `cop`, per-face
// hard-edge bits; `automatic` picks by the values (SoC if any group other than "all sharp" is
// above 0xF).
enum class Smoothing { automatic, soc, cop };

class XrayDocument final : public RowsByIndex {
 public:
  using ojson = nlohmann::ordered_json;
  XrayDocument(File file, std::uint64_t size, std::string name);
  // Textures of the surfaces, looked up among the files opened with the object.
  void load_textures(AssetResolver& assets);

  std::string_view format_id() const override { return "xray"; }
  const File& file() const { return f_; }
  std::string headline() const override;
  ojson summary(std::size_t) const override;
  std::vector<ListInfo> lists() const override;
  ojson record(std::string_view list, std::uint64_t index) const override;
  Result<scene::Scene> scene() const override;
  std::vector<Warning> warnings() const override;
  std::vector<std::string> missing_assets() const override { return missing_; }
  Error dump_to(ByteSink& sink, int indent) const override;  // the X-Ray form (formats/xray/json.hpp)
  std::vector<Choice> choices() const override;

  Smoothing smoothing = Smoothing::automatic;

 private:
  ojson row(std::string_view list, std::uint64_t i) const override;
  // The bones as joints (nodes and a skin), drawn as lines, and the motions as animations.
  void add_skeleton(scene::Scene& s) const;
  std::uint64_t list_size(std::string_view list) const override;
  File f_;
  std::uint64_t size_;
  std::string name_;
  std::vector<std::optional<scene::Texture>> textures_;  // by surface
  std::vector<std::string> missing_;
};

// An object's open choice: how its smoothing groups read.
const std::vector<Choice>& object_choices();
Smoothing smoothing_named(std::string_view name);  // "soc", "cop"; anything else: automatic

// Whether an object's smoothing groups read as SoC's (the heuristic of notes §6).
bool looks_like_soc(const Mesh& mesh);

}  // namespace sceneria::xray
