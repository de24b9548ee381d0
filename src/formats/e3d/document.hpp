#pragma once
// An E3D model behind the Document interface: the submodel tree (the "submodels" list), its
// textures, and a scene with one mesh per submodel with geometry, placed by its world matrix.
// A T3D model converts to E3D and opens as one of these with its own summary.
#include <map>

#include <glm/glm.hpp>

#include "formats/e3d/e3d.hpp"
#include "formats/format.hpp"
#include "io/assets.hpp"

namespace sceneria::e3d {

// A model's open choices (E3D and T3D): its skin set, and the submodels lights switch on.
const std::vector<Choice>& model_choices();

class ModelDocument : public Document {
 public:
  using ojson = nlohmann::ordered_json;
  ModelDocument(Model model, std::uint64_t size);
  std::string_view format_id() const override { return "e3d"; }
  const Model& model() const { return m_; }
  std::string headline() const override;
  ojson summary(std::size_t) const override;
  std::vector<ListInfo> lists() const override;
  ojson rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override;
  ojson search(std::string_view list, std::string_view query, std::uint64_t limit) const override;
  ojson record(std::string_view list, std::uint64_t index) const override;
  // One mesh per submodel with triangles (and a marker mesh per light or point submodel), placed
  // by its world matrix; the submodel tree as the scene's nodes (scene::Node), which exports keep. Submodels hidden by default in a vehicle (lamps that lights switch on)
  // are left out unless shown: a model dropped alone is most often a vehicle's part.
  Result<scene::Scene> scene() const override;
  Error dump_to(ByteSink& sink, int indent) const override;  // the E3D form (formats/e3d/json.hpp)
  std::vector<std::string> missing_assets() const override { return missing_; }
  std::vector<Choice> choices() const override;

  // What a viewer asked for when opening it: its textures and skins when files came with it
  // (looked for from the folder of `source_name`), the skin set, the hidden submodels shown.
  void apply(const OpenOptions& options, std::string_view source_name);

 protected:
  // The textures its materials name, found as the engine finds them from the model's folder
  // `base` (a `.mat` first, then the image), and its replaceable skins from a skin set among the
  // files: "<set>,<n>.mat" or an image "<set>,<n>.dds" and the like gives skin n. `skin_set`
  // picks one by name; empty: the first there is. What cannot be found is listed as missing.
  void load_textures(AssetResolver& assets, std::string_view base, std::string_view skin_set = {});
  std::uint64_t list_size(std::string_view list) const;
  ojson row(std::string_view list, std::uint64_t i) const;
  std::uint64_t vertices() const;
  std::uint64_t hidden_submodels() const;  // drawable and hidden until lights or events show them
  std::uint64_t indices() const;
  // Textures named (TEX0 without its empty first entry).
  std::uint64_t texture_count() const { return m_.textures.empty() ? 0 : m_.textures.size() - 1; }
  scene::Mesh marker_mesh(const Submodel& sub, scene::Scene& s) const;
  // The submodel tree as the scene's nodes (exports keep it): each submodel's node with its mesh
  // (mesh_of, -1 for none) and object.
  void add_hierarchy(scene::Scene& s, const std::vector<std::int32_t>& mesh_of, const std::vector<std::uint32_t>& object_of) const;
  scene::Mesh triangle_mesh(const Submodel& sub, scene::Scene& s) const;
  // The scene's material name of a submodel: the TEX0 path, "colored", or "skin n".
  std::string look_name(const Submodel& s) const;
  Model m_;
  std::uint64_t size_;
  std::vector<glm::dmat4> world_;
  std::map<std::string, scene::Texture> loaded_;  // by look_name
  std::vector<std::string> missing_, skin_sets_;
  std::string skin_set_;
  bool show_hidden_ = false;
  bool placed_ = false;  // placed by a scenery (OpenOptions::texture_base): not a vehicle, no skins
};

}  // namespace sceneria::e3d
