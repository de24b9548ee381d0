#pragma once
// JSON archives for the field lists in fields.hpp (codec.hpp explains the archive interface).
// JsonOut can also resolve string ids to display text, for record browsers.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/string_table.hpp"
#include "core/text.hpp"
#include "formats/eu7b/json_tape.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

using ojson = nlohmann::ordered_json;
using njson = nlohmann::json;

// Finite floats are JSON numbers (a float survives float -> double -> text -> double -> float);
// NaN and infinities keep their bits as "0x7f800000".
inline ojson float_json(float v) {
  if (std::isfinite(v)) return static_cast<double>(v);
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return fmt::format("{:#010x}", bits);
}

class JsonOut {
 public:
  static constexpr bool reading = false;
  static constexpr bool json = true;
  // With `display`, string ids are written as their text (null for none) instead of numbers.
  explicit JsonOut(ojson& root, const StringTable* display = nullptr) : display_(display) { stack_.push_back(&root); }
  bool ok() const { return true; }

  void u8(const char* n, const std::uint8_t& v) { put(n, v); }
  void u16(const char* n, const std::uint16_t& v) { put(n, v); }
  void i32(const char* n, const std::int32_t& v) { put(n, v); }
  void u32(const char* n, const std::uint32_t& v) { put(n, v); }
  void u64(const char* n, const std::uint64_t& v) { put(n, v); }
  void f32(const char* n, const float& v) { put(n, float_json(v)); }
  void sid(const char* n, const Sid& v) {
    if (display_) {
      put(n, v == kNoString || v >= display_->size() ? ojson(nullptr) : ojson(display_text((*display_)[v])));
      return;
    }
    put(n, v == kNoString ? ojson(-1) : ojson(v));
  }
  void vec3(const char* n, const Vec3f& v) { put(n, ojson::array({float_json(v.x), float_json(v.y), float_json(v.z)})); }
  void floats(const char* n, const float* p, std::size_t k) {
    ojson a = ojson::array();
    for (std::size_t i = 0; i < k; ++i) a.push_back(float_json(p[i]));
    put(n, std::move(a));
  }
  template <class F>
  void object(const char* n, F&& f) {
    open(n, ojson::object());
    f();
    stack_.pop_back();
  }
  template <class T, class F>
  void list(const char* n, std::vector<T>& v, std::size_t, F&& each, std::uint64_t = UINT32_MAX) {
    open(n, ojson::array());
    for (T& item : v) each(item);
    stack_.pop_back();
  }
  template <class T, class F>
  void list_n(const char* n, std::vector<T>& v, std::uint64_t, std::size_t min, F&& each) {
    list(n, v, min, each);
  }
  template <class T>
  void pooled(const char* n, Span32& span, std::vector<T>& pool) {
    ojson a = ojson::array();
    for (std::uint32_t i = 0; i < span.count; ++i) {
      if constexpr (std::is_same_v<T, float>) a.push_back(float_json(pool[span.first + i]));
      else a.push_back(pool[span.first + i]);
    }
    put(n, std::move(a));
  }

 private:
  ojson& cur() { return *stack_.back(); }
  void put(const char* n, ojson v) {
    if (cur().is_array()) cur().push_back(std::move(v));
    else cur()[n] = std::move(v);
  }
  void open(const char* n, ojson v) {
    if (cur().is_array()) {
      cur().push_back(std::move(v));
      stack_.push_back(&cur().back());
    } else {
      ojson& slot = cur()[n] = std::move(v);
      stack_.push_back(&slot);
    }
  }
  std::vector<ojson*> stack_;
  const StringTable* display_;
};

class JsonIn {
 public:
  static constexpr bool reading = true;
  static constexpr bool json = true;
  explicit JsonIn(const njson& root, std::string path) { stack_.push_back({&root, 0, std::move(path)}); }
  bool ok() const { return !error_; }
  const Error& error() const { return error_; }

