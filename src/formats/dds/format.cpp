#include "formats/dds/format.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/dds/dds.hpp"
#include "formats/open_file.hpp"

namespace sceneria::dds {
namespace {

using ojson = nlohmann::ordered_json;

std::string format_name(const Image& im) {
  if (!im.fourcc.empty() && im.fourcc != "DX10") return im.fourcc;
  if (im.dxgi_format) return fmt::format("DX10 format {}", im.dxgi_format);
  return fmt::format("{}-bit RGB(A)", im.rgb_bit_count);
}

// A texture: its header and mip levels as records, and a quad to look at it on.
class DdsDocument final : public Document {
 public:
  DdsDocument(Image image, SharedBytes bytes) : im_(std::move(image)), bytes_(std::move(bytes)) {}

  std::string_view format_id() const override { return "dds"; }
  std::string headline() const override {
    return fmt::format("DDS texture, {}x{}, {}, {} mip level{}", im_.width, im_.height, format_name(im_), im_.levels.size(), im_.levels.size() == 1 ? "" : "s");
  }

  ojson summary(std::size_t) const override {
    ojson j;
    j["format"] = "dds";
    j["version"] = 0;
    j["size"] = bytes_.view.size();
    // What `sceneria info --json` promises for a texture.
    j["width"] = im_.width;
    j["height"] = im_.height;
    j["mips"] = im_.levels.size();
    j["fourcc"] = im_.fourcc;
    j["flags"] = fmt::format("{:#010x}", im_.flags);
    j["engine_supported"] = im_.engine_supported;
    j["expected_data_bytes"] = im_.expected_bytes;
    j["actual_data_bytes"] = im_.data_bytes;
    j["counts"] = {{"levels", im_.levels.size()}};
    auto structure = ojson::array();
    structure.push_back({{"name", "header"}, {"offset", 0}, {"size", im_.levels.front().offset}});
    for (std::size_t i = 0; i < im_.levels.size(); ++i)
      structure.push_back({{"name", fmt::format("level {}", i)}, {"offset", im_.levels[i].offset}, {"size", im_.levels[i].size},
                           {"detail", fmt::format("{}x{}", im_.levels[i].width, im_.levels[i].height)}});
    j["structure"] = std::move(structure);
    j["structureName"] = "parts";  // the header and each level: "11 mip levels" for 10 misled
    return j;
  }

  std::vector<ListInfo> lists() const override { return {{"levels", "Mip levels", im_.levels.size()}}; }

  ojson rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override {
    auto out = ojson::array();
    if (list != "levels") return out;
    for (std::uint64_t i = first; i < im_.levels.size() && i < first + count; ++i) out.push_back(row(i));
    return out;
  }
  ojson search(std::string_view list, std::string_view query, std::uint64_t limit) const override {
    auto out = ojson::array();
    if (list != "levels") return out;
    for (std::uint64_t i = 0; i < im_.levels.size() && out.size() < limit; ++i) {
      ojson r = row(i);
      if (icontains(r["name"].get<std::string>() + " " + r["detail"].get<std::string>(), query)) out.push_back(std::move(r));
    }
    return out;
  }
  ojson record(std::string_view list, std::uint64_t index) const override {
    if (list != "levels" || index >= im_.levels.size()) return nullptr;
    const Level& l = im_.levels[static_cast<std::size_t>(index)];
    return ojson{{"level", index}, {"width", l.width}, {"height", l.height}, {"offset", l.offset}, {"bytes", l.size}, {"format", format_name(im_)}};
  }

  // The texture on a two-sided quad on the ground, 2 m deep and as wide as its aspect says.
  Result<scene::Scene> scene() const override {
    scene::Scene s;
    s.grid = {.cell = 1000.0, .centre = 250, .cells = 500};
    const std::uint32_t kind = s.add_kind("levels");
    const std::uint32_t tex = static_cast<std::uint32_t>(s.textures.size());
    s.textures.push_back(to_texture(im_, bytes_.view, "texture"));
    scene::Material look;
    look.name = "texture";
    look.texture = tex;
    look.two_sided = true;
    if (im_.format == scene::Texture::Format::bc2 || im_.format == scene::Texture::Format::bc3 || im_.masks[3]) look.alpha = scene::Material::Alpha::blend;
    const std::uint32_t material = s.add_material(look);
    const float hz = 1.0f, hx = hz * static_cast<float>(im_.width) / static_cast<float>(im_.height);
    scene::Mesh quad;
    quad.name = "texture";
    // Seen from above with north up: v runs down the image, so the image's top edge is at -z.
    quad.positions = {{-hx, 0, -hz}, {hx, 0, -hz}, {hx, 0, hz}, {-hx, 0, hz}};
    quad.normals.assign(4, glm::vec3(0, 1, 0));
    quad.uvs = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    quad.indices = {0, 2, 1, 0, 3, 2};
    quad.parts.push_back({material, 0, 6});
    quad.bounds_min = {-hx, 0, -hz}, quad.bounds_max = {hx, 0, hz};
    s.meshes.push_back(std::move(quad));
    scene::Section& sec = s.section_at(glm::dvec3(0));
    scene::Instance inst;
    inst.mesh = 0;
    inst.offset = glm::vec3(-sec.origin);
    inst.object = s.add_object(kind, 0, glm::dvec3(0), std::max(hx, hz));
    sec.instances.push_back(inst);
    s.finish();
    return s;
  }

 private:
  ojson row(std::uint64_t i) const {
    const Level& l = im_.levels[static_cast<std::size_t>(i)];
    return ojson{{"i", i}, {"name", fmt::format("level {}", i)}, {"detail", fmt::format("{}x{}, {} bytes", l.width, l.height, l.size)}};
  }
  Image im_;
  SharedBytes bytes_;
};

bool probe(std::span<const std::uint8_t> head, std::string_view) { return head.size() >= 4 && std::memcmp(head.data(), "DDS ", 4) == 0; }

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions&) {
  auto bytes = read_whole(source, "texture", std::uint64_t{1} << 30);
  if (!bytes) return bytes.error();
  auto image = read_image(bytes->view);
  if (!image) return image.error();
  return std::unique_ptr<Document>(new DdsDocument(std::move(image).value(), std::move(bytes).value()));
}

}  // namespace

const Format& format() {
  static const Format f{
      .id = "dds",
      .name = "DirectDraw Surface texture (.dds)",
      .extensions = {".dds"},
      .probe = probe,
      .open = open,
      .writers = {},
      .picture = true,
  };
  return f;
}

}  // namespace sceneria::dds
