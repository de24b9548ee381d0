#pragma once
// Typed errors that say what went wrong and where (byte offset into the input), and a small
// Result<T>. The core does not throw: Emscripten builds run without exceptions, and a hostile
// file must turn into a message, never into an abort.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sceneria {

enum class Errc : std::uint8_t {
  ok = 0,
  io,                   // the byte source could not deliver the bytes
  truncated,            // the input ends before a structure it promises
  bad_magic,            // not the format the reader was asked to read
  unsupported_version,  // a version the reader does not accept
  bad_chunk_size,       // a chunk header whose size cannot be right
  bad_count,            // a count that the remaining bytes cannot hold
  bad_value,            // a field outside its allowed values
  unknown_format,       // no reader recognises the bytes
};

std::string_view errc_name(Errc code);

// [[nodiscard]]: an Error or a Result dropped unread is a failure nobody hears of.
struct [[nodiscard]] Error {
  Error() = default;
  Error(Errc c, std::uint64_t at, std::string what) : code(c), offset(at), message(std::move(what)) {}

  Errc code = Errc::ok;
  std::uint64_t offset = 0;  // absolute byte offset in the input where the problem was found
  std::string message;       // complete sentence including the context ("chunk STRS at 0x8: ...")
  // Which file (a document reads includes, models and textures beside its own bytes) and, for
  // text formats, the 1-based line and column; 0 when the format has no lines. The registry
  // fills `file` with the source's name when a reader leaves it empty.
  std::string file;
  std::uint32_t line = 0, column = 0;

  explicit operator bool() const { return code != Errc::ok; }
  // "truncated at 0x1f2c: chunk PACK at 0x1f2c: ..." style one-liner for logs and the CLI; with a
  // line, "bad_value at 0x1f2c (line 12, column 5): ...".
  std::string describe() const;
};

// Something a reader noticed and got past (a value out of range, a file it could not find): the
// same location as an Error, never fatal.
struct Warning {
  std::string file;
  std::uint64_t offset = 0;
  std::uint32_t line = 0, column = 0;
  std::string message;
};
// A warning about the file as a whole (no place in it).
inline Warning note(std::string message) {
  Warning w;
  w.message = std::move(message);
  return w;
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                  // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}              // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// "0x1f2c": offsets in messages are hexadecimal, as in a hex dump of the file.
std::string hex_offset(std::uint64_t offset);

}  // namespace sceneria
