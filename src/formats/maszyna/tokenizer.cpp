#include "formats/maszyna/tokenizer.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <limits>

#include <fast_float/fast_float.h>

namespace sceneria::maszyna {

TextTokenizer::TextTokenizer(std::span<const std::uint8_t> bytes, TokenizerOptions options)
    : bytes_(bytes), options_(options) {
  for (std::uint8_t c : {' ', '\t', '\r', '\n', ';'}) class_[c] = kDelimiter;
  if (options_.lines) class_[static_cast<std::uint8_t>(' ')] = class_[static_cast<std::uint8_t>('\t')] = class_[static_cast<std::uint8_t>(';')] = kOrdinary;
  if (options_.legacy_comma) class_[static_cast<std::uint8_t>(',')] = kDelimiter;
  class_[static_cast<std::uint8_t>('"')] = class_[static_cast<std::uint8_t>('/')] = kSpecial;
  if (options_.writer) return;  // its own reading (writer_next)
  // A UTF-8 BOM is not part of the first token (nor a token of its own).
  if (bytes_.size() >= 3 && bytes_[0] == 0xEF && bytes_[1] == 0xBB && bytes_[2] == 0xBF) at_ = line_start_ = 3;
}

void TextTokenizer::start_at(std::size_t offset, std::uint32_t line) {
  at_ = line_start_ = std::min(offset, bytes_.size());
  line_ = line;
}

void TextTokenizer::advance(std::size_t n) {
  for (; n > 0 && at_ < bytes_.size(); --n) {
    if (bytes_[at_] == '\n') {
      ++line_;
      line_start_ = at_ + 1;
    }
    ++at_;
  }
}

void TextTokenizer::skip_line_comment() {
  while (at_ < bytes_.size() && bytes_[at_] != '\n') ++at_;  // the newline ends the token
}

void TextTokenizer::skip_block_comment() {
  while (at_ < bytes_.size()) {
    if (bytes_[at_] == '*' && at_ + 1 < bytes_.size() && bytes_[at_ + 1] == '/') {
      advance(2);
      return;
    }
    advance();
  }
}

namespace {

bool writer_separator(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == ','; }

// parser.hpp kStarterTags: a line of one of these (after separators) is no scenery text.
bool starter_line(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && writer_separator(static_cast<std::uint8_t>(line[i]))) ++i;
  line.remove_prefix(i);
  for (std::string_view tag : {"//$decor", "//$it", "//$n", "//$d", "//$f", "//$o", "//$i", "//$a", "//$l", "//$e", "//$g", "//$r",
                               "//$t", "//$w", "//$x"})
    if (line.substr(0, tag.size()) == tag && (line.size() == tag.size() || writer_separator(static_cast<std::uint8_t>(line[tag.size()]))))
      return true;
  return false;
}

}  // namespace

// parser.hpp toLogicalLines, for one line: the pieces of it that are scenery text.
bool TextTokenizer::writer_line() {
  pieces_.clear();
  piece_ = piece_at_ = 0;
  if (at_ >= bytes_.size()) return false;
  const char* text = reinterpret_cast<const char*>(bytes_.data());
  std::size_t begin = at_, end = at_;
  while (end < bytes_.size() && bytes_[end] != '\n') ++end;
  line_start_ = begin;
  at_ = end < bytes_.size() ? end + 1 : end;
  if (end > begin && bytes_[end - 1] == '\r') --end;
  std::string_view line(text + begin, end - begin);
  if (starter_line(line)) return true;
  // A piece: separators skipped, a `//…` piece dropped, anything from `//` on cut off.
  const auto emit = [&](std::size_t from, std::size_t to) {
    while (from < to && writer_separator(bytes_[from])) ++from;
    std::string_view piece(text + from, to - from);
    if (piece.empty() || starter_line(piece) || piece.substr(0, 2) == "//") return;
    if (const std::size_t cut = piece.find("//"); cut != std::string_view::npos) to = from + cut;
    if (to > from) pieces_.push_back({from, to});
  };
  // As the writer scans a line: after a `/*` it reads on as if outside the comment (so
  // `/* x */` on one line gives the tokens `x` and `*/`), and the comment then swallows the
  // following lines up to the next one holding `*/`.
  std::size_t at = begin;
  if (!in_block_) {
    while (at < end) {
      const std::size_t slash = line.find('/', at - begin);
      if (slash == std::string_view::npos) {
        emit(at, end);
        break;
      }
      const std::size_t s = begin + slash;
      if (s + 1 < end && text[s + 1] == '/') {
        if (s > at) emit(at, s);
        break;
      }
      if (s + 1 < end && text[s + 1] == '*') {
        if (s > at) emit(at, s);
        in_block_ = true;
        at = s + 2;
        continue;
      }
      emit(at, end);  // a lone `/` (a path): the rest of the line, any `/*` in it included
      break;
    }
    return true;
  }
  const std::size_t close = std::string_view(text + at, end - at).find("*/");
  if (close == std::string_view::npos) return true;
  in_block_ = false;
  emit(at + close + 2, end);
  return true;
}

