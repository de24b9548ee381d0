#pragma once
// One description of every EU7B record (fields.hpp) drives three codecs: binary in, binary out,
// and JSON (json_codec.hpp). A field list written once cannot drift between reader and writer,
// which is what keeps round trips byte-identical.
//
// An archive offers: u8/u16/i32/u32/u64/f32/sid/vec3/floats(name, value), object(name, fn),
// list(name, vector, min_item_bytes, each[, max]) with a u32 count prefix, list_n (count known),
// and pooled(name, span, pool) for count-prefixed 4-byte items stored in a pool.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

class BinaryIn {
 public:
  static constexpr bool reading = true;
  static constexpr bool json = false;

  BinaryIn(ByteReader& r, std::uint32_t string_count, std::vector<Problem>* problems)
      : r_(r), string_count_(string_count), problems_(problems) {}

  bool ok() const { return r_.ok(); }
  ByteReader& reader() { return r_; }
  // One past the highest string id read so far: how much of STRS these records need resolved.
  std::uint32_t string_reach() const { return string_reach_; }

  void u8(const char*, std::uint8_t& v) { v = r_.u8(); }
  void u16(const char*, std::uint16_t& v) { v = r_.u16(); }
  void i32(const char*, std::int32_t& v) { v = r_.i32(); }
  void u32(const char*, std::uint32_t& v) { v = r_.u32(); }
  void u64(const char*, std::uint64_t& v) { v = r_.u64(); }
  void f32(const char*, float& v) { v = r_.f32(); }
  void vec3(const char*, Vec3f& v) {
    v.x = r_.f32();
    v.y = r_.f32();
    v.z = r_.f32();
  }
  void floats(const char*, float* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) p[i] = r_.f32();
  }
  void sid(const char* name, Sid& v) {
    const std::uint64_t at = r_.offset();
    v = r_.u32();
    if (r_.ok() && v != kNoString && v >= string_reach_) string_reach_ = v + 1;
    if (problems_ && r_.ok() && v != kNoString && v >= string_count_) {
      problems_->push_back({at, fmt::format("{} {} is outside STRS ({} strings)", name, v, string_count_)});
    }
  }

  template <class F>
  void object(const char*, F&& f) {
    f();
  }
  template <class T, class F>
  void list(const char* name, std::vector<T>& v, std::size_t min_item_bytes, F&& each,
            std::uint64_t max = UINT32_MAX) {
    const std::uint64_t at = r_.offset();
    const std::uint32_t n = r_.u32();
    if (r_.ok() && n > max) {
      r_.fail_at(Errc::bad_count, at, fmt::format("{} count {} at {} exceeds the format's limit of {}", name, n,
                                                  hex_offset(at), max));
      return;
    }
    list_n(name, v, n, min_item_bytes, each);
  }
  template <class T, class F>
  void list_n(const char* name, std::vector<T>& v, std::uint64_t n, std::size_t min_item_bytes, F&& each) {
    if (!r_.check_count(n, min_item_bytes, name)) return;
    v.resize(static_cast<std::size_t>(n));
    for (T& item : v) {
      each(item);
      if (!r_.ok()) return;
    }
  }
  // Records that are all `item_bytes` long (no counts or pools inside), appended to `v` (a
  // section's sub-chunks fill one list): their bytes checked once,
  // then each record's fields read by `each(archive, item)` from a FixedIn, with no check per
  // field. (Through the reader every field re-read its cursor from memory after the store before
  // it: a million PACK instances took 30 ms that way.)
  template <class T, class F>
  void fixed_list_n(const char* name, std::vector<T>& v, std::uint64_t n, std::size_t item_bytes, F&& each);
  template <class T>
  void pooled(const char* name, Span32& span, std::vector<T>& pool) {
    static_assert(sizeof(T) == 4);
    const std::uint32_t n = r_.u32();
    if (!r_.check_count(n, 4, name)) return;
    auto bytes = r_.take(std::size_t{n} * 4, name);
    if (!r_.ok()) return;
    span.first = static_cast<std::uint32_t>(pool.size());
    span.count = n;
    pool.resize(pool.size() + n);
    if (n) std::memcpy(pool.data() + span.first, bytes.data(), bytes.size());
  }

 private:
  ByteReader& r_;
  std::uint32_t string_count_;
  std::uint32_t string_reach_ = 0;
  std::vector<Problem>* problems_;
};

// The binary-in archive over bytes already checked to hold every field read (fixed_list_n).
class FixedIn {
 public:
  static constexpr bool reading = true;
  static constexpr bool json = false;

  FixedIn(const std::uint8_t* at, std::uint64_t offset, std::uint32_t string_count, std::vector<Problem>* problems)
      : start_(at), at_(at), offset_(offset), string_count_(string_count), problems_(problems) {}

