#include "formats/textures.hpp"

#include <algorithm>

#include <fmt/format.h>

// stb_image: one well-kept decoder for TGA (RLE too), PNG, BMP and JPEG. Memory only, no
// stdio; images larger than a WebGL2 texture are refused before anything is allocated.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#define STBI_ONLY_TGA
#define STBI_ONLY_PNG
#define STBI_ONLY_BMP
#define STBI_ONLY_JPEG
#define STBI_MAX_DIMENSIONS 16384
#include <stb/stb_image.h>

#include "formats/dds/dds.hpp"
#include "formats/maszyna/tokenizer.hpp"

namespace sceneria {

Result<scene::Texture> decode_texture(std::span<const std::uint8_t> bytes, std::string name, ImageRows rows) {
  if (bytes.size() >= 4 && std::equal(bytes.begin(), bytes.begin() + 4, "DDS ")) {
    auto image = dds::read_image(bytes);
    if (!image) return image.error();
    return dds::to_texture(*image, bytes, std::move(name));
  }
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX)) return Error{Errc::bad_count, 0, "an image over 2 GB"};
  int w = 0, h = 0, channels = 0;
  stbi_uc* pixels = stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &channels, 4);
  if (!pixels) return Error{Errc::bad_value, 0, fmt::format("not a DDS, TGA, PNG, BMP or JPEG image that decodes ({})", stbi_failure_reason())};
  scene::Texture t;
  t.name = std::move(name);
  t.format = scene::Texture::Format::rgba8;
  t.width = static_cast<std::uint32_t>(w), t.height = static_cast<std::uint32_t>(h);
  t.levels.emplace_back(pixels, pixels + std::size_t{t.width} * t.height * 4);
  stbi_image_free(pixels);
  if (rows == ImageRows::bottom_first) {
    std::vector<std::uint8_t>& p = t.levels.front();
    const std::size_t stride = std::size_t{t.width} * 4;
    for (std::size_t top = 0, bottom = t.height - 1; top < bottom; ++top, --bottom)
      std::swap_ranges(p.begin() + static_cast<std::ptrdiff_t>(top * stride), p.begin() + static_cast<std::ptrdiff_t>((top + 1) * stride),
                       p.begin() + static_cast<std::ptrdiff_t>(bottom * stride));
  }
  return t;
}

std::string MaterialFile::diffuse() const {
  for (const char* key : {"texture_diffuse", "texture1"})
    if (auto it = keys.find(key); it != keys.end()) return it->second;
  return {};
}

MaterialFile read_material(std::span<const std::uint8_t> bytes) {
  MaterialFile m;
  maszyna::TextTokenizer tok(bytes);
  maszyna::TextToken t;
  std::string key;
  while (tok.next(t)) {
    if (t.text.size() > 1 && t.text.back() == ':') {
      key = maszyna::lower(t.text.substr(0, t.text.size() - 1));
    } else if (!key.empty()) {
      m.keys.emplace(key, std::string(t.text));  // the first value of a key counts
      key.clear();
    }
  }
  return m;
}

std::string texture_key(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '\\', '/');
  // "name:traits" (clamping and the like); a drive letter's colon would be at 1, and is refused
  // by the resolver anyway.
  if (const auto colon = s.rfind(':'); colon != std::string::npos && colon > 1) s.resize(colon);
  const auto slash = s.rfind('/');
  if (const auto dot = s.rfind('.'); dot != std::string::npos && (slash == std::string::npos || dot > slash)) s.resize(dot);
  // "/dynamic/pkp/..." in real TEX0 lists means the game's root, as it does to the engine.
  const auto first = s.find_first_not_of('/');
  return maszyna::lower(first == std::string::npos ? std::string() : s.substr(first));
}

std::span<const std::string_view> image_extensions() {
  static const std::string_view kAll[] = {".dds", ".tga", ".png", ".bmp", ".jpg"};
  return kAll;
}

std::vector<std::string_view> texture_file_extensions() {
  std::vector<std::string_view> out{".mat"};
  for (std::string_view ext : image_extensions()) out.push_back(ext);
  return out;
}

std::vector<std::string> texture_candidates(std::string_view base, std::string_view name, std::span<const std::string_view> extensions) {
  const std::string key = texture_key(name);
  std::string folder(base);
  if (!folder.empty() && folder.back() != '/') folder += '/';
  std::vector<std::string> stems;
  if (!folder.empty()) stems.push_back(folder + key);
  stems.push_back(key);
  stems.push_back("textures/" + key);
  const auto slash = key.rfind('/');
  if (slash != std::string::npos) stems.push_back(folder + key.substr(slash + 1));
  std::vector<std::string> out;
  for (std::string_view e : extensions)
    for (const std::string& s : stems) out.push_back(s + std::string(e));
  return out;
}

std::string folder_of(std::string_view name) {
  // An absolute path (the CLI's file argument) is not under the assets' root: its folder is the
  // root's own.
  if (!normalize_asset_path(name)) return {};
  std::string path(name);
  std::replace(path.begin(), path.end(), '\\', '/');
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::optional<scene::Texture> load_material_texture(AssetResolver& assets, std::string_view base, std::string_view name, std::string* why) {
  static const std::string_view kMat[] = {".mat"};
  std::string image(name);
  if (auto mat = assets.open_quietly(texture_candidates(base, name, kMat))) {
    auto bytes = read_shared(*mat);
    if (bytes) {
      const std::string diffuse = read_material(bytes->view).diffuse();
      if (!diffuse.empty()) image = diffuse;
    }
  }
  auto source = assets.open_first(texture_candidates(base, image, image_extensions()), texture_key(image));
  if (!source) {
    if (why) *why = fmt::format("{}: not found", texture_key(image));
    return std::nullopt;
  }
  if (assets.known(source->name())) {  // the caller has its pixels: named, not read or decoded again
    scene::Texture shared;
    shared.name = std::string(name);
    shared.source = source->name();
    return shared;
  }
  auto bytes = read_shared(*source);
  if (!bytes) {
    if (why) *why = bytes.error().describe();
    return std::nullopt;
  }
  // The engine's rows: v = 0 at a picture's foot, at a DDS's first stored row (Texture.cpp).
  auto texture = decode_texture(bytes->view, std::string(name), ImageRows::bottom_first);
  if (!texture) {
    if (why) *why = fmt::format("{}: {}", source->name(), texture.error().message);
    return std::nullopt;
  }
  texture->source = source->name();  // decoded the same way (rows from the foot) for every model
  return std::move(texture).value();
}

}  // namespace sceneria