std::vector<std::string_view> writer_pieces(std::span<const std::uint8_t> text) {
  TextTokenizer t(text, {.writer = true});
  std::vector<std::string_view> out;
  while (t.writer_line())
    for (const auto& p : t.pieces_) out.emplace_back(reinterpret_cast<const char*>(text.data()) + p.begin, p.end - p.begin);
  return out;
}

// parser.hpp tokenizeInto over each piece.
bool TextTokenizer::writer_next(TextToken& out) {
  const char* text = reinterpret_cast<const char*>(bytes_.data());
  for (;;) {
    while (piece_ >= pieces_.size()) {
      if (!writer_line()) return false;
      ++line_;
      if (!pieces_.empty()) piece_at_ = pieces_[0].begin;
    }
    const std::size_t end = pieces_[piece_].end;
    std::size_t at = std::max(piece_at_, pieces_[piece_].begin);
    while (at < end && writer_separator(bytes_[at])) ++at;
    if (at >= end) {
      if (++piece_ < pieces_.size()) piece_at_ = pieces_[piece_].begin;
      continue;
    }
    out.offset = at;
    out.line = line_ - 1;  // counted up when its line was read
    out.column = static_cast<std::uint32_t>(at - line_start_ + 1);
    out.quoted = false;
    if (text[at] == '"') {
      out.quoted = true;
      token_.clear();
      ++at;
      while (at < end) {
        const char c = text[at];
        if (c == '"') {
          ++at;
          break;
        }
        if (c == '\\') {
          if (++at >= end) break;
          token_.push_back(text[at++]);
          continue;
        }
        token_.push_back(c);
        ++at;
      }
      out.text = token_;
      piece_at_ = at;
      return true;
    }
    if (text[at] == '[') {
      const std::size_t close = std::string_view(text + at + 1, end - at - 1).find(']');
      if (close != std::string_view::npos) {
        out.text = std::string_view(text + at, close + 2);
        piece_at_ = at + close + 2;
        return true;
      }
    }
    const std::size_t start = at;
    while (at < end && !writer_separator(bytes_[at]) && text[at] != '"') ++at;
    piece_at_ = at;
    if (at > start) {
      out.text = std::string_view(text + start, at - start);
      return true;
    }
  }
}

bool TextTokenizer::next(TextToken& out) {
  if (options_.writer) return writer_next(out);
  // Fast path, for almost every token: skip delimiters, then a run with no quote and no comment
  // opener is the token itself, a view into the text (no copy).
  while (at_ < bytes_.size() && delimiter(bytes_[at_])) {
    if (bytes_[at_] == '\n') {
      ++line_;
      line_start_ = at_ + 1;
    }
    ++at_;
  }
  if (at_ >= bytes_.size()) return false;
  std::size_t end = at_;
  const std::size_t size = bytes_.size();
  while (end < size) {
    const std::uint8_t k = class_[bytes_[end]];
    if (k == kOrdinary) {
      ++end;
      continue;
    }
    if (k == kDelimiter) break;
    const std::uint8_t c = bytes_[end];
    if (c == '"' || (end + 1 < size && (bytes_[end + 1] == '/' || bytes_[end + 1] == '*'))) {
      end = std::size_t(-1);  // the slow path below handles quotes and comments
      break;
    }
    ++end;  // a lone '/'
  }
  if (end != std::size_t(-1)) {
    out.quoted = false;
    out.offset = at_;
    out.line = line_;
    out.column = static_cast<std::uint32_t>(at_ - line_start_ + 1);
    out.text = std::string_view(reinterpret_cast<const char*>(bytes_.data()) + at_, end - at_);
    at_ = end;
    return true;
  }
  token_.clear();
  out.quoted = false;
  while (at_ < bytes_.size()) {
    const std::uint8_t c = bytes_[at_];
    if (delimiter(c)) {
      advance();
      // An empty `""` yields nothing, but the next word counts as quoted (the engine's flag
      // is reset only when a token starts).
      if (!token_.empty()) break;
      continue;
    }
    if (token_.empty()) {
      out.offset = at_;
      out.line = line_;
      out.column = static_cast<std::uint32_t>(at_ - line_start_ + 1);
    }
    if (c == '"') {  // a verbatim run up to the next unescaped quote
      out.quoted = true;
      advance();
      while (at_ < bytes_.size() && bytes_[at_] != '"') {
        if (bytes_[at_] == '\\' && at_ + 1 < bytes_.size()) advance();
        token_.push_back(static_cast<char>(bytes_[at_]));
        advance();
      }
      advance();  // the closing quote
      continue;
    }
    token_.push_back(static_cast<char>(c));
    advance();
    // A comment opener at the end of the token cuts it there; the comment is skipped.
    const std::size_t n = token_.size();
    if (n >= 2 && token_[n - 2] == '/' && (token_[n - 1] == '/' || token_[n - 1] == '*')) {
      const bool line_comment = token_[n - 1] == '/';
      token_.resize(n - 2);
      if (line_comment) skip_line_comment();
      else skip_block_comment();
      if (!token_.empty()) break;
    }
  }
  if (token_.empty()) return false;  // an empty token is the end, as in the engine
  out.text = token_;
  return true;
}

