#pragma once
// DirectDraw Surface textures as MaSzyna ships them (notes e3d-t3d.md §9.12): "DDS " and a
// 124-byte header, an optional DX10 header, then the mip chain, largest first. The engine loads
// DXT1/DXT3/DXT5 only; uncompressed pixel formats described by bit masks are read here too.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "scene/scene.hpp"

namespace sceneria::dds {

struct Level {
  std::uint32_t width = 0, height = 0;
  std::uint64_t offset = 0, size = 0;  // in the file
};

struct Image {
  std::uint32_t flags = 0, width = 0, height = 0, pitch_or_linear_size = 0, depth = 0, mip_map_count = 0;
  std::uint32_t pf_flags = 0, rgb_bit_count = 0;
  std::array<std::uint32_t, 4> masks{};  // R, G, B, A
  std::array<std::uint32_t, 4> caps{};
  std::string fourcc;                    // "DXT1", ... ; "" for an uncompressed format
  std::uint32_t dxgi_format = 0;         // with a DX10 header
  scene::Texture::Format format = scene::Texture::Format::none;  // bc1-3, or rgba8 after conversion
  std::vector<Level> levels;
  bool engine_supported = false;         // what the engine's load_DDS accepts
  std::uint64_t data_bytes = 0, expected_bytes = 0;
};

// Reads the header and places the levels; errors say what is wrong and where. Levels the data
// does not hold whole are left off (level 0 must be there).
Result<Image> read_image(std::span<const std::uint8_t> bytes);
// The texture for the renderer: block levels as stored, or uncompressed pixels as RGBA8.
scene::Texture to_texture(const Image& image, std::span<const std::uint8_t> bytes, std::string name);

}  // namespace sceneria::dds

namespace sceneria::dds {

// A DXT1 (BC1) texture of `rgba` (width × height × 4 bytes, top row first, as DDS stores rows),
// with its whole mip chain box-filtered down to 1 × 1: what the core's generated examples ship, so
// they take the same block-compressed path as a game's textures. Width and height: multiples of 4.
std::vector<std::uint8_t> write_dxt1(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgba);

}  // namespace sceneria::dds
