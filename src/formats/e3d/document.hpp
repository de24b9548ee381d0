#pragma once
// An E3D model behind the Document interface: the submodel tree (the "submodels" list), its
// textures, and a scene with one mesh per submodel with geometry, placed by its world matrix.
// A T3D model converts to E3D and opens as one of these with its own summary.
#include <glm/glm.hpp>

#include "formats/document.hpp"
#include "formats/e3d/e3d.hpp"

namespace sceneria::e3d {

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
  // One mesh per submodel with triangles, placed by its world matrix. Submodels hidden by default
  // in a vehicle (lamps that lights switch on) are left out: a model dropped alone is most often
  // a vehicle's part.
  Result<scene::Scene> scene() const override;
  Result<ojson> dump() const override { return Error{Errc::bad_value, 0, "E3D has no JSON form yet"}; }

 protected:
  std::uint64_t list_size(std::string_view list) const;
  ojson row(std::string_view list, std::uint64_t i) const;
  std::uint64_t vertices() const;
  std::uint64_t indices() const;
  // Textures named (TEX0 without its empty first entry).
  std::uint64_t texture_count() const { return m_.textures.empty() ? 0 : m_.textures.size() - 1; }
  Model m_;
  std::uint64_t size_;
  std::vector<glm::dmat4> world_;
};

}  // namespace sceneria::e3d
