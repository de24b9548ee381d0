#include "formats/scenery/tokenizer.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>

namespace sceneria::scenery {

TextTokenizer::TextTokenizer(std::span<const std::uint8_t> bytes, TokenizerOptions options)
    : bytes_(bytes), options_(options) {
  // A UTF-8 BOM is not part of the first token (nor a token of its own).
  if (bytes_.size() >= 3 && bytes_[0] == 0xEF && bytes_[1] == 0xBB && bytes_[2] == 0xBF) at_ = line_start_ = 3;
}

bool TextTokenizer::delimiter(std::uint8_t c) const {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || (options_.legacy_comma && c == ',');
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
  while (end < bytes_.size()) {
    const std::uint8_t c = bytes_[end];
    if (delimiter(c)) break;
    if (c == '"' || (c == '/' && end + 1 < bytes_.size() && (bytes_[end + 1] == '/' || bytes_[end + 1] == '*'))) {
      end = std::size_t(-1);  // the slow path below handles quotes and comments
      break;
    }
    ++end;
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
  // exponent; nothing else, and no leading '+' or space. strtod takes more (hex, "inf", "+",
  // spaces), so those are refused before it sees them.
  if (token.empty() || token.size() > 512) return false;
  bool digit = false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    if (c >= '0' && c <= '9') digit = true;
    else if (c == '-' && (i == 0 || token[i - 1] == 'e' || token[i - 1] == 'E')) {}
    else if (c == '+' && i > 0 && (token[i - 1] == 'e' || token[i - 1] == 'E')) {}
    else if (c != '.' && c != 'e' && c != 'E') return false;
  }
  if (!digit) return false;
  char buffer[520];
  token.copy(buffer, token.size());
  buffer[token.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(buffer, &end);
  if (end != buffer + token.size() || errno == ERANGE || !std::isfinite(v)) return false;
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