  void u8(const char*, std::uint8_t& v) { load(v); }
  void u16(const char*, std::uint16_t& v) { load(v); }
  void i32(const char*, std::int32_t& v) { load(v); }
  void u32(const char*, std::uint32_t& v) { load(v); }
  void u64(const char*, std::uint64_t& v) { load(v); }
  void f32(const char*, float& v) { load(v); }
  void vec3(const char*, Vec3f& v) {
    load(v.x);
    load(v.y);
    load(v.z);
  }
  void sid(const char* name, Sid& v) {
    load(v);
    if (v == kNoString) return;
    if (v >= string_reach_) string_reach_ = v + 1;
    if (problems_ && v >= string_count_)
      problems_->push_back({offset_ + static_cast<std::uint64_t>(at_ - start_) - 4,
                            fmt::format("{} {} is outside STRS ({} strings)", name, v, string_count_)});
  }
  template <class F>
  void object(const char*, F&& f) {
    f();
  }
  std::uint32_t string_reach() const { return string_reach_; }
  std::size_t read() const { return static_cast<std::size_t>(at_ - start_); }

 private:
  // Copied into a local first: a memcpy straight into `v` may write anything as far as the
  // compiler knows, at_ included, so it would re-read at_ after every field.
  template <class T>
  void load(T& v) {
    T value;
    std::memcpy(&value, at_, sizeof(T));  // host is little-endian (x86, wasm)
    at_ += sizeof(T);
    v = value;
  }
  const std::uint8_t* start_;
  const std::uint8_t* at_;
  std::uint64_t offset_;
  std::uint32_t string_count_;
  std::uint32_t string_reach_ = 0;
  std::vector<Problem>* problems_;
};

template <class T, class F>
void BinaryIn::fixed_list_n(const char* name, std::vector<T>& v, std::uint64_t n, std::size_t item_bytes, F&& each) {
  if (!r_.check_count(n, item_bytes, name)) return;
  const std::uint64_t at = r_.offset();
  const std::span<const std::uint8_t> bytes = r_.take(static_cast<std::size_t>(n) * item_bytes, name);
  if (!r_.ok()) return;
  const std::size_t first = v.size();
  v.resize(first + static_cast<std::size_t>(n));
  FixedIn in(bytes.data(), at, string_count_, problems_);
  for (std::size_t i = first; i < v.size(); ++i) each(in, v[i]);
  if (in.read() != bytes.size()) {  // a record's fields and `item_bytes` disagree: ours to fix
    r_.fail_at(Errc::bad_value, at, fmt::format("{}: {} records read {} bytes, not {} (a bug)", name, n, in.read(), bytes.size()));
    return;
  }
  string_reach_ = std::max(string_reach_, in.string_reach());
}

// Binary out through a sink (`put(bytes, n)`): appended to a vector, only counted, or written
// into bytes already sized. The module writer runs the same fields twice, counting and then in
// place, so a module is allocated once and never grown or copied.
template <class Sink>
class BinaryEmit {
 public:
  static constexpr bool reading = false;
  static constexpr bool json = false;

  template <class... Args>
  explicit BinaryEmit(Args&&... args) : sink_{std::forward<Args>(args)...} {}
  bool ok() const { return true; }
  Sink& sink() { return sink_; }

  void u8(const char*, const std::uint8_t& v) { raw(&v, 1); }
  void u16(const char*, const std::uint16_t& v) { raw(&v, 2); }
  void i32(const char*, const std::int32_t& v) { raw(&v, 4); }
  void u32(const char*, const std::uint32_t& v) { raw(&v, 4); }
  void u64(const char*, const std::uint64_t& v) { raw(&v, 8); }
  void f32(const char*, const float& v) { raw(&v, 4); }
  void sid(const char*, const Sid& v) { raw(&v, 4); }
  void vec3(const char*, const Vec3f& v) {
    raw(&v.x, 4);
    raw(&v.y, 4);
    raw(&v.z, 4);
  }
  void floats(const char*, const float* p, std::size_t n) { raw(p, 4 * n); }

  template <class F>
  void object(const char*, F&& f) {
    f();
  }
  template <class T, class F>
  void list(const char*, std::vector<T>& v, std::size_t, F&& each, std::uint64_t = UINT32_MAX) {
    const auto n = static_cast<std::uint32_t>(v.size());
    raw(&n, 4);
    for (T& item : v) each(item);
  }
  template <class T, class F>
  void list_n(const char*, std::vector<T>& v, std::uint64_t, std::size_t, F&& each) {
    for (T& item : v) each(item);
  }
  template <class T>
  void pooled(const char*, Span32& span, std::vector<T>& pool) {
    raw(&span.count, 4);
    if (span.count) raw(pool.data() + span.first, std::size_t{span.count} * 4);
  }

  void raw(const void* p, std::size_t n) { sink_.put(p, n); }

 private:
  Sink sink_;
};

struct VectorSink {
  std::vector<std::uint8_t>& out;
  void put(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
};
struct SizeSink {
  std::uint64_t size = 0;
  void put(const void*, std::size_t n) { size += n; }
};
// Bytes sized beforehand; a write past their end is refused and remembered (a counting pass
// that disagreed with the writing one), never made.
struct SpanSink {
  std::uint8_t* at;
  std::uint8_t* end;
  bool overflow = false;
  void put(const void* p, std::size_t n) {
    if (n > static_cast<std::size_t>(end - at)) {
      overflow = true;
      return;
    }
    if (n) std::memcpy(at, p, n);
    at += n;
  }
};

using BinaryOut = BinaryEmit<VectorSink>;
using BinarySize = BinaryEmit<SizeSink>;
using BinarySpan = BinaryEmit<SpanSink>;

}  // namespace sceneria::eu7b