  void u8(const char* n, std::uint8_t& v) { integer(n, v); }
  void u16(const char* n, std::uint16_t& v) { integer(n, v); }
  void i32(const char* n, std::int32_t& v) { integer(n, v); }
  void u32(const char* n, std::uint32_t& v) { integer(n, v); }
  void u64(const char* n, std::uint64_t& v) { integer(n, v); }
  void f32(const char* n, float& v) {
    if (const njson* j = next(n)) v = to_float(*j, n);
  }
  void sid(const char* n, Sid& v) {
    const njson* j = next(n);
    if (!j) return;
    if (j->is_number_integer() && j->get<std::int64_t>() == -1) v = kNoString;
    else if (j->is_number_unsigned() && j->get<std::uint64_t>() < kNoString) v = j->get<std::uint32_t>();
    else fail(n, "expected a string id (0 or more, or -1 for none)");
  }
  void vec3(const char* n, Vec3f& v) {
    const njson* j = next(n);
    if (!j) return;
    if (!j->is_array() || j->size() != 3) return fail(n, "expected [x, y, z]");
    v.x = to_float((*j)[0], n);
    v.y = to_float((*j)[1], n);
    v.z = to_float((*j)[2], n);
  }
  void floats(const char* n, float* p, std::size_t k) {
    const njson* j = next(n);
    if (!j) return;
    if (!j->is_array() || j->size() != k) return fail(n, fmt::format("expected {} numbers", k));
    for (std::size_t i = 0; i < k; ++i) p[i] = to_float((*j)[i], n);
  }
  template <class F>
  void object(const char* n, F&& f) {
    const njson* j = next(n);
    if (!j) return;
    if (!j->is_object()) return fail(n, "expected an object");
    stack_.push_back({j, 0, child_path(n)});
    f();
    stack_.pop_back();
  }
  template <class T, class F>
  void list(const char* n, std::vector<T>& v, std::size_t, F&& each, std::uint64_t max = UINT32_MAX) {
    const njson* j = next(n);
    if (!j) return;
    if (!j->is_array()) return fail(n, "expected an array");
    if (j->size() > max) return fail(n, fmt::format("{} items exceed the format's limit of {}", j->size(), max));
    v.resize(j->size());
    stack_.push_back({j, 0, child_path(n)});
    for (T& item : v) {
      each(item);
      if (!ok()) break;
    }
    stack_.pop_back();
  }
  template <class T, class F>
  void list_n(const char* n, std::vector<T>& v, std::uint64_t, std::size_t min, F&& each) {
    list(n, v, min, each);
  }
  template <class T>
  void pooled(const char* n, Span32& span, std::vector<T>& pool) {
    const njson* j = next(n);
    if (!j) return;
    if (!j->is_array()) return fail(n, "expected an array");
    span.first = static_cast<std::uint32_t>(pool.size());
    span.count = static_cast<std::uint32_t>(j->size());
    for (const njson& x : *j) {
      if constexpr (std::is_same_v<T, float>) {
        pool.push_back(to_float(x, n));
      } else {
        if (!x.is_number_unsigned() || x.get<std::uint64_t>() > UINT32_MAX) return fail(n, "expected u32 values");
        pool.push_back(x.get<std::uint32_t>());
      }
    }
  }
  void fail(const char* n, std::string_view what) {
    if (error_) return;
    error_ = Error{Errc::bad_value, 0, fmt::format("{}: {}", child_path(n), what)};
  }

 private:
  struct Frame {
    const njson* node;
    std::size_t index;
    std::string path;
  };
  std::string child_path(const char* n) const {
    const Frame& f = stack_.back();
    if (f.node->is_array()) return fmt::format("{}[{}]", f.path, f.index == 0 ? 0 : f.index - 1);
    return f.path.empty() ? std::string(n) : fmt::format("{}.{}", f.path, n);
  }
  const njson* next(const char* n) {
    if (error_) return nullptr;
    Frame& f = stack_.back();
    if (f.node->is_array()) {
      if (f.index >= f.node->size()) {
        fail(n, "array too short");
        return nullptr;
      }
      return &(*f.node)[f.index++];
    }
    auto it = f.node->find(n);
    if (it == f.node->end()) {
      fail(n, "missing");
      return nullptr;
    }
    return &*it;
  }
  template <class T>
  void integer(const char* n, T& v) {
    const njson* j = next(n);
    if (!j) return;
    const bool ok = j->is_number_unsigned()  ? integer_in_range(true, j->get<std::uint64_t>(), 0, v)
                    : j->is_number_integer() ? integer_in_range(false, 0, j->get<std::int64_t>(), v)
                                             : false;
    if (!ok) fail(n, integer_expected<T>());
  }
  float to_float(const njson& j, const char* n) {
    if (j.is_number()) return static_cast<float>(j.get<double>());
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      std::uint32_t bits = 0;
      if (s.size() == 10 && s.rfind("0x", 0) == 0 && std::sscanf(s.c_str(), "%x", &bits) == 1) {
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
      }
    }
    fail(n, "expected a number (or \"0x…\" bits for NaN/infinity)");
    return 0.0f;
  }

  std::vector<Frame> stack_;
  Error error_;
};


}  // namespace sceneria::eu7b
