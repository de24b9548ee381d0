#include "formats/eu7b/reader.hpp"

#include <array>
#include <cstring>

#include <fmt/format.h>

#include "core/byte_reader.hpp"

namespace sceneria::eu7b {

namespace {
constexpr std::array kKnownChunks = {
    chunk::STRS, chunk::INCL, chunk::PLAC, chunk::TRAK, chunk::TERR, chunk::MESH, chunk::LINE,
    chunk::MODL, chunk::PIDX, chunk::PROT, chunk::PACK, chunk::TRAC, chunk::PWRS, chunk::MEMC,
    chunk::LAUN, chunk::DYNM, chunk::SOND, chunk::TRSE, chunk::EVNT, chunk::FINT};

std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

bool is_known_chunk(std::uint32_t id) {
  for (std::uint32_t known : kKnownChunks)
    if (known == id) return true;
  return false;
}

std::string chunk_name(std::uint32_t id) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    const auto c = static_cast<std::uint8_t>(id >> (8 * i));
    if (c >= 0x20 && c < 0x7f && c != '\\') out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

bool probe(std::span<const std::uint8_t> head) {
  return head.size() >= 4 && std::memcmp(head.data(), kMagic, 4) == 0;
}

Result<Container> read_container(ByteSource& source) {
  Container out;
  out.file_size = source.size();
  std::array<std::uint8_t, kHeaderSize> header{};
  if (out.file_size < kHeaderSize) {
    const auto n = static_cast<std::size_t>(out.file_size);
    if (Error e = source.read(0, std::span(header).first(n))) return e;
    if (!probe(std::span(header).first(n)))
      return Error{Errc::bad_magic, 0, fmt::format("not an EU7B file: {} bytes, no 'EU7B' magic", n)};
    return Error{Errc::truncated, 0,
                 fmt::format("EU7B header needs 8 bytes (magic + version) but the file has {}", n)};
  }
  if (Error e = source.read(0, header)) return e;
  if (!probe(header)) {
    return Error{Errc::bad_magic, 0,
                 fmt::format("not an EU7B file: magic at 0x0 is {:02x} {:02x} {:02x} {:02x}, "
                             "expected 45 55 37 42 ('EU7B')",
                             header[0], header[1], header[2], header[3])};
  }
  out.version = load_u32(header.data() + 4);
  if (out.version < kMinVersion || out.version > kMaxVersion) {
    return Error{Errc::unsupported_version, 4,
                 fmt::format("EU7B version {} is not supported (supported: {}-{})", out.version,
                             kMinVersion, kMaxVersion)};
  }

  // The chunk stream runs to end of file; there is no count and no terminator.
  std::uint64_t offset = kHeaderSize;
  while (offset < out.file_size) {
    const std::uint64_t remaining = out.file_size - offset;
    if (remaining < kChunkHeaderSize) {
      return Error{Errc::truncated, offset,
                   fmt::format("chunk header at {} needs 8 bytes but only {} remain",
                               hex_offset(offset), remaining)};
    }
    std::array<std::uint8_t, kChunkHeaderSize> ch{};
    if (Error e = source.read(offset, ch)) return e;
    ChunkInfo info{load_u32(ch.data()), offset, load_u32(ch.data() + 4)};
    if (info.size < kChunkHeaderSize) {
      return Error{Errc::bad_chunk_size, offset + 4,
                   fmt::format("chunk {} at {}: size {} is smaller than its own 8-byte header",
                               chunk_name(info.id), hex_offset(offset), info.size)};
    }
    if (info.size > remaining) {
      return Error{Errc::truncated, offset,
                   fmt::format("chunk {} at {} claims {} bytes but only {} remain",
                               chunk_name(info.id), hex_offset(offset), info.size, remaining)};
    }
    out.chunks.push_back(info);
    offset += info.size;
  }
  return out;
}

Result<StringTable> read_strings(std::span<const std::uint8_t> payload, std::uint64_t payload_offset) {
  const std::uint64_t chunk_offset = payload_offset - kChunkHeaderSize;
  ByteReader r(payload, payload_offset, fmt::format("chunk STRS at {}", hex_offset(chunk_offset)));
  const std::uint32_t count = r.u32();
  // Each string costs at least its 4-byte length, so the payload bounds the count.
  if (!r.check_count(count, 4, "strings")) return r.error();
  StringTable table;
  table.reserve(count, r.remaining() - std::size_t{4} * count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t at = r.offset();
    const std::uint32_t length = r.u32();
    if (r.ok() && length > r.remaining()) {
      r.fail_at(Errc::truncated, at,
                fmt::format("chunk STRS at {}: string {} at {} claims {} bytes but only {} remain",
                            hex_offset(chunk_offset), i, hex_offset(at), length, r.remaining()));
    }
    auto bytes = r.take(length, "string");
    if (!r.ok()) return r.error();
    table.push_back(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return table;
}

Result<Module> read_module(ByteSource& source) {
  auto container = read_container(source);
  if (!container) return container.error();
  Module module;
  module.container = std::move(container).value();
  for (const ChunkInfo& c : module.container.chunks) {
    if (c.id != chunk::STRS) continue;
    auto payload = source.read_vector(c.payload_offset(), c.payload_size());
    if (!payload) return payload.error();
    auto strings = read_strings(*payload, c.payload_offset());
    if (!strings) return strings.error();
    // The reference reader appends repeated chunks to its lists; do the same.
    if (module.strings.empty()) module.strings = std::move(strings).value();
    else for (std::size_t i = 0; i < strings->size(); ++i) module.strings.push_back((*strings)[i]);
  }
  return module;
}

}  // namespace sceneria::eu7b
