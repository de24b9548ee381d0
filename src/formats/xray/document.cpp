// An object opened: its records and the textures its surfaces name, found through the resolver.
#include "formats/xray/document.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/textures.hpp"

namespace sceneria::xray {

XrayDocument::XrayDocument(File file, std::uint64_t size, std::string name)
    : f_(std::move(file)), size_(size), name_(std::move(name)), textures_(f_.object.surfaces.size()) {}

void XrayDocument::load_textures(AssetResolver& assets) {
  const auto& surfaces = f_.object.surfaces;
  for (std::size_t s = 0; s < surfaces.size(); ++s) {
    const std::string& t = surfaces[s].texture;
    if (t.empty() || t[0] == '$') continue;  // none, or an engine placeholder ($shadertest)
    std::string path = display_cp1251(t);
    std::replace(path.begin(), path.end(), '\\', '/');
    // gamedata/textures/<name>.dds as the SDK keeps them; the resolver matches any case, and a
    // dropped folder by its trailing components.
    auto source = assets.open_first({path + ".dds", "textures/" + path + ".dds", "gamedata/textures/" + path + ".dds"}, path + ".dds");
    if (!source) continue;
    auto bytes = source->read_vector(0, source->size());
    if (!bytes) {
      missing_.push_back(fmt::format("{}: {}", source->name(), bytes.error().message));
      continue;
    }
    auto texture = decode_texture(*bytes, path);
    if (!texture) {
      missing_.push_back(fmt::format("{}: {}", source->name(), texture.error().message));
      continue;
    }
    textures_[s] = std::move(texture).value();
  }
  for (const std::string& m : assets.missing())
    if (std::find(missing_.begin(), missing_.end(), m) == missing_.end()) missing_.push_back(m);
}

}  // namespace sceneria::xray
