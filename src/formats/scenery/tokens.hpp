#pragma once
// One token stream for text sceneries and their twins (as the engine's cParser serves both): the
// grammar downstream reads tokens and cannot tell where they came from. An include reaches it as
// the word `include`, its file expression (lower case; a random set as `[ a b ]`), its
// parameters as words (verbatim) and the word `end`, whichever side it came from.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/maszyna/tokenizer.hpp"
#include "formats/scenery/twin.hpp"

namespace sceneria::scenery {

// The MaSzyna tokenizer (formats/maszyna/), which sceneries read with as models and materials do.
using maszyna::leading_number;
using maszyna::lower;
using maszyna::parse_number;
using maszyna::parse_writer_number;
using maszyna::TextToken;
using maszyna::TextTokenizer;
using maszyna::TokenizerOptions;
using maszyna::writer_pieces;

enum class TokenKind : std::uint8_t { word, quoted, number };

struct Token {
  TokenKind kind = TokenKind::word;
  std::string_view text;  // the bytes as written (a number's spelling in text; "" from a twin)
  // An include's file name as written, before the baker's lower-casing (text only; else = text).
  std::string_view original;
  double value = 0;       // numbers: text's exact value; a twin's as it replays (f32 widened)
  EntryTag encoding = EntryTag::token;  // numbers: how a twin stores it (int, f32, f64)
  // `text` and `original` last only until the next token (else: as long as the source's bytes).
  bool transient = false;
  bool in_include = false;   // part of an include statement
  bool ends_include = false;  // its last token (`end`, or whatever the file ended on)
  // Where it is: text has lines and columns; a twin has the entry's byte offset (line 0).
  std::uint64_t offset = 0;
  std::uint32_t line = 0, column = 0;
  std::uint32_t marker = TwinEntry::kNoMarker;  // twin: the node marker around it
};

// How a number token is stored (notes A4): integral within ±2^53 as int, else f32 when the float
// is within 1e-6 relative, else f64.
EntryTag number_encoding(double value);
// The value a twin gives back for that encoding (an f32 is rounded to float).
double stored_value(double value, EntryTag encoding);

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  virtual bool next(Token& out) = 0;
  // Position in [0, 1] for progress bars.
  virtual double progress() const = 0;
  // A node being read past (a load pass that does not serve it), when a twin's marker holds it
  // alone and ends with one of `ends` (a token starting with one, if `prefix`): the rest of it is
  // skipped in O(1) and the answer is true. Otherwise nothing moves: read on token by token.
  virtual bool skip_marked_node(std::initializer_list<std::string_view> /*ends*/, bool /*prefix*/) { return false; }
};

// Text → tokens, with include statements captured whole as the baker does.
class TextTokenSource final : public TokenSource {
 public:
  explicit TextTokenSource(std::span<const std::uint8_t> bytes, TokenizerOptions options = {});
  // From `offset`, the start of line `line`, to the end: a part of the text read on its own.
  TextTokenSource(std::span<const std::uint8_t> bytes, TokenizerOptions options, std::size_t offset, std::uint32_t line);
  bool next(Token& out) override;
  double progress() const override;
  std::span<const std::uint8_t> bytes() const { return bytes_; }
  const TokenizerOptions& options() const { return options_; }
  bool untouched() const { return untouched_; }  // nothing read yet

 private:
  bool raw(Token& out);  // the next text token, classified
  TextTokenizer tokenizer_;
  std::vector<std::string> pending_text_;  // an include statement, served one token at a time
  std::vector<std::string> pending_original_;
  std::vector<Token> pending_;
  std::size_t pending_at_ = 0;
  std::string current_;
  std::span<const std::uint8_t> bytes_;
  TokenizerOptions options_;
  bool untouched_ = true;
};

// Where a big text may be cut to be read in parts side by side (compile, bake): offset 0, then
// up to `parts - 1` starts of lines that begin with the word `node` (a statement in every
// well-formed scenery), near even shares of the text; none below 2 MB a part, where a thread
// costs more than it saves. A cut is a guess: the readers keep a part only where the one before
// it ended exactly there.
std::vector<std::size_t> text_part_starts(std::span<const std::uint8_t> text, unsigned parts);

// Twin entries → tokens; a load pass leaves out the markers of the other class, each in one step.
class TwinTokenSource final : public TokenSource {
 public:
  explicit TwinTokenSource(const Twin& twin, LoadPass pass = LoadPass::all) : twin_(twin), pass_(pass) {}
  bool next(Token& out) override;
  double progress() const override;
  bool skip_marked_node(std::initializer_list<std::string_view> ends, bool prefix) override;

  // The marker around the entry served last: the node being read (nullptr outside nodes). Its
  // position and range, for a VISUAL_POS marker, let a reader judge a node by distance first.
  const TwinMarker* node() const;
  // Its byte offset in the twin, and back to it later: next() then serves that node's first
  // entry again (one node rebuilt on demand without reading the twin again). False: no marker
  // starts at `offset`.
  std::uint64_t node_offset() const;
  bool seek_node(std::uint64_t offset);
  static constexpr std::uint64_t kNoNode = ~std::uint64_t{0};
  // Nodes skipped whole by skip_marked_node, and markers a load pass stepped over.
  std::uint64_t nodes_skipped() const { return nodes_skipped_; }
  std::uint64_t markers_passed() const { return markers_passed_; }

 private:
  const Twin& twin_;
  LoadPass pass_;
  std::size_t entry_ = 0;
  std::uint32_t include_part_ = 0;  // within an include entry: 0 "include", then its strings, then "end"
  std::uint64_t nodes_skipped_ = 0, markers_passed_ = 0;
};

}  // namespace sceneria::scenery
