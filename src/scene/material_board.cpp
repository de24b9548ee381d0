#include "scene/material_board.hpp"

#include <glm/gtc/constants.hpp>
#include <glm/gtc/quaternion.hpp>

namespace sceneria::scene {

namespace {

// An 8 m square in the XY plane facing +Z (counter-clockwise seen from +Z), UV (0,0) at the
// top left so a texture reads as an image.
Mesh board(const std::string& name, std::uint32_t material) {
  Mesh m;
  m.name = name;
  const float h = 4.0f;
  m.positions = {{-h, -h, 0}, {h, -h, 0}, {h, h, 0}, {-h, h, 0}};
  m.normals.assign(4, {0, 0, 1});
  m.uvs = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  m.indices = {0, 1, 2, 0, 2, 3};
  m.parts = {{material, 0, 6}};
  m.bounds_min = {-h, -h, 0};
  m.bounds_max = {h, h, 0};
  return m;
}

// A 4x4 BC1 block of one colour (RGB565 c0 > c1, every index 0).
void solid_block(std::vector<std::uint8_t>& out, std::uint16_t c565) {
  out.insert(out.end(), {static_cast<std::uint8_t>(c565 & 0xFF), static_cast<std::uint8_t>(c565 >> 8), 0, 0, 0, 0, 0, 0});
}

}  // namespace

Scene material_board() {
  Scene s;
  s.add_material({});
  s.add_kind("boards");

  Texture checker{"checker.rgba", Texture::Format::rgba8, 2, 2, {}};
  checker.levels.push_back({255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 0, 255});
  Texture blocks{"checker.bc1", Texture::Format::bc1, 8, 8, {{}}};
  // Four 4x4 blocks in the same layout: red, green / blue, yellow (RGB565 with c0 > c1 needs a
  // non-zero c0, which every colour here is).
  solid_block(blocks.levels[0], 0xF800);
  solid_block(blocks.levels[0], 0x07E0);
  solid_block(blocks.levels[0], 0x001F);
  solid_block(blocks.levels[0], 0xFFE0);
  Texture cutout{"half.rgba", Texture::Format::rgba8, 2, 1, {}};
  cutout.levels.push_back({255, 255, 255, 0, 255, 255, 255, 255});
  s.textures = {checker, blocks, cutout};

  Material opaque;
  opaque.name = "checker";
  opaque.texture = 0;
  Material two_sided;
  two_sided.name = "checker bc1, two-sided";
  two_sided.texture = 1;
  two_sided.two_sided = true;
  Material masked;
  masked.name = "left half cut out";
  masked.texture = 2;
  masked.alpha = Material::Alpha::mask;
  Material blended;
  blended.name = "half transparent red";
  blended.color = rgba(1, 0, 0, 0.5f);
  blended.alpha = Material::Alpha::blend;
  const std::uint32_t materials[4] = {s.add_material(opaque), s.add_material(two_sided), s.add_material(masked),
                                      s.add_material(blended)};
  for (int k = 0; k < 4; ++k) s.meshes.push_back(board("board " + std::to_string(k), materials[k]));

  const glm::quat turned = glm::angleAxis(glm::pi<float>(), glm::vec3(0, 1, 0));
  for (int k = 0; k < 4; ++k)
    for (int up = 0; up < 2; ++up) {
      const glm::dvec3 at(-30.0 + 20.0 * k, up ? 16.0 : 4.0, 0.0);
      Section& sec = s.section_at(at);
      Instance i;
      i.offset = glm::vec3(at - sec.origin);
      i.rotation = up ? turned : glm::quat(1, 0, 0, 0);
      i.mesh = static_cast<std::uint32_t>(k);
      i.object = s.add_object(0, static_cast<std::uint64_t>(2 * k + up), at, 6.0f);
      sec.instances.push_back(i);
    }
  s.finish();
  return s;
}

}  // namespace sceneria::scene
