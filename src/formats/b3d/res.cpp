#include "formats/b3d/res.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <type_traits>

#include <fast_float/fast_float.h>
#include <fmt/format.h>

namespace sceneria::b3d {

namespace {

// Sections whose entries each carry a file after their C-string.
constexpr std::string_view kFileSections[] = {"TEXTUREFILES", "PALETTEFILES", "MASKFILES", "SOUNDFILES", "BACKFILES"};
constexpr std::string_view kStringSections[] = {"COLORS", "MATERIALS", "SOUNDS"};

bool is_file_section(std::string_view name) { return std::find(std::begin(kFileSections), std::end(kFileSections), name) != std::end(kFileSections); }
bool is_string_section(std::string_view name) {
  return std::find(std::begin(kStringSections), std::end(kStringSections), name) != std::end(kStringSections);
}

template <class T>
T load(std::span<const std::uint8_t> b, std::size_t at) {
  T v{};
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

}  // namespace

bool ResSection::files() const { return is_file_section(name); }

const ResSection* ResFile::section(std::string_view name) const {
  for (const ResSection& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

Result<ResFile> read_res(std::span<const std::uint8_t> b) {
  ResFile f;
  std::size_t at = 0;
  // A C-string from `at`, or nullopt if no NUL ends it.
  const auto cstring = [&](std::string& out) {
    const auto end = std::find(b.begin() + static_cast<std::ptrdiff_t>(at), b.end(), std::uint8_t{0});
    if (end == b.end()) return false;
    out.assign(reinterpret_cast<const char*>(b.data() + at), static_cast<std::size_t>(end - (b.begin() + static_cast<std::ptrdiff_t>(at))));
    at += out.size() + 1;
    return true;
  };
  while (at < b.size()) {
    const std::size_t section_at = at;
    ResSection s;
    if (!cstring(s.header)) break;  // not a section: trailing bytes
    const std::size_t space = s.header.find(' ');
    s.name = s.header.substr(0, space);
    const std::string count = space == std::string::npos ? std::string() : s.header.substr(space + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), s.count);
    if (ec != std::errc() || end != count.data() + count.size() || (!is_file_section(s.name) && !is_string_section(s.name))) {
      at = section_at;  // not a section header we know: kept as trailing bytes
      break;
    }
    // Each entry takes at least its NUL (and a file entry its length): the count is checked so.
    const std::size_t least = s.files() ? 5 : 1;
    if (s.count > (b.size() - at) / least)
      return Error{Errc::bad_count, section_at, fmt::format("RES section \"{}\" at {:#x} claims {} entries but only {} bytes remain", s.name, section_at, s.count, b.size() - at)};
    s.entries.resize(s.count);
    for (std::uint32_t k = 0; k < s.count; ++k) {
      ResEntry& e = s.entries[k];
      const std::size_t entry_at = at;
      if (!cstring(e.text))
        return Error{Errc::truncated, entry_at, fmt::format("RES section \"{}\" entry {} at {:#x}: its name runs to the end of the file", s.name, k, entry_at)};
      if (!s.files()) continue;
      if (b.size() - at < 4) return Error{Errc::truncated, at, fmt::format("RES section \"{}\" entry {} (\"{}\"): no length", s.name, k, e.text)};
      const auto n = load<std::uint32_t>(b, at);
      at += 4;
      if (n > b.size() - at)
        return Error{Errc::bad_count, at - 4, fmt::format("RES section \"{}\" entry {} (\"{}\") at {:#x} claims {} bytes but only {} remain", s.name, k, e.text, entry_at, n, b.size() - at)};
      e.has_data = true;
      e.data.assign(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
    }
    f.sections.push_back(std::move(s));
  }
  // Every .res the games ship starts with a section (PALETTEFILES first); bytes with none are not
  // one, or are what is left of one cut short.
  if (f.sections.empty())
    return Error{b.empty() ? Errc::truncated : Errc::bad_value, 0,
                 b.empty() ? std::string("an empty RES file") : std::string("no RES section (such as \"PALETTEFILES 1\") at the start")};
  f.trailing.assign(b.begin() + static_cast<std::ptrdiff_t>(std::min(at, b.size())), b.end());
  return f;
}

std::vector<std::uint8_t> write_res(const ResFile& f) {
  std::vector<std::uint8_t> out;
  const auto text = [&](const std::string& s) {
    out.insert(out.end(), s.begin(), s.end());
    out.push_back(0);
  };
  for (const ResSection& s : f.sections) {
    text(s.header);
    for (const ResEntry& e : s.entries) {
      text(e.text);
      if (!e.has_data) continue;
      const auto n = static_cast<std::uint32_t>(e.data.size());
      for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(n >> (8 * k)));
      out.insert(out.end(), e.data.begin(), e.data.end());
    }
  }
  out.insert(out.end(), f.trailing.begin(), f.trailing.end());
  return out;
}

ResMaterial parse_material(std::string_view entry) {
  ResMaterial m;
  const std::size_t space = entry.find(' ');
  m.name = std::string(entry.substr(0, space));
  m.params = space == std::string_view::npos ? std::string() : std::string(entry.substr(space + 1));
  std::vector<std::string_view> tokens;
  for (std::size_t at = 0; at < m.params.size();) {
    const std::size_t end = std::min(m.params.find(' ', at), m.params.size());
    if (end > at) tokens.push_back(std::string_view(m.params).substr(at, end - at));
    at = end + 1;
  }
  const auto number = [&](std::size_t k, auto& v) {
    if (k + 1 >= tokens.size()) return;
    // fast_float for the float: this libc++ (Emscripten's) has no floating from_chars.
    if constexpr (std::is_floating_point_v<std::remove_reference_t<decltype(v)>>)
      fast_float::from_chars(tokens[k + 1].data(), tokens[k + 1].data() + tokens[k + 1].size(), v);
    else
      std::from_chars(tokens[k + 1].data(), tokens[k + 1].data() + tokens[k + 1].size(), v);
  };
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::string_view t = tokens[k];
    if (t == "tex" || t == "ttx" || t == "itx") {
      number(k, m.texture);
      m.use = t == "tex" ? ResMaterial::Use::tex : t == "ttx" ? ResMaterial::Use::ttx : ResMaterial::Use::itx;
    } else if (t == "col") {
      number(k, m.colour);
    } else if (t == "msk") {
      number(k, m.mask);
    } else if (t == "transp") {
      number(k, m.transparency);
    } else if (t == "noz") {
      m.no_z = true;
    }
  }
  return m;
}

namespace {

// A channel by its mask: the bits it takes, scaled to 8 bits (0 when the mask is empty).
struct Channel {
  std::uint32_t mask = 0, shift = 0, max = 0;
  explicit Channel(std::uint32_t m) : mask(m), shift(m ? static_cast<std::uint32_t>(std::countr_zero(m)) : 0), max(m ? m >> shift : 0) {}
  std::uint32_t raw(std::uint32_t px) const { return (px & mask) >> shift; }
  std::uint8_t value(std::uint32_t px) const { return max ? static_cast<std::uint8_t>((raw(px) * 255 + max / 2) / max) : 0; }
  // A key colour's 8-bit channel at this channel's precision.
  std::uint32_t from8(std::uint32_t v8) const { return max ? (v8 * max + 127) / 255 : 0; }
};

struct Masks {
  Channel r, g, b, a;
  Masks(std::uint32_t rm, std::uint32_t gm, std::uint32_t bm, std::uint32_t am) : r(rm), g(gm), b(bm), a(am) {}
};

void put_pixel(std::vector<std::uint8_t>& rgba, std::size_t i, const Masks& m, std::uint32_t px, const std::optional<std::uint32_t>& key) {
  std::uint8_t* o = rgba.data() + i * 4;
  o[0] = m.r.value(px), o[1] = m.g.value(px), o[2] = m.b.value(px);
  o[3] = m.a.mask ? m.a.value(px) : 255;
  if (key && m.r.raw(px) == m.r.from8((*key >> 16) & 0xFF) && m.g.raw(px) == m.g.from8((*key >> 8) & 0xFF) && m.b.raw(px) == m.b.from8(*key & 0xFF))
    o[3] = 0;
}

// Rows bottom first (TGA's default origin) turned to top first.
void flip_rows(Image& im) {
  const std::size_t row = std::size_t{im.width} * 4;
  for (std::uint32_t y = 0; y < im.height / 2; ++y)
    std::swap_ranges(im.rgba.begin() + static_cast<std::ptrdiff_t>(y * row), im.rgba.begin() + static_cast<std::ptrdiff_t>((y + 1) * row),
                     im.rgba.begin() + static_cast<std::ptrdiff_t>((im.height - 1 - y) * row));
}

constexpr std::uint32_t kMaxPixels = 1u << 26;  // 8192 x 8192: no texture of these games comes near

Error image_error(std::string what) { return Error{Errc::bad_value, 0, std::move(what)}; }

}  // namespace

Result<Image> decode_txr(std::span<const std::uint8_t> b, std::optional<std::uint32_t> key) {
  if (b.size() < 18) return image_error(fmt::format("a TXR of {} bytes is shorter than its 18-byte header", b.size()));
  const std::uint8_t id_length = b[0], cmap_type = b[1], type = b[2];
  const auto cmap_length = load<std::uint16_t>(b, 5);
  const std::uint8_t cmap_bits = b[7];
  Image im;
  im.width = load<std::uint16_t>(b, 12), im.height = load<std::uint16_t>(b, 14);
  const std::uint8_t bpp = b[16], descriptor = b[17];
  const std::uint64_t pixels = std::uint64_t{im.width} * im.height;
  if (pixels == 0 || pixels > kMaxPixels) return image_error(fmt::format("a TXR of {}x{} pixels", im.width, im.height));
  std::size_t at = 18 + std::size_t{id_length};
  // LOFF: where the footer (PFRM, LVMP) starts.
  std::optional<std::size_t> footer;
  if (id_length >= 12 && b.size() >= 30 && std::memcmp(b.data() + 18, "LOFF", 4) == 0) footer = load<std::uint32_t>(b, 26);
  if (at > b.size()) return image_error("a TXR whose ID field runs past its end");
  im.rgba.assign(static_cast<std::size_t>(pixels) * 4, 0);
  if (type == 1 && cmap_type == 1 && bpp == 8) {
    // Paletted: 8-bit indices into a colour map of RGB triplets (the order the public tools read).
    const std::size_t entry = std::max<std::size_t>(1, cmap_bits / 8);
    if (entry < 3 || at + std::size_t{cmap_length} * entry + pixels > b.size()) return image_error("a paletted TXR cut short");
    const std::size_t map = at;
    at += std::size_t{cmap_length} * entry;
    for (std::size_t i = 0; i < pixels; ++i) {
      const std::uint8_t index = b[at + i];
      std::uint8_t* o = im.rgba.data() + i * 4;
      if (index < cmap_length) std::memcpy(o, b.data() + map + std::size_t{index} * entry, 3);
      const std::uint32_t rgb = (std::uint32_t{o[0]} << 16) | (std::uint32_t{o[1]} << 8) | o[2];
      o[3] = key && rgb == *key ? 0 : 255;
    }
    im.format = "8-bit paletted";
  } else if (type == 2 && (bpp == 16 || bpp == 24 || bpp == 32)) {
    const std::size_t size = bpp / 8;
    if (at + pixels * size > b.size()) return image_error(fmt::format("a {}x{} TXR of {} bits per pixel cut short", im.width, im.height, bpp));
    // The footer's pixel format; 16-bit without one is 565.
    std::uint32_t masks[4] = {0xF800, 0x07E0, 0x001F, 0};
    if (bpp == 24) masks[0] = 0xFF0000, masks[1] = 0xFF00, masks[2] = 0xFF, masks[3] = 0;
    if (bpp == 32) masks[0] = 0xFF0000, masks[1] = 0xFF00, masks[2] = 0xFF, masks[3] = 0xFF000000;
    std::size_t f = footer.value_or(at + pixels * size);
    while (f + 8 <= b.size()) {
      const std::string_view id(reinterpret_cast<const char*>(b.data() + f), 4);
      const auto length = load<std::uint32_t>(b, f + 4);
      if (id == "ENDR") break;
      if (length > b.size() - f - 8) break;
      if (id == "PFRM" && length >= 16) {
        for (int k = 0; k < 4; ++k) masks[k] = load<std::uint32_t>(b, f + 8 + 4 * static_cast<std::size_t>(k));
        if (!masks[0] && !masks[1] && !masks[2] && !masks[3]) masks[0] = 0xF800, masks[1] = 0x07E0, masks[2] = 0x001F;
      }
      if (id == "LVMP" && length >= 4) im.mips = 1 + load<std::uint32_t>(b, f + 8);
      f += 8 + length + (id == "LVMP" ? 2 : 0);  // LVMP is followed by two bytes its length leaves out
    }
    const Masks m(masks[0], masks[1], masks[2], masks[3]);
    for (std::size_t i = 0; i < pixels; ++i) {
      std::uint32_t px = 0;
      std::memcpy(&px, b.data() + at + i * size, size);
      put_pixel(im.rgba, i, m, px, key);
    }
    const auto bits = [](std::uint32_t v) { return std::popcount(v); };
    im.format = bpp == 16 ? fmt::format("{}{}{}{}", bits(masks[3]) ? std::to_string(bits(masks[3])) : "", bits(masks[0]), bits(masks[1]), bits(masks[2]))
                          : fmt::format("{}-bit", bpp);
  } else {
    return image_error(fmt::format("a TXR of image type {} with {} bits per pixel (16-bit true colour and 8-bit paletted are read)", type, bpp));
  }
  if (!(descriptor & 0x20)) flip_rows(im);
  return im;
}

Result<Image> decode_msk(std::span<const std::uint8_t> b) {
  if (b.size() < 8 + 768) return image_error(fmt::format("an MSK of {} bytes is shorter than its header and palette", b.size()));
  const std::string_view magic(reinterpret_cast<const char*>(b.data()), 4);
  const bool wide = magic == "MS16";
  if (!wide && magic != "MSKR" && magic != "MSK8" && magic != "MASK") return image_error("not an MSK (no MS16, MSKR, MSK8 or MASK)");
  Image im;
  im.width = load<std::uint16_t>(b, 4), im.height = load<std::uint16_t>(b, 6);
  const std::uint64_t pixels = std::uint64_t{im.width} * im.height;
  if (pixels == 0 || pixels > kMaxPixels) return image_error(fmt::format("an MSK of {}x{} pixels", im.width, im.height));
  const std::size_t palette = 8, size = wide ? 2 : 1;
  std::size_t at = palette + 768;
  // The RLE data: a byte over 127 skips that many less 128 (transparent); else that many pixels follow.
  std::vector<std::uint32_t> values(static_cast<std::size_t>(pixels), 0);
  std::vector<bool> opaque(static_cast<std::size_t>(pixels), false);
  for (std::size_t p = 0; p < pixels;) {
    if (at >= b.size()) return image_error(fmt::format("an MSK cut short after {} of its {} pixels", p, pixels));
    const std::uint8_t c = b[at++];
    if (c > 127) {
      p += std::min<std::size_t>(c - 128u, static_cast<std::size_t>(pixels - p));
      continue;
    }
    if (c > pixels - p || at + std::size_t{c} * size > b.size()) return image_error(fmt::format("an MSK run of {} pixels at {:#x} runs past the image or the file", c, at - 1));
    for (std::uint8_t k = 0; k < c; ++k, ++p, at += size) {
      std::memcpy(&values[p], b.data() + at, size);
      opaque[p] = true;
    }
  }
  // An optional PFRM (the 16-bit masks; 565 without) and ENDR follow.
  std::uint32_t masks[4] = {0xF800, 0x07E0, 0x001F, 0};
  while (at + 8 <= b.size()) {
    const std::string_view id(reinterpret_cast<const char*>(b.data() + at), 4);
    const auto length = load<std::uint32_t>(b, at + 4);
    if (id == "PFRM" && length >= 16 && length <= b.size() - at - 8) {
      for (int k = 0; k < 4; ++k) masks[k] = load<std::uint32_t>(b, at + 8 + 4 * static_cast<std::size_t>(k));
      at += 8 + length;
      continue;
    }
    break;
  }
  const Masks m(masks[0], masks[1], masks[2], masks[3]);
  im.rgba.assign(static_cast<std::size_t>(pixels) * 4, 0);
  for (std::size_t i = 0; i < pixels; ++i) {
    if (!opaque[i]) continue;
    if (wide) {
      put_pixel(im.rgba, i, m, values[i], std::nullopt);
      if (!m.a.mask) im.rgba[i * 4 + 3] = 255;
    } else {
      std::memcpy(im.rgba.data() + i * 4, b.data() + palette + std::size_t{values[i]} * 3, 3);
      im.rgba[i * 4 + 3] = 255;
    }
  }
  im.format = wide ? "MS16 RLE" : "8-bit RLE";
  return im;
}

Result<std::vector<std::uint32_t>> decode_plm(std::span<const std::uint8_t> b) {
  if (b.size() < 8) return image_error("a PLM shorter than its header");
  for (std::size_t at = 8; at + 8 <= b.size();) {
    const std::string_view id(reinterpret_cast<const char*>(b.data() + at), 4);
    const auto length = load<std::uint32_t>(b, at + 4);
    if (length > b.size() - at - 8) break;
    if (id == "PALT") {
      std::vector<std::uint32_t> colours;
      for (std::size_t k = 0; k + 3 <= length && colours.size() < 256; k += 3) {
        const std::uint8_t* c = b.data() + at + 8 + k;
        colours.push_back((std::uint32_t{c[0]} << 16) | (std::uint32_t{c[1]} << 8) | c[2]);
      }
      return colours;
    }
    at += 8 + length;
  }
  return image_error("a PLM without a PALT section");
}

}  // namespace sceneria::b3d
