#pragma once
// Textures and materials as MaSzyna models name them (scenery notes B6, e3d-t3d §7): the
// engine's lookup order through the asset resolver, `.mat` files, and image decoding (DDS read
// here with its blocks kept; TGA, PNG, BMP and JPEG decoded by stb_image). Shared by the model
// formats; formats decide what to load, this only finds and decodes.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/assets.hpp"
#include "scene/scene.hpp"

namespace sceneria {

// A texture file for the renderer: DDS levels as stored (BC1-3) or RGBA8; other images RGBA8
// with one level (the renderer makes the mips). A texture's first row is where v = 0 samples.
// `rows` places a TGA, PNG, BMP or JPEG: its top row first, or its bottom row first, as MaSzyna
// keeps them (stb_image flipped on load, a TGA by its origin bit) while it uploads a DDS as
// stored. Errors say what the file is and why it failed.
enum class ImageRows : std::uint8_t { top_first, bottom_first };
Result<scene::Texture> decode_texture(std::span<const std::uint8_t> bytes, std::string name, ImageRows rows = ImageRows::top_first);

// A `.mat` material: `key: value` pairs (texture1:/texture_diffuse:, texture2:/texture_normalmap:,
// texture_reflmap:, shader:, ...), keys lower-cased without their colon.
struct MaterialFile {
  std::map<std::string, std::string> keys;
  std::string diffuse() const;  // texture_diffuse, or the legacy texture1
};
MaterialFile read_material(std::span<const std::uint8_t> bytes);

// How the engine names the file for a texture or material reference: '\' as '/', a `:traits`
// suffix and the extension dropped, lower case.
std::string texture_key(std::string_view name);
// The paths the engine tries for `name`, for files with `extensions` (".mat", or the image
// extensions in the engine's order): under the model's folder `base` ("" for none), as named,
// under textures/. Last, as a viewer's own rule for folders flattened by hand, the file name
// alone in `base`.
std::vector<std::string> texture_candidates(std::string_view base, std::string_view name, std::span<const std::string_view> extensions);
// .dds .tga .png .bmp .jpg: the engine's order, without the kinds a browser cannot show (.ktx, .tex).
std::span<const std::string_view> image_extensions();
// The files a model's or scenery's textures come from: `.mat` and the image extensions.
std::vector<std::string_view> texture_file_extensions();

// The folder part of a file's path ("a/b/" of "a\\b\\c.e3d"; "" for a bare name): where a
// model's textures are looked for first.
std::string folder_of(std::string_view path);

// A texture as the engine resolves a material name: its `.mat` first (then the texture it names),
// else the image itself. nullopt when nothing is found or it does not decode; `why` says which.
std::optional<scene::Texture> load_material_texture(AssetResolver& assets, std::string_view base, std::string_view name, std::string* why = nullptr);

}  // namespace sceneria
