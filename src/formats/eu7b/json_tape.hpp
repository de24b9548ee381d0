#pragma once
// One small piece of a JSON document (a record, a chunk's own members) recorded as flat tokens
// while a SAX parser streams through the document, and read back by TapeIn: JsonIn's interface
// (codec.hpp) and messages, over a buffer that is reused for every piece instead of a tree.
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

// A JSON integer into T when it fits: non-negative ones come as unsigned (`u`), negative ones
// as signed (`i`), as both parsers give them. Shared by the tree reader (JsonIn) and TapeIn.
template <class T>
bool integer_in_range(bool is_unsigned, std::uint64_t u, std::int64_t i, T& v) {
  if (is_unsigned) {
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return false;
    v = static_cast<T>(u);
    return true;
  }
  if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) || i > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
    return false;
  v = static_cast<T>(i);
  return true;
}
template <class T>
std::string integer_expected() {
  return fmt::format("expected an integer in [{}, {}]", std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
}

struct TapeToken {
  // `streamed`: a list whose items were read one at a time and are in their vector already.
  enum Kind : std::uint8_t { null, boolean, unsigned_int, signed_int, real, string, key, object, array, streamed };
  Kind kind = null;
  bool flag = false;           // a boolean's value
  std::uint32_t end = 0;       // containers: one past their last token
  std::uint32_t count = 0;     // containers: elements or members; strings and keys: length
  union {
    std::uint64_t u = 0;       // unsigned_int; strings and keys: offset of their text
    std::int64_t i;
    double d;
  };
  bool container() const { return kind == object || kind == array; }
  bool number() const { return kind == unsigned_int || kind == signed_int || kind == real; }
};

class Tape {
 public:
  void clear() {
    tokens_.clear();
    text_.clear();
    open_.clear();
  }
  bool complete() const { return open_.empty() && !tokens_.empty(); }
  std::size_t depth() const { return open_.size(); }
  const std::vector<TapeToken>& tokens() const { return tokens_; }
  std::string_view text(const TapeToken& t) const { return std::string_view(text_).substr(t.u, t.count); }

  void value(TapeToken t) {
    counted();
    tokens_.push_back(t);
  }
  void text_value(TapeToken::Kind kind, std::string_view s) {
    if (kind != TapeToken::key) counted();
    TapeToken t;
    t.kind = kind;
    t.u = text_.size();
    t.count = static_cast<std::uint32_t>(s.size());
    text_.append(s);
    tokens_.push_back(t);
  }
  void begin(TapeToken::Kind kind) {
    counted();
    open_.push_back(static_cast<std::uint32_t>(tokens_.size()));
    TapeToken t;
    t.kind = kind;
    tokens_.push_back(t);
  }
  void end() {
    tokens_[open_.back()].end = static_cast<std::uint32_t>(tokens_.size());
    open_.pop_back();
  }

 private:
  void counted() {
    if (!open_.empty()) ++tokens_[open_.back()].count;
  }
  std::vector<TapeToken> tokens_;
  std::string text_;
  std::vector<std::uint32_t> open_;
};

class TapeIn {
 public:
  static constexpr bool reading = true;
  static constexpr bool json = true;
  // Reads the tape's one value as the element `first_index` of the list at `path`
  // (a.object("", …) then opens it), or, with `open_root`, from inside its root object.
  // `path` must outlive the reader (messages are built from it only when something fails).
  TapeIn(const Tape& tape, std::string_view path, std::uint64_t first_index = 0, bool open_root = false)
      : tape_(tape), root_path_(path) {
    const auto size = static_cast<std::uint32_t>(tape.tokens().size());
    if (open_root && size > 0 && tape.tokens()[0].kind == TapeToken::object)
      push({0, 1, tape.tokens()[0].end, 0, false, nullptr, 0});
    else
      push({0, 0, size, first_index, true, nullptr, 0});
  }
  bool ok() const { return !error_; }
  const Error& error() const { return error_; }

  void u8(const char* n, std::uint8_t& v) { integer(n, v); }
  void u16(const char* n, std::uint16_t& v) { integer(n, v); }
  void i32(const char* n, std::int32_t& v) { integer(n, v); }
  void u32(const char* n, std::uint32_t& v) { integer(n, v); }
  void u64(const char* n, std::uint64_t& v) { integer(n, v); }
  void f32(const char* n, float& v) {
    if (const TapeToken* t = next(n)) v = to_float(*t, n);
  }
  void sid(const char* n, Sid& v) {
    const TapeToken* t = next(n);
    if (!t) return;
    if (t->kind == TapeToken::signed_int && t->i == -1) v = kNoString;
    else if (t->kind == TapeToken::unsigned_int && t->u < kNoString) v = static_cast<Sid>(t->u);
    else fail(n, "expected a string id (0 or more, or -1 for none)");
  }
  void vec3(const char* n, Vec3f& v) { floats(n, &v.x, 3, "expected [x, y, z]"); }
  void floats(const char* n, float* p, std::size_t k, const char* what = nullptr) {
    const TapeToken* t = next(n);
    if (!t) return;
    if (t->kind != TapeToken::array || t->count != k)
      return fail(n, what ? std::string(what) : fmt::format("expected {} numbers", k));
    const TapeToken* item = t + 1;
    for (std::size_t i = 0; i < k; ++i, ++item) p[i] = to_float(*item, n);  // numbers are one token each
  }
  template <class F>
  void object(const char* n, F&& f) {
    const TapeToken* t = next(n);
    if (!t) return;
    if (t->kind != TapeToken::object) return fail(n, "expected an object");
    if (!enter(t, false, n)) return;
    f();
    --depth_;
  }
  template <class T, class F>
  void list(const char* n, std::vector<T>& v, std::size_t, F&& each, std::uint64_t max = UINT32_MAX) {
    const TapeToken* t = next(n);
    if (!t || t->kind == TapeToken::streamed) return;
    if (t->kind != TapeToken::array) return fail(n, "expected an array");
    if (t->count > max) return fail(n, fmt::format("{} items exceed the format's limit of {}", t->count, max));
    v.resize(t->count);
    if (!enter(t, true, n)) return;
    for (T& item : v) {
      each(item);
      if (!ok()) break;
    }
    --depth_;
  }
  template <class T, class F>
  void list_n(const char* n, std::vector<T>& v, std::uint64_t, std::size_t min, F&& each) {
    list(n, v, min, each);
  }
  template <class T>
  void pooled(const char* n, Span32& span, std::vector<T>& pool) {
    const TapeToken* t = next(n);
    if (!t) return;
    if (t->kind != TapeToken::array) return fail(n, "expected an array");
    span.first = static_cast<std::uint32_t>(pool.size());
    span.count = t->count;
    const TapeToken* end = tokens() + t->end;
    for (const TapeToken* x = t + 1; x < end; x = skip(x)) {
      if constexpr (std::is_same_v<T, float>) {
        pool.push_back(to_float(*x, n));
      } else {
        if (x->kind != TapeToken::unsigned_int || x->u > UINT32_MAX) return fail(n, "expected u32 values");
        pool.push_back(static_cast<std::uint32_t>(x->u));
      }
    }
  }
  void fail(const char* n, std::string_view what) {
    if (error_) return;
    error_ = Error{Errc::bad_value, 0, fmt::format("{}: {}", child_path(n), what)};
  }

  // A member of the current object, or nullptr: for optional members read outside the field lists.
  const TapeToken* member(const char* n) {
    Frame& f = top();
    if (f.array) return nullptr;
    return find(f, n);
  }
  std::string_view text(const TapeToken& t) const { return tape_.text(t); }

 private:
  struct Frame {
    std::uint32_t container;  // token index of the object or array (unused for the root list)
    std::uint32_t cursor;     // arrays: the next element; objects: where the next search starts
    std::uint32_t end;
    std::uint64_t index;      // arrays: elements taken (for paths)
    bool array;
    // How it was reached, for paths: a member's name, or else its index in the list above.
    const char* name;
    std::uint64_t at;
  };
  // Records nest a few levels; a document nested deeper than this is not one of ours.
  static constexpr std::size_t kMaxDepth = 16;
  Frame& top() { return stack_[depth_ - 1]; }
  const Frame& top() const { return stack_[depth_ - 1]; }
  void push(const Frame& f) { stack_[depth_++] = f; }
  const TapeToken* tokens() const { return tape_.tokens().data(); }
  const TapeToken* skip(const TapeToken* t) const { return t->container() ? tokens() + t->end : t + 1; }
  bool enter(const TapeToken* t, bool array, const char* n) {
    if (depth_ == kMaxDepth) {
      fail(n, "nested too deep");
      return false;
    }
    const Frame& parent = top();
    const auto at = static_cast<std::uint32_t>(t - tokens());
    push({at, at + 1, t->end, 0, array, parent.array ? nullptr : n, parent.index == 0 ? 0 : parent.index - 1});
    return true;
  }
  // Built only for a message: the root's path, then each level's member name or list index.
  std::string child_path(const char* n) const {
    std::string path(root_path_);
    auto label = [&](const char* name, std::uint64_t at) {
      if (name) path += path.empty() ? std::string(name) : "." + std::string(name);
      else path += fmt::format("[{}]", at);
    };
    for (std::size_t k = 1; k < depth_; ++k) label(stack_[k].name, stack_[k].at);
    const Frame& f = top();
    label(f.array ? nullptr : n, f.index == 0 ? 0 : f.index - 1);
    return path;
  }
  // Members are looked for from just after the last one found, so fields in the order they were
  // written are found at once; any other order is found too, one lap later.
  const TapeToken* find(Frame& f, std::string_view n) {
    const std::uint32_t first = f.container + 1;
    if (f.cursor >= f.end) f.cursor = first;
    std::uint32_t at = f.cursor;
    for (int lap = 0; lap < 2; ++lap) {
      const std::uint32_t stop = lap == 0 ? f.end : f.cursor;
      while (at < stop) {
        const TapeToken& key = tokens()[at];
        const TapeToken* value = &key + 1;
        const auto after = static_cast<std::uint32_t>(skip(value) - tokens());
        if (tape_.text(key) == n) {
          f.cursor = after;
          return value;
        }
        at = after;
      }
      at = first;
    }
    return nullptr;
  }
  const TapeToken* next(const char* n) {
    if (error_) return nullptr;
    Frame& f = top();
    if (f.array) {
      if (f.cursor >= f.end) {
        fail(n, "array too short");
        return nullptr;
      }
      const TapeToken* t = tokens() + f.cursor;
      f.cursor = static_cast<std::uint32_t>(skip(t) - tokens());
      ++f.index;
      return t;
    }
    const TapeToken* t = find(f, n);
    if (!t) fail(n, "missing");
    return t;
  }
  template <class T>
  void integer(const char* n, T& v) {
    const TapeToken* t = next(n);
    if (!t) return;
    const bool integer = t->kind == TapeToken::unsigned_int || t->kind == TapeToken::signed_int;
    if (!integer || !integer_in_range(t->kind == TapeToken::unsigned_int, t->u, t->i, v)) fail(n, integer_expected<T>());
  }
  float to_float(const TapeToken& t, const char* n) {
    switch (t.kind) {
      case TapeToken::unsigned_int: return static_cast<float>(t.u);
      case TapeToken::signed_int: return static_cast<float>(t.i);
      case TapeToken::real: return static_cast<float>(t.d);
      case TapeToken::string: {
        const std::string_view s = tape_.text(t);
        std::uint32_t bits = 0;
        if (s.size() == 10 && s.substr(0, 2) == "0x" && std::sscanf(std::string(s).c_str(), "%x", &bits) == 1) {
          float f;
          std::memcpy(&f, &bits, 4);
          return f;
        }
        break;
      }
      default: break;
    }
    fail(n, "expected a number (or \"0x…\" bits for NaN/infinity)");
    return 0.0f;
  }

  const Tape& tape_;
  std::string_view root_path_;
  std::array<Frame, kMaxDepth> stack_;
  std::size_t depth_ = 0;
  Error error_;
};

}  // namespace sceneria::eu7b
