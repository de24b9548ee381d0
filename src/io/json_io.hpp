#pragma once
// JSON in and out for the lossless dumps of every format (`sceneria dump`): a text writer that
// never holds the document (JsonText), the forms bytes and floats take in JSON, and a reader that
// hands the items of long lists over one at a time (parse_json_streamed), so a dump can be read
// back with memory that does not grow with it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

namespace sceneria {

class JsonText {
 public:
  // `indent` < 0: compact; else the spaces per level, as nlohmann's dump(indent). `depth`: how
  // deep in a document this text's first value lies, for a piece written on its own (rendered).
  explicit JsonText(ByteSink& sink, int indent = -1, std::size_t depth = 0)
      : sink_(sink), indent_(indent), depth_(depth) {
    buffer_.reserve(depth == 0 ? kFlushAt + 4096 : 4096);  // a piece grows as it needs
  }
  ~JsonText() { (void)flush(); }  // a failed put stays in error_, which finish() answers
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;

  // A member's name; the value written next is its value.
  void key(std::string_view name) {
    element();
    quoted(name);
    buffer_ += indent_ >= 0 ? "\": " : "\":";
    keyed_ = true;
  }
  void open_object() { open('{'); }
  // A JSON form's opening (docs/json-forms.md), `{"format": id, "schema": n`; members follow.
  void open_form(std::string_view format, std::uint64_t schema) {
    open_object();
    key("format");
    string(format);
    key("schema");
    number(schema);
  }
  void open_array() { open('['); }
  void close() {
    const Level level = levels_.back();
    levels_.pop_back();
    if (level.count > 0) newline(depth());
    buffer_ += level.array ? ']' : '}';
    after_value();
  }
  void null() { scalar("null"); }
  void boolean(bool v) { scalar(v ? "true" : "false"); }
  void number(std::uint64_t v) { scalar(fmt::format_int(v).c_str()); }
  void number(std::int64_t v) { scalar(fmt::format_int(v).c_str()); }
  // A finite double in nlohmann's layout ("1.0" for whole numbers, fixed from 1e-4 to 1e15, else
  // "1.5e-07"), so a dump reads like the tree's; the digits are {fmt}'s Dragonbox, the shortest
  // that read back to the same double, several times faster than the tree's Grisu2.
  void number(double v) {
    char out[48];
    char* o = out;
    if (std::signbit(v)) *o++ = '-', v = -v;
    if (v == 0) {
      *o++ = '0', *o++ = '.', *o++ = '0';
    } else {
      const auto dec = fmt::detail::dragonbox::to_decimal(v);
      const fmt::format_int digits(dec.significand);
      const char* d = digits.data();
      const int k = static_cast<int>(digits.size()), n = k + dec.exponent;
      if (k <= n && n <= 15) {  // digits and zeros, ".0"
        o = std::copy(d, d + k, o);
        o = std::fill_n(o, n - k, '0');
        *o++ = '.', *o++ = '0';
      } else if (0 < n && n <= 15) {  // dig.its
        o = std::copy(d, d + n, o);
        *o++ = '.';
        o = std::copy(d + n, d + k, o);
      } else if (-4 < n && n <= 0) {  // 0.000digits
        *o++ = '0', *o++ = '.';
        o = std::fill_n(o, -n, '0');
        o = std::copy(d, d + k, o);
      } else {  // d.igitse+XX
        *o++ = d[0];
        if (k > 1) *o++ = '.', o = std::copy(d + 1, d + k, o);
        const int e = n - 1;
        *o++ = 'e', *o++ = e < 0 ? '-' : '+';
        const fmt::format_int exponent(e < 0 ? -e : e);
        if (exponent.size() < 2) *o++ = '0';
        o = std::copy(exponent.data(), exponent.data() + exponent.size(), o);
      }
    }
    scalar(std::string_view(out, static_cast<std::size_t>(o - out)));
  }
  // A value written as text by a JsonText at depth() (another thread's piece of the document).
  void rendered(std::string_view text) { scalar(text); }
  std::size_t depth() const { return depth_ + levels_.size(); }
  int indent() const { return indent_; }
  // `text` must be UTF-8 (every string we write is: names are decoded, odd bytes are hex).
  void string(std::string_view text) {
    element();
    quoted(text);
    buffer_ += '"';
    after_value();
  }