bool parse_number(std::string_view token, double& value) {
  // from_chars (general) takes an optional '-', digits with one optional point, an optional
  // exponent; nothing else, and no leading '+' or space. fast_float is that from_chars, with one
  // difference: it gives 0 or infinity where from_chars says "out of range" (and refuses the
  // token), so those results are checked.
  if (token.empty() || token.size() > 512) return false;
  const char* end = token.data() + token.size();
  if (token[0] == '+' || (token[0] == '-' && token.size() > 1 && token[1] == '+')) return false;  // fast_float 3.9 skips a leading '+'
  double v = 0;
  const auto r = fast_float::from_chars(token.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) return false;
  if (!std::isfinite(v)) return false;  // overflow (or "inf"/"nan" spelled out)
  if (std::fabs(v) < std::numeric_limits<double>::min()) {
    // Zero, or an underflow: only a mantissa of zeros is really zero.
    for (const char* p = token.data(); p < end && *p != 'e' && *p != 'E'; ++p)
      if (*p >= '1' && *p <= '9') return false;
  }
  value = v;
  return true;
}

bool parse_writer_number(std::string_view token, double& value) {
  if (token.empty() || iequals(token, "none") || iequals(token, "undefined")) {
    value = 0;
    return true;
  }
  if (token[0] == '+') token.remove_prefix(1);
  if (parse_number(token, value)) return true;
  // from_chars also reads "inf", "infinity" and "nan" (any case, with a sign); fast_float does too.
  if (token.empty() || token.size() > 16 || token[0] == '+' || (token.size() > 1 && token[0] == '-' && token[1] == '+')) return false;
  const char* end = token.data() + token.size();
  double v = 0;
  const auto r = fast_float::from_chars(token.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end || std::isfinite(v)) return false;
  const std::string_view digits = token[0] == '-' ? token.substr(1) : token;
  if (!istarts_with(digits, "inf") && !istarts_with(digits, "nan")) return false;  // an overflow is out of range
  value = v;
  return true;
}

double leading_number(std::string_view token) {
  // Only a decimal prefix counts (strtod alone would read hex and "inf").
  std::size_t n = 0;
  while (n < token.size() && n < 63 && std::string_view("0123456789+-.eE").find(token[n]) != std::string_view::npos) ++n;
  char buffer[64];
  token.copy(buffer, n);
  buffer[n] = '\0';
  const double v = std::strtod(buffer, nullptr);
  return std::isfinite(v) ? v : 0.0;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string substitute(std::string_view s, const std::vector<std::string>& params) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "(p") == 0) {
      const std::size_t close = s.find(')', i + 2);
      if (close == std::string_view::npos) {  // substitution ends for this token
        out.append(s.substr(i));
        break;
      }
      const std::string_view digits = s.substr(i + 2, close - i - 2);
      std::size_t n = 0;
      bool ok = !digits.empty() && digits.size() < 6;
      for (char c : digits) ok = ok && c >= '0' && c <= '9', n = n * 10 + static_cast<std::size_t>(c - '0');
      out += ok && n >= 1 && n <= params.size() ? params[n - 1] : "none";
      i = close + 1;
      continue;
    }
    out.push_back(s[i++]);
  }
  return out;
}

}  // namespace sceneria::maszyna
