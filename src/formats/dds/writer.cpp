#include <algorithm>
#include <array>
#include <cstring>

#include "formats/dds/dds.hpp"

namespace sceneria::dds {

namespace {

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::uint16_t to565(const std::uint8_t* c) {
  return static_cast<std::uint16_t>(((c[0] >> 3) << 11) | ((c[1] >> 2) << 5) | (c[2] >> 3));
}

std::array<int, 3> from565(std::uint16_t v) {
  const int r = (v >> 11) & 31, g = (v >> 5) & 63, b = v & 31;
  return {(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)};
}

// One 4 × 4 block: the ends of the colours' bounding box, each texel the nearest of the four.
// Not the best encoder there is, but a generated texture's smooth noise needs no better.
void encode_block(const std::uint8_t* texels, std::vector<std::uint8_t>& out) {
  std::array<std::uint8_t, 3> lo{255, 255, 255}, hi{0, 0, 0};
  for (int i = 0; i < 16; ++i)
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], texels[4 * i + c]);
      hi[c] = std::max(hi[c], texels[4 * i + c]);
    }
  std::uint16_t c0 = to565(hi.data()), c1 = to565(lo.data());
  std::uint32_t indices = 0;
  if (c0 < c1) std::swap(c0, c1);
  if (c0 != c1) {  // c0 > c1: the four-colour mode
    const auto a = from565(c0), b = from565(c1);
    std::array<std::array<int, 3>, 4> palette{};
    for (int c = 0; c < 3; ++c) {
      palette[0][c] = a[c];
      palette[1][c] = b[c];
      palette[2][c] = (2 * a[c] + b[c]) / 3;
      palette[3][c] = (a[c] + 2 * b[c]) / 3;
    }
    for (int i = 0; i < 16; ++i) {
      int best = 0, best_d = 1 << 30;
      for (int p = 0; p < 4; ++p) {
        int d = 0;
        for (int c = 0; c < 3; ++c) d += (texels[4 * i + c] - palette[p][c]) * (texels[4 * i + c] - palette[p][c]);
        if (d < best_d) best = p, best_d = d;
      }
      indices |= static_cast<std::uint32_t>(best) << (2 * i);
    }
  }
  out.push_back(static_cast<std::uint8_t>(c0));
  out.push_back(static_cast<std::uint8_t>(c0 >> 8));
  out.push_back(static_cast<std::uint8_t>(c1));
  out.push_back(static_cast<std::uint8_t>(c1 >> 8));
  put32(out, indices);
}

void encode_level(std::uint32_t w, std::uint32_t h, const std::vector<std::uint8_t>& rgba, std::vector<std::uint8_t>& out) {
  std::array<std::uint8_t, 64> block{};
  for (std::uint32_t by = 0; by < (h + 3) / 4; ++by)
    for (std::uint32_t bx = 0; bx < (w + 3) / 4; ++bx) {
      for (std::uint32_t y = 0; y < 4; ++y)
        for (std::uint32_t x = 0; x < 4; ++x) {  // edges of a level under 4 texels repeat
          const std::uint32_t sx = std::min(bx * 4 + x, w - 1), sy = std::min(by * 4 + y, h - 1);
          std::memcpy(&block[4 * (4 * y + x)], &rgba[4 * (std::size_t(sy) * w + sx)], 4);
        }
      encode_block(block.data(), out);
    }
}

std::vector<std::uint8_t> halved(std::uint32_t w, std::uint32_t h, const std::vector<std::uint8_t>& rgba) {
  const std::uint32_t hw = std::max(1u, w / 2), hh = std::max(1u, h / 2);
  std::vector<std::uint8_t> out(std::size_t(hw) * hh * 4);
  for (std::uint32_t y = 0; y < hh; ++y)
    for (std::uint32_t x = 0; x < hw; ++x)
      for (int c = 0; c < 4; ++c) {
        int sum = 0;
        for (std::uint32_t dy = 0; dy < 2; ++dy)
          for (std::uint32_t dx = 0; dx < 2; ++dx)
            sum += rgba[4 * (std::size_t(std::min(2 * y + dy, h - 1)) * w + std::min(2 * x + dx, w - 1)) + c];
        out[4 * (std::size_t(y) * hw + x) + c] = static_cast<std::uint8_t>((sum + 2) / 4);
      }
  return out;
}

}  // namespace

std::vector<std::uint8_t> write_dxt1(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgba) {
  std::uint32_t levels = 1;
  while ((width >> (levels - 1)) > 1 || (height >> (levels - 1)) > 1) ++levels;
  std::vector<std::uint8_t> out;
  out.insert(out.end(), {'D', 'D', 'S', ' '});
  put32(out, 124);
  put32(out, 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x80000);  // caps, height, width, pixel format, mips, linear size
  put32(out, height);
  put32(out, width);
  put32(out, std::max(1u, (width + 3) / 4) * std::max(1u, (height + 3) / 4) * 8);
  put32(out, 0);       // depth
  put32(out, levels);
  for (int i = 0; i < 11; ++i) put32(out, 0);
  put32(out, 32);      // the pixel format's size
  put32(out, 0x4);     // FourCC
  out.insert(out.end(), {'D', 'X', 'T', '1'});
  for (int i = 0; i < 5; ++i) put32(out, 0);
  put32(out, 0x1000 | 0x8 | 0x400000);  // texture, complex, mip map
  for (int i = 0; i < 4; ++i) put32(out, 0);
  std::vector<std::uint8_t> level(rgba.begin(), rgba.end());
  std::uint32_t w = width, h = height;
  for (std::uint32_t l = 0; l < levels; ++l) {
    encode_level(w, h, level, out);
    if (l + 1 < levels) {
      level = halved(w, h, level);
      w = std::max(1u, w / 2);
      h = std::max(1u, h / 2);
    }
  }
  return out;
}

}  // namespace sceneria::dds
