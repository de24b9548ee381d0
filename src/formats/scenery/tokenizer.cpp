#include "formats/scenery/tokenizer.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <limits>

#include <fast_float/fast_float.h>

namespace sceneria::scenery {

TextTokenizer::TextTokenizer(std::span<const std::uint8_t> bytes, TokenizerOptions options)
    : bytes_(bytes), options_(options) {
  for (std::uint8_t c : {' ', '\t', '\r', '\n', ';'}) class_[c] = kDelimiter;
  if (options_.legacy_comma) class_[static_cast<std::uint8_t>(',')] = kDelimiter;
  class_[static_cast<std::uint8_t>('"')] = class_[static_cast<std::uint8_t>('/')] = kSpecial;
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

bool TextTokenizer::next(TextToken& out) {
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

}  // namespace sceneria::scenery
