#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/fiz/fiz.hpp"
#include "formats/maszyna/tokenizer.hpp"

namespace sceneria::fiz {
namespace {

// LoadFIZ's tables, in the order it hands a row to them: the first that is open takes it.
enum Table : std::uint8_t { BPT, MPT, MPT0, RList, UCList, DList, DMList, V2NList, HTCList, PmaxList, ffList, ffBrakeList, WWList, WiperList, DimmerList, LightsList, CompressorList, kTables };
constexpr std::array<std::string_view, kTables> kTableNames = {"Cntrl", "MotorParamTable", "MotorParamTable0", "RList", "UCList", "DList", "DMList", "V2NList", "HTCList", "PmaxList", "ffList", "ffBrakeList", "WWList", "WiperList", "DimmerList", "LightsList", "CompressorList"};

// End markers, checked first, each closing BPT and its tables.
struct EndMarker {
  std::string_view prefix;
  std::initializer_list<Table> closes;
};
const EndMarker kEnds[] = {
    {"END-MPT", {MPT, MPT0}}, {"END-RL", {RList}},     {"END-UCL", {UCList}},   {"END-DL", {DList}},
    {"END-DML", {DMList}},    {"END-V2NL", {V2NList}}, {"END-HTCL", {HTCList}}, {"END-PML", {PmaxList}},
    {"endff", {ffList, ffBrakeList}}, {"endwl", {WiperList}}, {"endDimmerList", {DimmerList}}, {"END-WWL", {WWList}},
    {"endL", {LightsList}},  {"endCL", {CompressorList}},
};

// Sections, in LoadFIZ's order (a prefix match: "BuffCoupl." before "BuffCoupl1."). Each closes
// BPT; `opens` the table it starts, if any.
struct Section {
  std::string_view prefix;
  int opens = -1;
};
const Section kSections[] = {
    {"Param."}, {"Load:"}, {"Dimensions:"}, {"Wheels:"}, {"Brake:"}, {"Doors:"}, {"BuffCoupl."}, {"BuffCoupl1."},
    {"BuffCoupl2."}, {"TurboPos:"}, {"Cntrl.", BPT}, {"Headlights:"}, {"Blending:"}, {"DCEMUED:"}, {"SpringBrake:"},
    {"Light:"}, {"Security:"}, {"Clima:"}, {"Power:"}, {"SpeedControl:"}, {"Engine:"}, {"Switches:"},
    {"MotorParamTable:", MPT}, {"MotorParamTable0:", MPT0}, {"Circuit:"}, {"AI:"}, {"RList:", RList},
    {"UCList:", UCList}, {"DList:", DList}, {"DMList:", DMList}, {"HTCList:", HTCList}, {"PmaxList:", PmaxList},
    {"V2NList:", V2NList}, {"ffList:", ffList}, {"ffBrakeList:", ffBrakeList}, {"WWList:", WWList},
    {"WiperList:", WiperList}, {"DimmerList:", DimmerList}, {"LightsList:", LightsList}, {"CompressorList:", CompressorList},
};

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t from = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > from) out.emplace_back(s.substr(from, i - from));
  }
  return out;
}

// Every `key=` of a section line, in order, with the value the engine would read for it. A key
// is a space-separated word's text before its first `=` (the engine finds " key=" only after a
// space or at the start; a tab-separated word is part of the previous one to it, and so here).
std::vector<Field> fields_of(std::string_view line) {
  std::vector<Field> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t from = i;
    while (i < line.size() && line[i] != ' ') ++i;
    const std::string_view word = line.substr(from, i - from);
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    Field f;
    f.key = std::string(word.substr(0, eq));
    f.value = extract_value(f.key, line);
    f.repeated = std::any_of(out.begin(), out.end(), [&](const Field& g) { return g.key == f.key; });
    out.push_back(std::move(f));
  }
  return out;
}

struct Reader {
  const IncludeLoader& load;
  Effective out;
  std::array<bool, kTables> open{};

  void token(std::string text, std::uint32_t line, std::uint64_t offset, std::uint32_t file) {
    Entry e;
    e.line = line, e.offset = offset, e.file = file;
    if (text.find('#') != std::string::npos) {
      e.kind = Entry::Kind::skipped;
      e.text = std::move(text);
      out.entries.push_back(std::move(e));
      return;
    }
    if (!text.empty() && text.front() == ' ') text.erase(0, std::min(text.find_first_not_of(' '), text.size()));
    e.text = text;
    if (text.empty()) {
      open[BPT] = false;
      e.kind = Entry::Kind::blank;
      out.entries.push_back(std::move(e));
      return;
    }
    for (const EndMarker& m : kEnds)
      if (starts_with(text, m.prefix)) {
        open[BPT] = false;
        for (Table t : m.closes) open[t] = false;
        e.kind = Entry::Kind::table_end;
        e.name = std::string(m.prefix);
        out.entries.push_back(std::move(e));
        return;
      }
    for (const Section& s : kSections)
      if (starts_with(text, s.prefix)) {
        open[BPT] = false;
        if (s.opens >= 0) open[static_cast<std::size_t>(s.opens)] = true;
        e.kind = Entry::Kind::section;
        e.name = std::string(s.prefix.substr(0, s.prefix.size() - 1));
        e.fields = fields_of(text);
        out.entries.push_back(std::move(e));
        return;
      }
    for (std::size_t t = 0; t < kTables; ++t)
      if (open[t]) {
        e.kind = Entry::Kind::row;
        e.name = std::string(kTableNames[t]);
        e.cells = words(text);
        break;
      }
    out.entries.push_back(std::move(e));
  }

