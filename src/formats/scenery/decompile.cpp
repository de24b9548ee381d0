#include "formats/scenery/decompile.hpp"

#include <fmt/format.h>

#include "formats/scenery/tokens.hpp"

namespace sceneria::scenery {
namespace {

// Whether the tokenizer would split the word (or cut it at a comment); `as_number`: also when it
// would read it as a number (include strings are read as words whatever they look like).
bool needs_quotes(std::string_view word, bool as_number = true) {
  if (word.empty()) return true;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '"') return true;
    if (c == '/' && i + 1 < word.size() && (word[i + 1] == '/' || word[i + 1] == '*')) return true;
  }
  double v;
  return as_number && parse_number(word, v);
}

void put_word(std::string& out, std::string_view word, bool quoted, bool include = false) {
  if (!quoted && !needs_quotes(word, !include)) {
    out.append(word);
    return;
  }
  out.push_back('"');
  for (char c : word) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}

void put_number(std::string& out, const TwinEntry& e) {
  if (e.tag == EntryTag::int_number) out += fmt::format("{}", e.integer);
  else if (e.tag == EntryTag::f32) out += fmt::format("{}", static_cast<float>(e.number));
  else out += fmt::format("{}", e.number);
}

}  // namespace

std::string decompile(const Twin& t) {
  std::string out;
  bool line_start = true;
  const auto separate = [&] {
    if (!line_start) out.push_back(' ');
    line_start = false;
  };
  const auto newline = [&] {
    if (!line_start) out.push_back('\n');
    line_start = true;
  };
  std::uint32_t marker = TwinEntry::kNoMarker;
  for (const TwinEntry& e : t.entries) {
    if (e.marker != marker) {  // a node (or the directives after it) starts on its own line
      newline();
      marker = e.marker;
    }
    switch (e.tag) {
      case EntryTag::include:
        newline();
        out += "include";
        for (std::uint32_t i = 0; i < e.files + e.params; ++i) {
          out.push_back(' ');
          put_word(out, t.include_string(e, i), false, true);
        }
        out += " end";
        line_start = false;
        newline();
        break;
      case EntryTag::int_number:
      case EntryTag::f32:
      case EntryTag::f64:
        separate();
        put_number(out, e);
        break;
      default: {
        const std::string_view word = t.text(e);
        if (e.tag == EntryTag::token && iequals(word, "node")) newline();
        separate();
        put_word(out, word, e.tag == EntryTag::qtoken);
        // Statement and vertex terminators end a line.
        if (e.tag == EntryTag::token && istarts_with(word, "end")) newline();
        break;
      }
    }
  }
  newline();
  return out;
}

}  // namespace sceneria::scenery