  // Hands what is buffered to the sink; its first error, if any.
  Error flush() {
    if (!buffer_.empty() && !error_) error_ = sink_.put(buffer_);
    buffer_.clear();
    return error_;
  }
  const Error& error() const { return error_; }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  struct Level {
    bool array;
    std::uint64_t count;
  };
  void element() {
    if (keyed_ || levels_.empty()) return;
    Level& level = levels_.back();
    if (level.count++ > 0) buffer_ += ',';
    newline(depth());
  }
  void newline(std::size_t depth) {
    if (indent_ < 0) return;
    buffer_ += '\n';
    buffer_.append(depth * static_cast<std::size_t>(indent_), ' ');
  }
  void open(char c) {
    element();
    buffer_ += c;
    keyed_ = false;
    levels_.push_back({c == '[', 0});
  }
  void scalar(std::string_view text) {
    element();
    buffer_ += text;
    after_value();
  }
  void after_value() {
    keyed_ = false;
    if (buffer_.size() >= kFlushAt) (void)flush();  // kept in error_ until finish()
  }
  // The opening quote and the escaped text, as nlohmann escapes it (ensure_ascii off).
  void quoted(std::string_view text) {
    buffer_ += '"';
    std::size_t plain = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      buffer_.append(text.data() + plain, i - plain);
      plain = i + 1;
      switch (c) {
        case '"': buffer_ += "\\\""; break;
        case '\\': buffer_ += "\\\\"; break;
        case '\b': buffer_ += "\\b"; break;
        case '\f': buffer_ += "\\f"; break;
        case '\n': buffer_ += "\\n"; break;
        case '\r': buffer_ += "\\r"; break;
        case '\t': buffer_ += "\\t"; break;
        default: buffer_ += fmt::format("\\u{:04x}", c);
      }
    }
    buffer_.append(text.data() + plain, text.size() - plain);
  }

  ByteSink& sink_;
  int indent_;
  std::size_t depth_;
  std::string buffer_;
  std::vector<Level> levels_;
  bool keyed_ = false;
  Error error_;
};

// Finite floats as the double they are; NaN and infinities as their bits, "0x7f800000".
inline void float_text(JsonText& t, float v) {
  if (std::isfinite(v)) return t.number(static_cast<double>(v));
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  t.string(fmt::format("{:#010x}", bits));
}

