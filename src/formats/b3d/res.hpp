#pragma once
// Hard Truck resource files (`.res`, `.rmp`; notes b3d.md §7-§8): a flat sequence of sections,
// each a C-string "<NAME> <count>" and its entries — C-strings (COLORS, MATERIALS, SOUNDS), or,
// for the *FILES sections, a C-string "<path>[ options]", a u32 length and the file's bytes
// (TXR/MSK textures, PLM palettes, sounds). Kept as the bytes read: written back byte for byte.
// The images inside decode to RGBA8 for drawing.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sceneria::b3d {

struct ResEntry {
  std::string text;                 // the C-string, its bytes (CP1251)
  bool has_data = false;            // *FILES entries
  std::vector<std::uint8_t> data;   // the file
  // A file entry's path: the text up to its options ("txr\\t01.txr noload").
  std::string path() const { return text.substr(0, text.find(' ')); }
};

struct ResSection {
  std::string header;  // the C-string as it stands ("TEXTUREFILES 12")
  std::string name;    // its first word
  std::uint32_t count = 0;
  std::vector<ResEntry> entries;
  bool files() const;  // whether its entries carry files
};

struct ResFile {
  std::vector<ResSection> sections;
  std::vector<std::uint8_t> trailing;  // bytes after the last section that do not start one
  const ResSection* section(std::string_view name) const;
};

Result<ResFile> read_res(std::span<const std::uint8_t> bytes);
std::vector<std::uint8_t> write_res(const ResFile& file);

// A MATERIALS entry: "<name> <tokens…>" (notes §7's grammar). Texture and colour numbers are
// 1-based into TEXTUREFILES and the palette; 0: none.
struct ResMaterial {
  std::string name;
  std::string params;  // the tokens after the name, as written
  std::uint32_t texture = 0;
  enum class Use : std::uint8_t { none, tex, ttx, itx } use = Use::none;  // ttx: colour-keyed transparency
  std::uint32_t colour = 0;    // col N
  std::uint32_t mask = 0;      // msk N
  float transparency = 0;      // transp f
  bool no_z = false;
};
ResMaterial parse_material(std::string_view entry);

// An image decoded to RGBA8, top row first.
struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
  std::string format;  // "565", "4444", "8-bit paletted", "MS16 RLE", …
  std::uint32_t mips = 1;
};
// TXR (a TGA variant: 16-bit with LOFF/LVMP/PFRM/ENDR, 8-bit paletted; 24/32-bit too).
// `key`: a colour that becomes transparent (ttx), as 0xRRGGBB; nullopt: none.
Result<Image> decode_txr(std::span<const std::uint8_t> bytes, std::optional<std::uint32_t> key = std::nullopt);
// MSK (MS16, MSKR/MSK8/MASK: RLE where skipped pixels are transparent).
Result<Image> decode_msk(std::span<const std::uint8_t> bytes);
// PLM: the PALT section's 256 colours, 0xRRGGBB each.
Result<std::vector<std::uint32_t>> decode_plm(std::span<const std::uint8_t> bytes);

}  // namespace sceneria::b3d
