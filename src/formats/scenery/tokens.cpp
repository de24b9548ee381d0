#include "formats/scenery/tokens.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace sceneria::scenery {

EntryTag number_encoding(double v) {
  // A whole number within ±2^53 (the range checked first, so the cast is defined; NaN fails it).
  if (v >= -9.007199254740992e15 && v <= 9.007199254740992e15 && static_cast<double>(static_cast<std::int64_t>(v)) == v)
    return EntryTag::int_number;
  const float f = static_cast<float>(v);
  if (std::isfinite(f) && (static_cast<double>(f) == v || std::abs(static_cast<double>(f) - v) <= 1e-6 * std::abs(v))) return EntryTag::f32;
  return EntryTag::f64;
}

double stored_value(double v, EntryTag encoding) {
  switch (encoding) {
    case EntryTag::int_number: return static_cast<double>(static_cast<std::int64_t>(v));
    case EntryTag::f32: return static_cast<double>(static_cast<float>(v));
    default: return v;
  }
}

// ---- text ----

TextTokenSource::TextTokenSource(std::span<const std::uint8_t> bytes, TokenizerOptions options)
    : tokenizer_(bytes, options), bytes_(bytes), options_(options) {}

TextTokenSource::TextTokenSource(std::span<const std::uint8_t> bytes, TokenizerOptions options, std::size_t offset,
                                 std::uint32_t line)
    : TextTokenSource(bytes, options) {
  tokenizer_.start_at(offset, line);
}

double TextTokenSource::progress() const {
  return tokenizer_.size() ? static_cast<double>(tokenizer_.offset()) / static_cast<double>(tokenizer_.size()) : 1.0;
}

bool TextTokenSource::raw(Token& out) {
  TextToken t;
  if (!tokenizer_.next(t)) return false;
  out = Token{};
  if (tokenizer_.in_text(t.text)) {
    out.text = t.text;  // a view into the text: stable
  } else {
    current_.assign(t.text);
    out.text = current_;
    out.transient = true;
  }
  out.offset = t.offset;
  out.line = t.line;
  out.column = t.column;
  if (t.quoted) {
    out.kind = TokenKind::quoted;
  } else if (double v; parse_number(t.text, v)) {
    out.kind = TokenKind::number;
    out.encoding = number_encoding(v);
    out.value = v;  // exact: the grammar reads the text's value; a twin stores stored_value()
  }
  return true;
}

bool TextTokenSource::next(Token& out) {
  untouched_ = false;
  if (pending_at_ < pending_.size()) {
    out = pending_[pending_at_];
    out.text = pending_text_[pending_at_];
    out.original = pending_original_[pending_at_];
    ++pending_at_;
    return true;
  }
  pending_.clear();
  pending_text_.clear();
  pending_original_.clear();
  pending_at_ = 0;
  if (!raw(out)) return false;
  out.original = out.text;
  // `include` (any case; quoted only as exactly that) starts an include statement: one file
  // name (lower-cased unless quoted, `\` made `/`), then parameters verbatim up to a literal
  // `end` (case matters: `END` is a parameter), all as words. Served from pending_ one by one.
  const bool include = out.kind == TokenKind::quoted ? out.text == "include" : iequals(out.text, "include");
  if (!include) return true;
  Token t = out;
  t.kind = TokenKind::word;
  t.in_include = true;
  t.transient = true;  // served from pending_, which the next statement reuses
  pending_.push_back(t);
  pending_text_.push_back("include");
  pending_original_.push_back(std::string(t.text));
  for (bool file = true; raw(t); file = false) {
    std::string text(t.text);
    if (file) {
      if (t.kind != TokenKind::quoted) text = lower(text);
      for (char& c : text) c = c == '\\' ? '/' : c;
    }
    const bool end = !file && text == "end";
    t.in_include = true;
    t.transient = true;
    t.kind = TokenKind::word;
    t.value = 0;
    t.encoding = EntryTag::token;
    pending_.push_back(t);
    pending_original_.push_back(std::string(t.text));
    pending_text_.push_back(std::move(text));
    if (end) break;
  }
  pending_.back().ends_include = true;
  out = pending_[0];
  out.text = pending_text_[0];
  out.original = pending_original_[0];
  pending_at_ = 1;
  return true;
}

// ---- twin ----

double TwinTokenSource::progress() const {
  return twin_.entries.empty() ? 1.0 : static_cast<double>(entry_) / static_cast<double>(twin_.entries.size());
}

