#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "core/fourcc.hpp"
#include "formats/dds/dds.hpp"

namespace sceneria::dds {
namespace {

using Format = scene::Texture::Format;

constexpr std::uint32_t kMipMapCount = 0x20000, kFourCC = 0x4, kAlphaPixels = 0x1, kAlpha = 0x2, kRgb = 0x40, kLuminance = 0x20000;
constexpr std::uint32_t kMaxSide = 16384;  // the largest texture WebGL2 devices take

std::uint32_t u32(std::span<const std::uint8_t> b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

std::uint64_t level_bytes(const Image& im, std::uint32_t w, std::uint32_t h) {
  if (im.format == Format::bc1 || im.format == Format::bc2 || im.format == Format::bc3)
    return std::uint64_t{std::max(1u, (w + 3) / 4)} * std::max(1u, (h + 3) / 4) * (im.format == Format::bc1 ? 8 : 16);
  return std::uint64_t{w} * h * (im.rgb_bit_count / 8);
}

// One channel from a pixel by its mask, scaled to 8 bits; `missing` where the mask is empty.
std::uint8_t channel(std::uint32_t pixel, std::uint32_t mask, std::uint8_t missing) {
  if (mask == 0) return missing;
  const int shift = std::countr_zero(mask);
  const std::uint32_t max = mask >> shift;
  return static_cast<std::uint8_t>(((pixel & mask) >> shift) * 255u / max);
}

}  // namespace

Result<Image> read_image(std::span<const std::uint8_t> b) {
  if (b.size() < 128) return Error{Errc::truncated, 0, fmt::format("a DDS needs a 128-byte header; the file has {} bytes", b.size())};
  if (std::memcmp(b.data(), "DDS ", 4) != 0) return Error{Errc::bad_magic, 0, "not a DDS (no \"DDS \" magic)"};
  if (u32(b, 4) != 124) return Error{Errc::bad_value, 4, fmt::format("header size {} (a DDS header is 124 bytes)", u32(b, 4))};
  Image im;
  im.flags = u32(b, 8), im.height = u32(b, 12), im.width = u32(b, 16), im.pitch_or_linear_size = u32(b, 20);
  im.depth = u32(b, 24), im.mip_map_count = u32(b, 28);
  im.pf_flags = u32(b, 80), im.rgb_bit_count = u32(b, 88);
  for (std::size_t i = 0; i < 4; ++i) im.masks[i] = u32(b, 92 + 4 * i), im.caps[i] = u32(b, 108 + 4 * i);
  if (im.width == 0 || im.height == 0 || im.width > kMaxSide || im.height > kMaxSide)
    return Error{Errc::bad_value, 12, fmt::format("texture of {}x{} pixels (1 to {} a side)", im.width, im.height, kMaxSide)};
  if (im.caps[1] & 0x200000) return Error{Errc::bad_value, 112, "a volume texture (only 2D textures are read)"};
  std::uint64_t data = 128;
  // The FourCC compared as one word: string comparisons (libc++'s strlen and compare) were a
  // third of reading a header in WebAssembly.
  bool engine_fourcc = false;
  if (im.pf_flags & kFourCC) {
    const std::uint32_t cc = u32(b, 84);
    im.fourcc.assign(reinterpret_cast<const char*>(b.data() + 84), 4);
    engine_fourcc = cc == fourcc('D', 'X', 'T', '1') || cc == fourcc('D', 'X', 'T', '3') || cc == fourcc('D', 'X', 'T', '5');
    if (cc == fourcc('D', 'X', 'T', '1')) im.format = Format::bc1;
    else if (cc == fourcc('D', 'X', 'T', '2') || cc == fourcc('D', 'X', 'T', '3')) im.format = Format::bc2;
    else if (cc == fourcc('D', 'X', 'T', '4') || cc == fourcc('D', 'X', 'T', '5')) im.format = Format::bc3;
    else if (cc == fourcc('D', 'X', '1', '0')) {
      if (b.size() < 148) return Error{Errc::truncated, 128, "the DX10 header is cut short"};
      im.dxgi_format = u32(b, 128);
      data = 148;
      switch (im.dxgi_format) {
        case 70: case 71: case 72: im.format = Format::bc1; break;
        case 73: case 74: case 75: im.format = Format::bc2; break;
        case 76: case 77: case 78: im.format = Format::bc3; break;
        case 27: case 28: case 29: im.format = Format::rgba8, im.rgb_bit_count = 32, im.masks = {0xFF, 0xFF00, 0xFF0000, 0xFF000000}; break;
        case 87: case 90: case 91: im.format = Format::rgba8, im.rgb_bit_count = 32, im.masks = {0xFF0000, 0xFF00, 0xFF, 0xFF000000}; break;
        case 88: case 92: case 93: im.format = Format::rgba8, im.rgb_bit_count = 32, im.masks = {0xFF0000, 0xFF00, 0xFF, 0}; break;
        default: return Error{Errc::bad_value, 128, fmt::format("DX10 pixel format {} is not read (BC1-3 and 8-bit RGBA are)", im.dxgi_format)};
      }
    } else {
      std::string shown;
      for (char c : im.fourcc) shown += (c >= 0x20 && c < 0x7F) ? c : '?';
      return Error{Errc::bad_value, 84, fmt::format("FourCC \"{}\" is not read (DXT1, DXT3, DXT5, DX10 are)", shown)};
    }
  } else if (im.pf_flags & (kRgb | kLuminance | kAlpha)) {
    if (im.rgb_bit_count != 8 && im.rgb_bit_count != 16 && im.rgb_bit_count != 24 && im.rgb_bit_count != 32)
      return Error{Errc::bad_value, 88, fmt::format("{} bits per pixel (8, 16, 24 or 32 are read)", im.rgb_bit_count)};
    if (im.pf_flags & kLuminance) im.masks[1] = im.masks[2] = im.masks[0];  // grey: one mask for all three
    if (im.pf_flags & kAlpha) im.masks[0] = im.masks[1] = im.masks[2] = 0;
    if (!(im.pf_flags & (kAlphaPixels | kAlpha))) im.masks[3] = 0;
    im.format = Format::rgba8;
  } else {
    return Error{Errc::bad_value, 80, fmt::format("pixel format flags {:#x} name no format", im.pf_flags)};
  }

  // The chain: the header's count when its flag says so (0 with the flag is what the engine
  // refuses; read as one level), never past 1x1.
  std::uint32_t count = (im.flags & kMipMapCount) ? std::max(1u, im.mip_map_count) : 1;
  count = std::min<std::uint32_t>(count, static_cast<std::uint32_t>(std::bit_width(std::max(im.width, im.height))));
  std::uint32_t w = im.width, h = im.height;
  std::uint64_t at = data;
  im.levels.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t size = level_bytes(im, w, h);
    im.expected_bytes += size;
    // The engine reads every level it is told of, past the file's end when it is cut: refused here.
    if (at + size > b.size() && i == 0)
      return Error{Errc::truncated, data, fmt::format("level 0 ({}x{}) needs {} bytes; {} follow the header", w, h, size, b.size() - data)};
    if (at + size > b.size())
      return Error{Errc::truncated, at,
                   fmt::format("level {} of {} ({}x{}) needs {} bytes at {:#x}; the file ends at {:#x}", i, count, w, h, size, at, b.size())};
    im.levels.push_back({w, h, at, size});
    at += size;
    w = std::max(1u, w / 2), h = std::max(1u, h / 2);
  }
  im.data_bytes = b.size() - data;
  im.engine_supported = engine_fourcc && !((im.flags & kMipMapCount) && im.mip_map_count == 0);
  return im;
}

scene::Texture to_texture(const Image& im, std::span<const std::uint8_t> bytes, std::string name) {
  scene::Texture t;
  t.name = std::move(name);
  t.format = im.format;
  t.width = im.width, t.height = im.height;
  t.levels.reserve(im.levels.size());
  for (const Level& l : im.levels) {
    const auto src = bytes.subspan(static_cast<std::size_t>(l.offset), static_cast<std::size_t>(l.size));
    if (im.format != Format::rgba8) {
      t.levels.emplace_back(src.begin(), src.end());
      continue;
    }
    const std::size_t step = im.rgb_bit_count / 8, n = std::size_t{l.width} * l.height;
    std::vector<std::uint8_t> px(n * 4);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t p = 0;
      std::memcpy(&p, src.data() + i * step, step);
      px[4 * i + 0] = channel(p, im.masks[0], 0);
      px[4 * i + 1] = channel(p, im.masks[1], 0);
      px[4 * i + 2] = channel(p, im.masks[2], 0);
      px[4 * i + 3] = channel(p, im.masks[3], 255);
    }
    t.levels.push_back(std::move(px));
  }
  return t;
}

}  // namespace sceneria::dds
