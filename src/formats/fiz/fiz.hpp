#pragma once
// MaSzyna's vehicle physics file (`.fiz`), as the engine reads it (McZapkie/Mover.cpp
// TMoverParameters::LoadFIZ): the file is cParser tokens broken only at CR and LF, so each line
// is one token with its `//` and `/* */` comments cut away; a line holding `#` is skipped, leading
// spaces are dropped, a line left empty ends the Cntrl. table; a line starting with a known
// section name ("Param.", "Dimensions:", …; prefix match, case-sensitive) is that section, whose
// values the engine looks up by `extract_value` (" key=" anywhere in the line, spaces after `=`
// skipped, the value up to the next space); some sections start a table whose rows follow until
// its end marker ("END-MPT", "endff", "endL", …; for Cntrl. the next section or empty line).
// `include <file> [params…] end` inlines another file from the vehicle's folder, `(pN)` replaced.
//
// The records keep every byte: the file is its lines (text and terminator), so it is written
// back byte for byte, and what the engine reads of them (entries) is derived from those.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sceneria::fiz {

// One line of the file: its text and its terminator ("\n", "\r\n", "\r", or "" for a last line
// without one).
struct Line {
  std::string text;
  std::string eol;
};

struct File {
  std::vector<Line> lines;
};

// A `key=value` of a section line. `value` is what the engine's extract_value finds for the key:
// for a key given twice, both entries carry the first one's value and the second is `repeated`.
struct Field {
  std::string key, value;
  bool repeated = false;
};

// What the engine makes of one token (one line, comments cut away).
struct Entry {
  enum class Kind : std::uint8_t {
    section,   // a known section: `name` ("Dimensions"), `fields`
    row,       // a row of the table `name` ("Cntrl", "ffList"), its values in `cells`
    table_end, // a table's end marker, `name` as written
    include,   // `include file params… end`: `name` the file, `cells` the params
    skipped,   // holds `#` (the engine skips it)
    blank,     // only spaces (ends the Cntrl. table)
    other,     // none of the above: the engine ignores it
  };
  Kind kind = Kind::other;
  std::string name;
  std::string text;  // the token as the engine has it (comments cut, leading spaces dropped)
  std::vector<Field> fields;
  std::vector<std::string> cells;
  std::uint32_t line = 0;     // 1-based, in the file it came from
  std::uint64_t offset = 0;   // of the token's first byte there
  std::uint32_t file = 0;     // 0: this file; n: the nth file an include brought in (Effective::files)
};

std::string_view kind_name(Entry::Kind kind);

// The file's lines, every byte kept (read_file(bytes) then write_file gives `bytes`).
Result<File> read_file(std::span<const std::uint8_t> bytes);
std::vector<std::uint8_t> write_file(const File& file);

// An include's bytes by the name it gives (relative to the vehicle's folder); nullopt: not found.
using IncludeLoader = std::function<std::optional<std::vector<std::uint8_t>>(const std::string& name)>;

// What the engine reads: the entries of `bytes` with includes inlined (through `load`, nullptr:
// none followed), each include at most 16 deep. Includes not found are listed in `missing`.
struct Effective {
  std::vector<Entry> entries;
  std::vector<std::string> files;    // [0] unused; the files includes brought in, in order
  std::vector<std::string> missing;  // includes that could not be loaded
};
Effective read_entries(std::span<const std::uint8_t> bytes, const IncludeLoader& load = {});

// The vehicle's size as the engine sets it (LoadFIZ_Dimensions: L, H, W in metres) and where
// its wheels are (LoadFIZ_Wheels: Ad, the axle spacing in a bogie; Bd, the bogie pivots' spacing),
// the last value each key has across those sections' lines; unset keys stay absent.
struct Dimensions {
  std::optional<double> length, height, width;
  std::optional<double> axle_spacing, bogie_spacing;
};
Dimensions dimensions(const Effective& fiz);

// The value the engine reads for `key` in a section line (utilities.h extract_value).
std::string extract_value(std::string_view key, std::string_view line);
// A value read as the engine reads a number from it (stringstream >> double: the leading number,
// 0 when there is none).
double number(std::string_view value);

}  // namespace sceneria::fiz