bool TwinTokenSource::next(Token& out) {
  // A marker the pass does not serve is stepped over whole (served() is true outside markers).
  while (entry_ < twin_.entries.size() && include_part_ == 0 && !served(twin_, twin_.entries[entry_], pass_)) {
    const TwinMarker& m = twin_.markers[twin_.entries[entry_].marker];
    entry_ = std::max<std::size_t>(entry_ + 1, std::size_t{m.first_entry} + m.entry_count);
    ++markers_passed_;
  }
  if (entry_ >= twin_.entries.size()) return false;
  const TwinEntry& e = twin_.entries[entry_];
  out = Token{};
  out.offset = e.offset;
  out.marker = e.marker;
  switch (e.tag) {
    case EntryTag::include: {
      out.in_include = true;
      const std::uint32_t strings = e.files + e.params;
      if (include_part_ == 0) out.text = "include";
      else if (include_part_ <= strings) out.text = twin_.include_string(e, include_part_ - 1);
      else out.text = "end";
      out.ends_include = include_part_ == strings + 1;
      out.original = out.text;
      if (++include_part_ > strings + 1) {
        include_part_ = 0;
        ++entry_;
      }
      return true;
    }
    case EntryTag::int_number:
    case EntryTag::f32:
    case EntryTag::f64:
      out.kind = TokenKind::number;
      out.encoding = e.tag;
      out.value = e.number;
      break;
    case EntryTag::qtoken:
      out.kind = TokenKind::quoted;
      out.text = twin_.text(e);
      break;
    default:
      out.text = twin_.text(e);
      break;
  }
  out.original = out.text;
  ++entry_;
  return true;
}

const TwinMarker* TwinTokenSource::node() const {
  if (entry_ == 0 || entry_ > twin_.entries.size()) return nullptr;
  const std::uint32_t m = twin_.entries[include_part_ ? entry_ : entry_ - 1].marker;
  return m < twin_.markers.size() ? &twin_.markers[m] : nullptr;
}

std::uint64_t TwinTokenSource::node_offset() const {
  const TwinMarker* m = node();
  return m ? m->offset : kNoNode;
}

bool TwinTokenSource::seek_node(std::uint64_t offset) {
  const auto it = std::lower_bound(twin_.markers.begin(), twin_.markers.end(), offset,
                                   [](const TwinMarker& m, std::uint64_t at) { return m.offset < at; });
  if (it == twin_.markers.end() || it->offset != offset || it->entry_count == 0) return false;
  entry_ = it->first_entry;
  include_part_ = 0;
  return true;
}

bool TwinTokenSource::skip_marked_node(std::initializer_list<std::string_view> ends, bool prefix) {
  const TwinMarker* m = include_part_ ? nullptr : node();
  if (!m || m->nodes != 1 || m->entry_count == 0) return false;
  const std::size_t end = std::size_t{m->first_entry} + m->entry_count;
  if (entry_ >= end) return false;  // the node's last entry was read already
  const TwinEntry& last = twin_.entries[end - 1];
  if (last.tag != EntryTag::token && last.tag != EntryTag::qtoken) return false;
  const std::string_view text = twin_.text(last);
  bool is_end = false;
  for (std::string_view e : ends) is_end = is_end || (prefix ? istarts_with(text, e) : iequals(text, e));
  if (!is_end) return false;  // something follows its terminator inside the marker
  entry_ = end;
  ++nodes_skipped_;
  return true;
}

namespace {

// A line that starts with the word `node` at or after `from`; npos if none within a few MB.
std::size_t node_line_at_or_after(std::span<const std::uint8_t> text, std::size_t from) {
  const std::size_t limit = std::min(text.size(), from + (std::size_t{4} << 20));
  const auto starts_node = [&](std::size_t at) {
    if (at + 5 > text.size()) return false;
    const auto low = [&](std::size_t k) { return static_cast<char>(text[at + k] | 0x20); };  // ASCII letters only
    const std::uint8_t after = text[at + 4];
    return low(0) == 'n' && low(1) == 'o' && low(2) == 'd' && low(3) == 'e' &&
           (after == ' ' || after == '\t' || after == ';' || after == '\r' || after == '\n');
  };
  for (std::size_t i = std::max<std::size_t>(from, 1); i <= limit;) {  // a newline at i - 1 or later
    const auto* nl = static_cast<const std::uint8_t*>(std::memchr(text.data() + i - 1, '\n', limit - (i - 1)));
    if (!nl) break;
    const auto line = static_cast<std::size_t>(nl - text.data()) + 1;
    if (starts_node(line)) return line;
    i = line + 1;
  }
  return std::string::npos;
}

}  // namespace

std::vector<std::size_t> text_part_starts(std::span<const std::uint8_t> text, unsigned parts) {
  constexpr std::size_t kSmallestPart = std::size_t{2} << 20;
  const auto wanted = static_cast<std::size_t>(std::min<std::uint64_t>(parts, text.size() / kSmallestPart));
  std::vector<std::size_t> starts{0};
  for (std::size_t k = 1; k < wanted; ++k) {
    const std::size_t at = node_line_at_or_after(text, std::max(starts.back() + 1, text.size() / wanted * k));
    if (at != std::string::npos && at > starts.back()) starts.push_back(at);
  }
  return starts;
}

}  // namespace sceneria::scenery