// Bytes that are not text, as lowercase hex.
inline void hex_text(JsonText& t, std::string_view key, std::span<const std::uint8_t> bytes) {
  t.key(key);
  t.string(to_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
}

// Doubles likewise: finite ones as numbers, NaN and infinities as "0x7ff8000000000000".
void double_text(JsonText& t, double v);
// A float or a double back from either form; false for anything else.
bool float_from_json(const nlohmann::json& j, float& v);
bool double_from_json(const nlohmann::json& j, double& v);

// Strings keep their exact bytes: UTF-8 as a JSON string, otherwise {"cp1250": text} when every
// byte is defined in Windows-1250, otherwise {"hex": "…"} (docs/eu7b-json.md). string_form gives
// the form ("" for UTF-8, "cp1250", "hex") and the text to write; string_from_form reverses it.
std::string_view string_form(std::string_view bytes, std::string& text);
bool string_from_form(std::string_view form, std::string_view text, std::string& bytes);
nlohmann::ordered_json string_to_json(std::string_view bytes);
bool string_from_json(const nlohmann::json& j, std::string& bytes);
void string_text(JsonText& t, std::string_view bytes);

// A chunk id (four bytes) as text: printable ASCII as it is, other bytes (and '\\') as "\\xNN".
std::string fourcc_text(std::string_view four);
bool fourcc_from_text(std::string_view text, std::string& four);

// A ByteSource as RapidJSON's input stream, read in blocks that end with a '\0' RapidJSON takes
// for the end of the input (FileReadStream's scheme). Copying a block from a mapped file costs
// less than the bounds checks reading it in place would (Peek and Take run per character); the
// blocks already read are let go.
class SourceStream {
 public:
  using Ch = char;
  explicit SourceStream(ByteSource& source) : source_(source), buffer_(kBlock + 1) { fill(); }
  Ch Peek() const { return *current_; }
  Ch Take() {
    const Ch c = *current_;
    if (current_ < last_) ++current_;
    else if (!eof_) next_block();
    return c;
  }
  std::size_t Tell() const {
    if (injected_) return saved_tell_;
    return static_cast<std::size_t>(block_at_) + static_cast<std::size_t>(current_ - buffer_.data());
  }
  const Error& error() const { return error_; }
  // Never written: RapidJSON asks for these only from output streams.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

  // For a reader that scans ahead of RapidJSON (a dump's PACK sections, cut out and parsed on
  // other threads): the characters that can be had without reading on, and a step over some of
  // them (from the start of what available() gave).
  std::string_view available() const {
    return {current_, static_cast<std::size_t>((eof_ ? last_ : last_ + 1) - current_)};
  }
  void advance(std::size_t n) {
    current_ += n;
    if (current_ > last_ && !eof_) {
      current_ = last_;
      next_block();
    }
  }
  // Makes the next two characters `two` (RapidJSON takes a character after a handler call
  // returns: " ]" after a list read past it ends that list), then the input goes on.
  void inject(const char (&two)[3]) {
    saved_tell_ = Tell();
    saved_current_ = current_, saved_last_ = last_, saved_eof_ = eof_;
    std::memcpy(injected_text_, two, 2);
    injected_text_[2] = '\0';
    current_ = injected_text_, last_ = injected_text_ + 1, eof_ = false;
    injected_ = true;
  }

 private:
  static constexpr std::size_t kBlock = 1 << 20;
  void next_block() {
    if (injected_) {
      injected_ = false;
      current_ = saved_current_, last_ = saved_last_, eof_ = saved_eof_;
      return;
    }
    source_.release(block_at_, block_at_ + block_size_);
    block_at_ += block_size_;
    fill();
  }
  void fill() {
    const std::uint64_t left = source_.size() - std::min(source_.size(), block_at_);
    block_size_ = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, left));
    if (Error e = source_.read(block_at_, std::span(reinterpret_cast<std::uint8_t*>(buffer_.data()), block_size_))) {
      error_ = e;
      block_size_ = 0;
    }
    current_ = buffer_.data();
    // `last_` is the block's last character; at the end of the input, the '\0' after it.
    eof_ = block_size_ < kBlock || block_at_ + block_size_ >= source_.size() || error_;
    buffer_[block_size_] = '\0';
    last_ = buffer_.data() + (eof_ ? block_size_ : block_size_ - 1);
  }
  ByteSource& source_;
  std::vector<Ch> buffer_;
  Ch* current_ = nullptr;
  Ch* last_ = nullptr;
  std::uint64_t block_at_ = 0;
  std::size_t block_size_ = 0;
  bool eof_ = false;
  Error error_;
  bool injected_ = false, saved_eof_ = false;
  Ch injected_text_[3] = {};
  Ch* saved_current_ = nullptr;
  Ch* saved_last_ = nullptr;
  std::size_t saved_tell_ = 0;
};

// A value being read by parse_json_streamed: the containers open around it, outermost first,
// each with the member name it is the value of ("" for an array's item or the document).
struct JsonLevel {
  const nlohmann::json* value;  // as far as it has been read
  std::string_view key;
  std::uint64_t items;  // an array's items so far, kept or not: the next one's index
};
// Called for each item of an array once it has been read whole (scalars, and arrays and objects
// when they close). Returns whether the array keeps it: an item handed over and not kept costs no
// memory, which is how a dump's long lists are read one item at a time. An error stops the read.
using JsonItemVisitor = std::function<Result<bool>(std::span<const JsonLevel> open, nlohmann::json& item)>;

// Reads a JSON document from `source` in 1 MB blocks (RapidJSON, iterative: hostile nesting
// cannot exhaust the stack; deeper than `max_depth` is refused), building the tree of what the
// visitor keeps. Errors say where: "not valid JSON at byte 63: Invalid value."
Result<nlohmann::json> parse_json_streamed(ByteSource& source, const JsonItemVisitor& visitor, std::size_t max_depth = 64);

// Whether a file is the JSON form of format `format`: named .json, and starting with
// {"format": "<format>" (whitespace allowed), as every dump starts.
bool json_form_is(std::span<const std::uint8_t> head, std::string_view name, std::string_view format);

// Where a value is, for messages: "chunks[3].vertices[12]" from the levels open around it.
std::string json_path(std::span<const JsonLevel> open);

}  // namespace sceneria