  // One file's tokens; includes are read in their place.
  void file(std::span<const std::uint8_t> bytes, const std::vector<std::string>& params, std::uint32_t file_index, int depth) {
    // The parser replaces (pN) only in a file given parameters (parser.cpp readToken).
    const auto sub = [&params](std::string_view token) { return params.empty() ? std::string(token) : maszyna::substitute(token, params); };
    maszyna::TextTokenizer lines(bytes, {.lines = true});
    maszyna::TextTokenizer words_after(bytes);  // for `include` alone on its line: the words that follow
    maszyna::TextToken t;
    while (lines.next(t)) {
      std::string text = sub(t.text);
      // parser.cpp: a line starting `include` is the directive (the line reader's own rule).
      if (starts_with(text, "include")) {
        Entry e;
        e.kind = Entry::Kind::include;
        e.line = t.line, e.offset = t.offset, e.file = file_index;
        e.text = text;
        std::vector<std::string> rest;
        if (text == "include") {
          // parser.cpp: the file name and its parameters are the following words, up to `end`.
          words_after.start_at(static_cast<std::size_t>(lines.offset()), t.line);
          maszyna::TextToken w;
          while (words_after.next(w)) {
            std::string word = sub(w.text);
            if (word == "end") break;
            rest.push_back(std::move(word));
          }
          const auto resume = static_cast<std::size_t>(words_after.offset());
          lines.start_at(resume, t.line + static_cast<std::uint32_t>(std::count(bytes.begin() + static_cast<std::ptrdiff_t>(t.offset), bytes.begin() + static_cast<std::ptrdiff_t>(resume), '\n')));
        } else {
          maszyna::TextTokenizer inner(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()).subspan(7));
          maszyna::TextToken w;
          while (inner.next(w) && w.text != "end") rest.emplace_back(w.text);
        }
        if (!rest.empty()) {
          e.name = rest.front();
          std::replace(e.name.begin(), e.name.end(), '\\', '/');
          e.cells.assign(rest.begin() + 1, rest.end());
        }
        out.entries.push_back(e);
        include(e, depth);
        continue;
      }
      token(std::move(text), t.line, t.offset, file_index);
    }
  }

  void include(const Entry& e, int depth) {
    if (e.name.empty()) return;
    if (depth >= 16 || !load) {
      out.missing.push_back(e.name);
      return;
    }
    auto bytes = load(e.name);
    if (!bytes) {
      out.missing.push_back(e.name);
      return;
    }
    out.files.push_back(e.name);
    file(*bytes, e.cells, static_cast<std::uint32_t>(out.files.size() - 1), depth + 1);
  }

};

}  // namespace

std::string_view kind_name(Entry::Kind kind) {
  switch (kind) {
    case Entry::Kind::section: return "section";
    case Entry::Kind::row: return "row";
    case Entry::Kind::table_end: return "table end";
    case Entry::Kind::include: return "include";
    case Entry::Kind::skipped: return "skipped (#)";
    case Entry::Kind::blank: return "blank";
    case Entry::Kind::other: return "ignored";
  }
  return "?";
}

std::string extract_value(std::string_view key, std::string_view line) {
  const std::string input = " " + std::string(line);
  const std::string needle = " " + std::string(key) + "=";
  const std::size_t at = input.find(needle);
  if (at == std::string::npos) return {};
  const std::size_t from = input.find_first_not_of(' ', at + key.size() + 2);
  if (from == std::string::npos) return {};
  std::string value = input.substr(from);
  if (const std::size_t space = value.find(' '); space != std::string::npos) value.erase(space);
  return value;
}

double number(std::string_view value) { return maszyna::leading_number(value); }

Result<File> read_file(std::span<const std::uint8_t> bytes) {
  File f;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = at;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    Line l;
    l.text = std::string(text.substr(at, end - at));
    if (end < text.size()) {
      const std::size_t n = text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1;
      l.eol = std::string(text.substr(end, n));
      end += n;
    }
    f.lines.push_back(std::move(l));
    at = end;
  }
  return f;
}

std::vector<std::uint8_t> write_file(const File& file) {
  std::vector<std::uint8_t> out;
  for (const Line& l : file.lines) {
    out.insert(out.end(), l.text.begin(), l.text.end());
    out.insert(out.end(), l.eol.begin(), l.eol.end());
  }
  return out;
}

Effective read_entries(std::span<const std::uint8_t> bytes, const IncludeLoader& load) {
  Reader r{load, {}, {}};
  r.out.files.emplace_back();
  r.file(bytes, {}, 0, 0);
  return std::move(r.out);
}

Dimensions dimensions(const Effective& fiz) {
  Dimensions d;
  for (const Entry& e : fiz.entries) {
    if (e.kind != Entry::Kind::section) continue;
    if (e.name == "Dimensions")
      for (const auto& [key, slot] : {std::pair{"L", &d.length}, {"H", &d.height}, {"W", &d.width}})
        if (std::string v = extract_value(key, e.text); !v.empty()) *slot = number(v);
    if (e.name == "Wheels")
      for (const auto& [key, slot] : {std::pair{"Ad", &d.axle_spacing}, {"Bd", &d.bogie_spacing}})
        if (std::string v = extract_value(key, e.text); !v.empty()) *slot = number(v);
  }
  return d;
}

}  // namespace sceneria::fiz
