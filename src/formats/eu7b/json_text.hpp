#pragma once
// The archive JsonTextOut has JsonOut's interface (codec.hpp) and writes what JsonOut's tree
// would dump, in the tree's layout, in pieces to a ByteSink (through io/json_io.hpp's JsonText).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "formats/eu7b/records.hpp"
#include "io/byte_sink.hpp"
#include "io/json_io.hpp"

namespace sceneria::eu7b {

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
