#include "formats/eu7b/writer.hpp"

#include <cstring>
#include <map>

#include <fmt/format.h>

#include "formats/eu7b/fields.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"

namespace sceneria::eu7b {

namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}

template <class T>
void write_records(BinaryOut& a, RecordList<T>& list) {
  a.list("", list.records, 0, [&](T& r) { fields(a, r, list.transforms); });
}

struct EncodedPack {
  std::vector<std::uint8_t> payload;
  std::map<std::uint64_t, std::uint64_t> new_offset;  // old section offset -> new
};

EncodedPack encode_pack(const PackChunk& pack) {
  EncodedPack out;
  out.payload = pack.prefix;
  for (const PackSection& s : pack.sections) {
    out.new_offset[s.offset] = out.payload.size();
    const auto bytes = encode_section(s);
    out.payload.insert(out.payload.end(), bytes.begin(), bytes.end());
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> encode_strings(const StringTable& strings) {
  std::vector<std::uint8_t> out;
  out.reserve(4 + strings.size() * 4 + strings.byte_size());
  put_u32(out, static_cast<std::uint32_t>(strings.size()));
  for (std::size_t i = 0; i < strings.size(); ++i) {
    const std::string_view s = strings[i];
    put_u32(out, static_cast<std::uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

std::vector<std::uint8_t> write_container(std::uint32_t version, std::span<const RawChunk> chunks) {
  std::size_t total = kHeaderSize;
  for (const RawChunk& c : chunks) total += kChunkHeaderSize + c.payload.size();
  std::vector<std::uint8_t> out;
  out.reserve(total);
  out.insert(out.end(), kMagic, kMagic + 4);
  put_u32(out, version);
  for (const RawChunk& c : chunks) {
    put_u32(out, c.id);
    put_u32(out, static_cast<std::uint32_t>(kChunkHeaderSize + c.payload.size()));
    out.insert(out.end(), c.payload.begin(), c.payload.end());
  }
  return out;
}

namespace {

// Appends one chunk's payload to `out` (the module being written, so nothing is copied twice).
void encode_chunk_into(std::vector<std::uint8_t>& out, const Chunk& chunk_in, std::uint32_t version) {
  Chunk& chunk = const_cast<Chunk&>(chunk_in);  // encoding only reads
  BinaryOut a(out);
  std::visit(
      [&](auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, OpaqueChunk>) {
          out.insert(out.end(), d.bytes.begin(), d.bytes.end());
        } else if constexpr (std::is_same_v<T, std::vector<Include>>) {
          a.list("", d, 0, [&](Include& i) { fields(a, i, version); });
        } else if constexpr (std::is_same_v<T, Placement>) {
          a.u8("", d.origin_x);
          a.u8("", d.origin_y);
          a.u8("", d.origin_z);
          a.u8("", d.rotation_y);
        } else if constexpr (std::is_same_v<T, Terrain>) {
          fields(a, d);
        } else if constexpr (std::is_same_v<T, ModelList>) {
          a.list("", d.models, 0, [&](Model& m) { fields(a, m, d, false); });
        } else if constexpr (std::is_same_v<T, std::vector<Trainset>> || std::is_same_v<T, std::vector<Event>> ||
                             std::is_same_v<T, std::vector<PidxEntry>>) {
          a.list("", d, 0, [&](auto& r) { fields(a, r); });
        } else if constexpr (std::is_same_v<T, std::uint32_t>) {
          a.u32("", d);
        } else if constexpr (std::is_same_v<T, PrototypeList>) {
          if (!(chunk.empty_payload && d.prototypes.empty()))
            a.list("", d.prototypes, 0, [&](Prototype& p) { fields(a, p, d, version); });
        } else if constexpr (std::is_same_v<T, StringsChunk> || std::is_same_v<T, PackChunk>) {
          // Written by write_module, which owns the string table and the PACK layout.
        } else {
          write_records(a, d);
        }
      },
      chunk.data);
  out.insert(out.end(), chunk.trailing.begin(), chunk.trailing.end());
}

}  // namespace

std::vector<std::uint8_t> encode_chunk(const Chunk& chunk, std::uint32_t version) {
  std::vector<std::uint8_t> out;
  encode_chunk_into(out, chunk, version);
  return out;
}

Result<std::vector<std::uint8_t>> write_module(const Module& module) {
  const std::uint32_t version = module.version();
  // PACK first: PIDX, written before it, needs the sections' new offsets.
  EncodedPack pack;
  const PackChunk* pack_chunk = module.pack();
  if (pack_chunk) {
    if (pack_chunk->decoded) pack = encode_pack(*pack_chunk);
    else if (pack_chunk->loaded) pack.payload = pack_chunk->raw;
    else return Error{Errc::bad_value, pack_chunk->payload_offset,
                      "PACK payload was not loaded; read the module with load_pack to write it"};
  }

  if (!module.strings_complete())
    return Error{Errc::bad_value, 0, fmt::format("only {} of {} strings are loaded; read the module without lazy_strings "
                                                 "to write it", module.strings.size(), module.string_count())};
  // Each chunk is encoded in place after its header, whose size is filled in afterwards.
  std::vector<std::uint8_t> out(kMagic, kMagic + 4);
  out.reserve(std::size_t{1} << 16);
  put_u32(out, version);
  for (const Chunk& c : module.chunks) {
    const std::size_t head = out.size();
    put_u32(out, c.id);
    put_u32(out, 0);
    if (const auto* strs = std::get_if<StringsChunk>(&c.data)) {
      put_u32(out, strs->count);
      for (std::uint32_t i = 0; i < strs->count; ++i) {
        const std::string_view s = module.strings[strs->first + i];
        put_u32(out, static_cast<std::uint32_t>(s.size()));
        out.insert(out.end(), s.begin(), s.end());
      }
      out.insert(out.end(), c.trailing.begin(), c.trailing.end());
    } else if (std::holds_alternative<PackChunk>(c.data)) {
      out.insert(out.end(), pack.payload.begin(), pack.payload.end());  // stray bytes live in its prefix and sections
    } else if (const auto* pidx = std::get_if<std::vector<PidxEntry>>(&c.data); pidx && pack_chunk && pack_chunk->decoded) {
      Chunk patched = c;
      for (PidxEntry& e : std::get<std::vector<PidxEntry>>(patched.data)) {
        auto it = pack.new_offset.find(e.pack_offset);
        if (it != pack.new_offset.end()) e.pack_offset = it->second;
      }
      encode_chunk_into(out, patched, version);
    } else {
      encode_chunk_into(out, c, version);
    }
    const std::size_t size = out.size() - head;
    if (size > UINT32_MAX)
      return Error{Errc::bad_value, 0, fmt::format("chunk {} is {} bytes, more than a u32 chunk size can hold",
                                                   chunk_name(c.id), size - kChunkHeaderSize)};
    const auto total = static_cast<std::uint32_t>(size);
    std::memcpy(out.data() + head + 4, &total, 4);
  }
  return out;
}

}  // namespace sceneria::eu7b
