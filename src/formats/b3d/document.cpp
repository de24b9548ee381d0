// A module opened: its materials looked up in its resources (its own .res, then COMMON/COMMON.RES)
// and what its links name in the other modules opened with it.
#include "formats/b3d/document.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/text.hpp"

namespace sceneria::b3d {

Name name_at(const Block& b, std::size_t at) {
  Name n{};
  if (at + 8 <= b.words.size()) std::memcpy(n.data(), b.words.data() + at, 32);
  return n;
}

std::string key_of(const Name& n) {
  const auto* end = std::find(n.begin(), n.end(), std::uint8_t{0});
  return std::string(reinterpret_cast<const char*>(n.data()), static_cast<std::size_t>(end - n.begin()));
}

bool hidden_type(std::uint32_t t) { return (t >= 12 && t <= 17) || t == 20 || t == 23 || t == 30 || t == 40; }

B3dDocument::B3dDocument(File file, std::uint64_t size, std::string name, std::vector<Resources> resources, ViewOptions view,
                         std::vector<std::string> missing, std::vector<LinkedModule> linked)
    : f_(std::move(file)), size_(size), name_(std::move(name)), resources_(std::move(resources)), view_(view), missing_(std::move(missing)),
      linked_(std::move(linked)) {}

std::optional<B3dDocument::Look> look_up(const File& file, const std::vector<Resources>& resources, std::uint32_t texnum) {
  if (texnum >= file.materials.size()) return std::nullopt;
  const std::string name = key_of(file.materials[texnum]);
  for (std::size_t r = 0; r < resources.size(); ++r)
    if (const ResSection* m = resources[r].res.section("MATERIALS"))
      for (const ResEntry& e : m->entries)
        if (ResMaterial rm = parse_material(e.text); iequals(rm.name, name)) return B3dDocument::Look{r, std::move(rm)};
  return std::nullopt;
}

std::optional<B3dDocument::Look> B3dDocument::look(std::uint32_t texnum) const { return look_up(f_, resources_, texnum); }

bool has_block(const File& file, const std::string& name) {
  return std::any_of(file.blocks.begin(), file.blocks.end(), [&](const Block& b) { return key_of(b.name) == name; });
}

std::vector<std::string> unresolved_links(const File& file) {
  std::vector<std::string> out;
  for (const Block& b : file.blocks)
    if (b.type == 18)
      if (const std::string object = key_of(name_at(b, 12)); !object.empty() && !has_block(file, object) &&
                                                             std::find(out.begin(), out.end(), object) == out.end())
        out.push_back(object);
  return out;
}

}  // namespace sceneria::b3d
