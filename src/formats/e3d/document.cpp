// A model opened: its world matrices, and what a viewer asked for (the textures and skins found
// through the resolver, the hidden submodels shown).
#include "formats/e3d/document.hpp"

#define GLM_ENABLE_EXPERIMENTAL
#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/textures.hpp"

namespace sceneria::e3d {

ModelDocument::ModelDocument(Model model, std::uint64_t size) : m_(std::move(model)), size_(size) {
  // World matrices: parent world x own, each submodel's ancestors first (the reader set the
  // parents and refused cycles).
  const std::size_t n = m_.submodels.size();
  world_.assign(n, glm::dmat4(1.0));
  std::vector<char> done(n, 0);
  std::vector<std::int32_t> up;  // a submodel and its ancestors not yet done, nearest first
  for (std::size_t i = 0; i < n; ++i) {
    up.clear();
    for (auto j = static_cast<std::int32_t>(i); j >= 0 && !done[static_cast<std::size_t>(j)]; j = m_.submodels[static_cast<std::size_t>(j)].parent) up.push_back(j);
    for (auto k = up.rbegin(); k != up.rend(); ++k) {
      const Submodel& s = m_.submodels[static_cast<std::size_t>(*k)];
      glm::dmat4 own(1.0);
      if (s.matrix >= 0) own = glm::make_mat4(m_.matrices[static_cast<std::size_t>(s.matrix)].data());
      world_[static_cast<std::size_t>(*k)] = (s.parent >= 0 ? world_[static_cast<std::size_t>(s.parent)] : glm::dmat4(1.0)) * own;
      done[static_cast<std::size_t>(*k)] = 1;
    }
  }
}

void ModelDocument::apply(const OpenOptions& options, std::string_view source_name) {
  placed_ = !options.texture_base.empty();
  const std::string base = placed_ ? options.texture_base : folder_of(source_name);
  if (options.assets) load_textures(*options.assets, base, options.param("skin-set"));
  show_hidden_ = options.param("hidden") == "true";
}

void ModelDocument::load_textures(AssetResolver& assets, std::string_view base, std::string_view skin_set) {
  loaded_.clear(), missing_.clear(), skin_sets_.clear();
  std::vector<std::string> tried;  // each material once, found or not
  const auto load = [&](const std::string& look, std::string_view folder, std::string_view name) {
    if (std::find(tried.begin(), tried.end(), look) != tried.end()) return;
    tried.push_back(look);
    std::string why;
    if (auto t = load_material_texture(assets, folder, name, &why)) loaded_.emplace(look, std::move(*t));
    else missing_.push_back(look.rfind("skin ", 0) == 0 ? fmt::format("{} (replaceable {})", why, look) : why);
  };
  bool skins = false;
  for (const Submodel& s : m_.submodels) {
    if (s.type != triangles || s.vertex_count <= 0) continue;
    if (s.texture < 0) skins = true;
    if (s.texture > 0 && m_.material_of(s) != "colored") load(look_name(s), base, m_.material_of(s));
  }
  if (!skins) return;
  if (placed_) {
    // A scenery's model takes no skins of its own; a vehicle's takes the set its scenery entry
    // names ("<skin>,<n>" from the vehicle's folder, as material_data::assign looks them up).
    if (skin_set.empty() || iequals(skin_set, "none")) return;
    for (const Submodel& s : m_.submodels)
      if (s.texture < 0 && s.texture >= -4) load(look_name(s), base, fmt::format("{},{}", skin_set, -s.texture));
    skin_set_ = std::string(skin_set);
    return;
  }
  // Skin sets: "<set>,<n>" files (a .mat or an image) anywhere among the files, by folder and set.
  std::map<std::string, std::string> sets;  // set path (folder/set) -> folder
  for (const std::string& path : assets.listing()) {
    const auto slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string file = path.substr(folder.size());
    const auto comma = file.rfind(',');
    const auto dot = file.rfind('.');
    if (comma == std::string::npos || dot == std::string::npos || dot < comma + 2) continue;
    const std::string n = file.substr(comma + 1, dot - comma - 1);
    if (n.size() != 1 || n[0] < '1' || n[0] > '4') continue;
    sets.emplace(folder + file.substr(0, comma), folder);
  }
  for (const auto& [set, folder] : sets) skin_sets_.push_back(set);
  if (sets.empty()) {
    missing_.push_back("no skin set among the files (\"<name>,1.dds\" or \"<name>,1.mat\" gives replaceable skin 1)");
    return;
  }
  auto chosen = sets.begin();
  for (auto it = sets.begin(); it != sets.end(); ++it)
    if (!skin_set.empty() && (iequals(it->first, skin_set) || iends_with(it->first, "/" + std::string(skin_set)))) chosen = it;
  skin_set_ = chosen->first;
  const std::string name = chosen->first.substr(chosen->second.size());
  for (const Submodel& s : m_.submodels)
    if (s.texture < 0 && s.texture >= -4) load(look_name(s), chosen->second, fmt::format("{},{}", name, -s.texture));
}

}  // namespace sceneria::e3d
