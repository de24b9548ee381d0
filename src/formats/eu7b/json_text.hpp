#pragma once
// JSON written as text while the fields go by, for documents too big for a tree: the archive
// JsonTextOut has JsonOut's interface (codec.hpp) and writes what JsonOut's tree would dump, in
// the tree's layout, in pieces to a ByteSink.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/byte_sink.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

class JsonText {
 public:
  // `indent` < 0: compact; else the spaces per level, as nlohmann's dump(indent).
  explicit JsonText(ByteSink& sink, int indent = -1) : sink_(sink), indent_(indent) { buffer_.reserve(kFlushAt + 4096); }
  ~JsonText() { flush(); }
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
  void open_array() { open('['); }
  void close() {
    const Level level = levels_.back();
    levels_.pop_back();
    if (level.count > 0) newline(levels_.size());
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
    newline(levels_.size());
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
    if (buffer_.size() >= kFlushAt) flush();
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

class JsonTextOut {
 public:
  static constexpr bool reading = false;
  static constexpr bool json = true;
  explicit JsonTextOut(JsonText& text) : t_(text) {}
  bool ok() const { return true; }

  void u8(const char* n, const std::uint8_t& v) { name(n), t_.number(std::uint64_t{v}); }
  void u16(const char* n, const std::uint16_t& v) { name(n), t_.number(std::uint64_t{v}); }
  void i32(const char* n, const std::int32_t& v) { name(n), t_.number(std::int64_t{v}); }
  void u32(const char* n, const std::uint32_t& v) { name(n), t_.number(std::uint64_t{v}); }
  void u64(const char* n, const std::uint64_t& v) { name(n), t_.number(v); }
  void f32(const char* n, const float& v) { name(n), float_text(t_, v); }
  void sid(const char* n, const Sid& v) {
    name(n);
    if (v == kNoString) t_.number(std::int64_t{-1});
    else t_.number(std::uint64_t{v});
  }
  void vec3(const char* n, const Vec3f& v) { floats(n, &v.x, 3); }
  void floats(const char* n, const float* p, std::size_t k) {
    name(n);
    t_.open_array();
    for (std::size_t i = 0; i < k; ++i) float_text(t_, p[i]);
    t_.close();
  }
  template <class F>
  void object(const char* n, F&& f) {
    name(n);
    t_.open_object();
    in_array_.push_back(false);
    f();
    in_array_.pop_back();
    t_.close();
  }
  template <class T, class F>
  void list(const char* n, std::vector<T>& v, std::size_t, F&& each, std::uint64_t = UINT32_MAX) {
    name(n);
    t_.open_array();
    in_array_.push_back(true);
    for (T& item : v) each(item);
    in_array_.pop_back();
    t_.close();
  }
  template <class T, class F>
  void list_n(const char* n, std::vector<T>& v, std::uint64_t, std::size_t min, F&& each) {
    list(n, v, min, each);
  }
  template <class T>
  void pooled(const char* n, Span32& span, std::vector<T>& pool) {
    name(n);
    t_.open_array();
    for (std::uint32_t i = 0; i < span.count; ++i) {
      if constexpr (std::is_same_v<T, float>) float_text(t_, pool[span.first + i]);
      else t_.number(std::uint64_t{pool[span.first + i]});
    }
    t_.close();
  }

 private:
  // Inside an object a field is a member; inside a list it is the next element.
  void name(const char* n) {
    if (in_array_.empty() || !in_array_.back()) t_.key(n);
  }
  JsonText& t_;
  std::vector<bool> in_array_;
};

}  // namespace sceneria::eu7b
