#pragma once
// A B3D module behind the Document interface: its block tree (the "blocks" list, each record its
// fields by the catalogue), its materials resolved through the .res files found beside it
// (the module's own, then COMMON/COMMON.RES), and the scene a viewer draws.
//
// Coordinates: B3D is taken as right-handed and Z up (the de-facto reference, the LabVaKars
// Blender tools, imports it unchanged into Blender, and the public exporter writes Blender's
// coordinates), so the scene's (Y up) point is (x, z, -y), a rotation: windings stay as stored.
// One switch (kZUp) holds the choice until a game asset with readable text settles it.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "formats/b3d/b3d.hpp"
#include "formats/b3d/res.hpp"
#include "formats/format.hpp"
#include "formats/row_lists.hpp"

namespace sceneria::b3d {

inline constexpr bool kZUp = true;
// Shared by the document's parts (document, to_scene, browse): a block's name at word `at`, a
// name as the text it is looked up by (to its first NUL), and whether a block type is hidden
// unless shown (collision, triggers, portals, generators).
Name name_at(const Block& b, std::size_t at);
std::string key_of(const Name& n);
bool hidden_type(std::uint32_t t);
// B3D (x, y, z) as the scene's point.
glm::dvec3 to_scene(const glm::dvec3& v);

// A resource file the module's materials are looked up in, and its decoded palette.
struct Resources {
  std::string name;
  ResFile res;
  std::vector<std::uint32_t> palette;  // PALETTEFILES[0]'s PALT, 0xRRGGBB
};

// Another module among the files opened with this one, in which a link (18) finds the object it
// inserts (wheels from TRUCKS.b3d): its blocks and its own resources.
struct LinkedModule {
  std::string name;
  File file;
  std::vector<Resources> resources;
};

struct ViewOptions {
  std::uint32_t group = 0;   // which group of every LOD and switch container is drawn (the last, for one with fewer)
  bool show_hidden = false;  // collision, triggers, portals and generators too
};

// A module's open choices: the group its LOD and switch containers draw, and its hidden blocks.
const std::vector<Choice>& module_choices();

class B3dDocument final : public RowsByIndex {
 public:
  using ojson = nlohmann::ordered_json;
  B3dDocument(File file, std::uint64_t size, std::string name, std::vector<Resources> resources, ViewOptions view, std::vector<std::string> missing,
              std::vector<LinkedModule> linked = {});

  std::string_view format_id() const override { return "b3d"; }
  const File& file() const { return f_; }
  std::string headline() const override;
  ojson summary(std::size_t) const override;
  std::vector<ListInfo> lists() const override;
  ojson record(std::string_view list, std::uint64_t index) const override;
  Result<scene::Scene> scene() const override;
  std::vector<Warning> warnings() const override;
  std::vector<std::string> missing_assets() const override { return missing_; }
  std::vector<Choice> choices() const override;
  Error dump_to(ByteSink& sink, int indent) const override;

  // The material a texnum names, resolved (nullopt: none of the .res files has it).
  struct Look {
    std::size_t resources = 0;  // which of resources_
    ResMaterial material;
  };
  std::optional<Look> look(std::uint32_t texnum) const;
  const std::vector<LinkedModule>& linked() const { return linked_; }

 private:
  ojson row(std::string_view list, std::uint64_t i) const override;
  std::uint64_t list_size(std::string_view list) const override;
  File f_;
  std::uint64_t size_;
  std::string name_;
  std::vector<Resources> resources_;
  ViewOptions view_;
  std::vector<std::string> missing_;
  std::vector<LinkedModule> linked_;
  mutable std::vector<Warning> scene_warnings_;  // what building the scene found (unresolved links, textures)
  mutable bool scene_built_ = false;
};

// The material `texnum` of `file` names, in the first of `resources` that has it.
std::optional<B3dDocument::Look> look_up(const File& file, const std::vector<Resources>& resources, std::uint32_t texnum);
// The names links (18) insert that no block of `file` has (as stored), each once.
std::vector<std::string> unresolved_links(const File& file);
// Whether `file` has a block of that name (as stored).
bool has_block(const File& file, const std::string& name);

// The fields of a block by its catalogue layout, for the inspector: names as text, numbers as
// numbers, counted lists as arrays.
nlohmann::ordered_json block_fields(const Block& block);

}  // namespace sceneria::b3d
