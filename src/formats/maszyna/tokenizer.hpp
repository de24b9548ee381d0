#pragma once
// MaSzyna's tokenizer (the engine's cParser, scenery notes B1), shared by sceneries, T3D models
// and .mat materials: tokens split at space, tab, CR,
// LF and `;` (and `,` in the legacy-comma mode), `//` and `/* */` comments cutting a token where
// they start, `"…"` runs kept verbatim (delimiters, newlines and case included; `\` escapes),
// a UTF-8 BOM dropped, every other byte (CP1250 names) passed through. Tokens keep their case:
// lower-casing is the consumer's choice, as in the engine.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.hpp"

namespace sceneria::maszyna {

struct TokenizerOptions {
  bool legacy_comma = false;  // `,` separates too (the EU7B writer's and the old wiki's rule)
  // The reference EU7B writer's own tokenizer (eu07-parser parser.hpp), which a compile reads
  // with: line by line, `//` cutting the rest of a line wherever it stands (quotes included),
  // `/* */` opened only before any single `/` of a line, lines of starter tags (`//$n`, …)
  // dropped; then each piece split at space, tab, CR, LF, `;` and `,`; a `"` starts a quoted
  // token (`\` escapes) that ends at the line's end at the latest, and ends a word it meets;
  // `[` with a later `]` on its piece is one token up to it; no BOM is stripped.
  bool writer = false;
  // Whole lines as tokens (the engine's cParser with the break set "\n\r", as a .fiz is read):
  // only CR and LF separate; comments, quotes and the BOM as in the default mode.
  bool lines = false;
};

// One token as the text gives it. `text` stays valid until the next call to next() (most tokens
// are views into the text itself, valid as long as it is: in_text() says which).
struct TextToken {
  std::string_view text;
  bool quoted = false;          // a `"` run was part of it: never a number, never lower-cased
  std::uint64_t offset = 0;     // byte offset of its first character
  std::uint32_t line = 1, column = 1;
};

class TextTokenizer {
 public:
  explicit TextTokenizer(std::span<const std::uint8_t> bytes, TokenizerOptions options = {});
  // The next token; false at the end of the text.
  bool next(TextToken& out);
  // Read on from `offset`, the start of line `line` (a part of the text read on its own).
  void start_at(std::size_t offset, std::uint32_t line);
  std::uint64_t offset() const { return at_; }
  bool in_text(std::string_view s) const {
    return s.data() >= reinterpret_cast<const char*>(bytes_.data()) && s.data() + s.size() <= reinterpret_cast<const char*>(bytes_.data()) + bytes_.size();
  }
  std::uint64_t size() const { return bytes_.size(); }

 private:
  bool delimiter(std::uint8_t c) const { return class_[c] == kDelimiter; }
  // Per byte: 0 ordinary, a delimiter, or one that may start a quote or a comment.
  enum : std::uint8_t { kOrdinary = 0, kDelimiter = 1, kSpecial = 2 };
  std::uint8_t class_[256] = {};
  void advance(std::size_t n = 1);
  void skip_line_comment();
  void skip_block_comment();
  bool writer_next(TextToken& out);
  friend std::vector<std::string_view> writer_pieces(std::span<const std::uint8_t> text);
  bool writer_line();  // the next line's pieces into pieces_; false at the end of the text
  struct Piece {
    std::size_t begin, end;
  };
  std::vector<Piece> pieces_;
  std::size_t piece_ = 0, piece_at_ = 0;
  bool in_block_ = false;

  std::span<const std::uint8_t> bytes_;
  TokenizerOptions options_;
  std::size_t at_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  std::string token_;
};

// The pieces of a text the reference writer tokenizes (TokenizerOptions::writer): each line's
// scenery text with its comments taken out, in order.
std::vector<std::string_view> writer_pieces(std::span<const std::uint8_t> text);

// A token read as a number by the engine's rule (notes A4): the whole token is a finite decimal
// number (C++ from_chars, general format). `+5`, `1,2`, `inf`, `12abc`, `0x10` are not; `.5`,
// `5.`, `1e3`, `-0` are.
bool parse_number(std::string_view token, double& value);

// A number as the reference EU7B writer's node parsers read one (node/parse_util.hpp
// parseDouble): an empty token, `none` and `undefined` (any case) are 0, one leading `+` is
// skipped, and the rest must be a whole from_chars number (`inf` and `nan` included).
bool parse_writer_number(std::string_view token, double& value);

// The engine's leading-number conversion for a field read as a number from any token
// (`0,0,(p7)` → 0, `12abc` → 12, `abc` → 0).
double leading_number(std::string_view token);

// `(pN)` anywhere in a token → include parameter N (1-based); missing or bad → `none` (notes
// B2): what the engine's parser does to every token of an included file.
std::string substitute(std::string_view token, const std::vector<std::string>& params);

// ASCII lower case (bytes ≥ 0x80 unchanged, as the engine's ToLower).
std::string lower(std::string_view text);

}  // namespace sceneria::maszyna
