#pragma once
// A bounds-checked little-endian cursor over a byte span, with a sticky first error.
//
// Every read past the end yields zero and records the first failure with its absolute offset,
// so a record parser can read a whole record and check once (as cgltf/meshoptimizer do) instead
// of testing every field. Counts read from the input must go through `check_count` before they
// size an allocation: a count is only believed if the remaining bytes could hold that many items.
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/error.hpp"

namespace sceneria {

class ByteReader {
 public:
  // `base_offset` is the absolute offset of bytes[0] in the input; `context` prefixes messages,
  // e.g. "chunk STRS at 0x8".
  ByteReader(std::span<const std::uint8_t> bytes, std::uint64_t base_offset, std::string context)
      : bytes_(bytes), base_(base_offset), context_(std::move(context)) {}
  // The context made only when a message needs it: a reader per chunk or record that formats its
  // context up front spends a fifth of a small file's read on text no one reads. Whatever
  // `make_context` refers to must outlive the reader.
  template <class MakeContext, std::enable_if_t<std::is_invocable_r_v<std::string, MakeContext&>, int> = 0>
  ByteReader(std::span<const std::uint8_t> bytes, std::uint64_t base_offset, MakeContext make_context)
      : bytes_(bytes), base_(base_offset), make_context_(std::move(make_context)) {}

  std::uint8_t u8() { return load<std::uint8_t>(); }
  std::uint16_t u16() { return load<std::uint16_t>(); }
  std::uint32_t u32() { return load<std::uint32_t>(); }
  std::int32_t i32() { return load<std::int32_t>(); }
  std::uint64_t u64() { return load<std::uint64_t>(); }
  float f32() { return load<float>(); }

  // A view of the next n bytes, or an empty span (and an error) if fewer remain.
  std::span<const std::uint8_t> take(std::size_t n, std::string_view what);

  // True if `count` items of at least `min_item_size` bytes each fit in the remaining bytes.
  // Records a bad_count error naming `what` otherwise.
  bool check_count(std::uint64_t count, std::uint64_t min_item_size, std::string_view what);

  void skip(std::size_t n, std::string_view what) { (void)take(n, what); }

  std::size_t remaining() const { return bytes_.size() - pos_; }
  std::size_t position() const { return pos_; }
  std::uint64_t offset() const { return base_ + pos_; }  // absolute offset of the next byte
  bool at_end() const { return pos_ == bytes_.size(); }

  bool ok() const { return !error_; }
  const Error& error() const { return error_; }
  // Records an error at the current offset unless one is already recorded (the first one wins).
  void fail(Errc code, std::string_view message);
  void fail_at(Errc code, std::uint64_t absolute_offset, std::string_view message);

 private:
  template <class T>
  T load() {
    T value{};
    if (!error_ && remaining() >= sizeof(T)) {
      std::memcpy(&value, bytes_.data() + pos_, sizeof(T));  // host is little-endian (x86, wasm)
      pos_ += sizeof(T);
    } else {
      truncated(sizeof(T));
    }
    return value;
  }
  void truncated(std::size_t wanted, std::string_view what = {});
  std::string context() const { return make_context_ ? make_context_() : context_; }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  std::uint64_t base_;
  std::string context_;
  std::function<std::string()> make_context_;
  Error error_;
};

}  // namespace sceneria
