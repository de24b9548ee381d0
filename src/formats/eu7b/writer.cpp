#include "formats/eu7b/writer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "core/parallel.hpp"
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

struct EncodedPack {
  std::vector<std::uint8_t> encoded;
  std::span<const std::uint8_t> payload;  // `encoded`, or a PACK's raw bytes written as they are
  std::map<std::uint64_t, std::uint64_t> new_offset;  // old section offset -> new
};

EncodedPack encode_pack(const PackChunk& pack) {
  EncodedPack out;
  out.encoded = pack.prefix;
  for (const PackSection& s : pack.sections) {
    out.new_offset[s.offset] = out.encoded.size();
    const auto bytes = encode_section(s);
    out.encoded.insert(out.encoded.end(), bytes.begin(), bytes.end());
  }
  out.payload = out.encoded;
  return out;
}

// A STRS payload: `count` strings from `first`, after their count, each a u32 length + bytes.
template <class A>
void encode_strings_data(A& a, const StringTable& strings, std::uint32_t first, std::uint32_t count) {
  a.raw(&count, 4);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string_view s = strings[first + i];
    const auto n = static_cast<std::uint32_t>(s.size());
    a.raw(&n, 4);
    a.raw(s.data(), s.size());
  }
}

}  // namespace

std::vector<std::uint8_t> encode_strings(const StringTable& strings) {
  std::vector<std::uint8_t> out;
  out.reserve(4 + strings.size() * 4 + strings.byte_size());
  BinaryOut a(out);
  encode_strings_data(a, strings, 0, static_cast<std::uint32_t>(strings.size()));
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

// One chunk's payload through an archive: appended (encode_chunk), counted or written in place
// (write_module). STRS and PACK are written by write_module, which owns the string table and
// the PACK layout.
template <class A>
void encode_chunk_data(A& a, const Chunk& chunk_in, std::uint32_t version) {
  Chunk& chunk = const_cast<Chunk&>(chunk_in);  // encoding only reads
  std::visit(
      [&](auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, OpaqueChunk>) {
          a.raw(d.bytes.data(), d.bytes.size());
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
        } else {
          a.list("", d.records, 0, [&](auto& r) { fields(a, r, d.transforms); });
        }
      },
      chunk.data);
  a.raw(chunk.trailing.data(), chunk.trailing.size());
}

}  // namespace

std::vector<std::uint8_t> encode_chunk(const Chunk& chunk, std::uint32_t version) {
  std::vector<std::uint8_t> out;
  BinaryOut a(out);
  encode_chunk_data(a, chunk, version);
  return out;
}

namespace {

// One chunk's payload through an archive: counted, written in place, or into a buffer.
template <class A>
void write_payload(A& a, const Module& module, const EncodedPack& pack, const Chunk& c) {
  if (const auto* strs = std::get_if<StringsChunk>(&c.data)) {
    encode_strings_data(a, module.strings, strs->first, strs->count);
    a.raw(c.trailing.data(), c.trailing.size());
  } else if (const auto* p = std::get_if<PackChunk>(&c.data)) {
    if (p == module.pack()) {
      a.raw(pack.payload.data(), pack.payload.size());  // stray bytes live in its prefix and sections
    } else {
      // One a later PACK replaces (built so in memory; read_module keeps such as bytes): nothing
      // indexes it, and it is written as it is.
      const EncodedPack own = p->decoded ? encode_pack(*p) : EncodedPack{{}, p->bytes(), {}};
      a.raw(own.payload.data(), own.payload.size());
    }
  } else {
    encode_chunk_data(a, c, module.version());
  }
}

// What both module writers share: PACK encoded (or its raw bytes), PIDX patched to the sections'
// new offsets, and each chunk's payload size, counted by the same fields that write it.
struct Layout {
  EncodedPack pack;
  std::vector<Chunk> patched;  // PIDX with the sections' new offsets
  struct Slot {
    const Chunk* chunk;
    std::size_t at, size;  // the payload's place in the module
  };
  std::vector<Slot> slots;
  std::size_t total = kHeaderSize;
};

// A PACK read header only (no load_pack) has nothing to write.
Error not_loaded(const PackChunk& pack) {
  return Error{Errc::bad_value, pack.payload_offset, "PACK payload was not loaded; read the module with load_pack to write it"};
}

Error plan(const Module& module, Layout& l, const PackWriter* writer = nullptr) {
  const PackChunk* pack_chunk = module.pack();
  if (pack_chunk && !writer) {
    if (pack_chunk->decoded) l.pack = encode_pack(*pack_chunk);
    else if (pack_chunk->loaded) l.pack.payload = pack_chunk->bytes();  // not copied
    else return not_loaded(*pack_chunk);
  }
  if (!module.strings_complete())
    return Error{Errc::bad_value, 0, fmt::format("only {} of {} strings are loaded; read the module without lazy_strings "
                                                 "to write it", module.strings.size(), module.string_count())};
  l.patched.reserve(module.chunks.size());  // never grown: slots point into it
  for (const Chunk& c : module.chunks) {
    const Chunk* chunk = &c;
    if (const auto* pidx = std::get_if<std::vector<PidxEntry>>(&c.data); pidx && pack_chunk && pack_chunk->decoded) {
      Chunk& p = l.patched.emplace_back(c);
      for (PidxEntry& e : std::get<std::vector<PidxEntry>>(p.data)) {
        auto it = l.pack.new_offset.find(e.pack_offset);
        if (it != l.pack.new_offset.end()) e.pack_offset = it->second;
      }
      chunk = &p;
    }
    BinarySize counted;
    const auto* other_pack = std::get_if<PackChunk>(&chunk->data);
    if (other_pack == pack_chunk) other_pack = nullptr;
    if (other_pack && !other_pack->decoded && !other_pack->loaded) return not_loaded(*other_pack);
    const bool written_by_writer = writer && std::holds_alternative<PackChunk>(chunk->data) && !other_pack;
    if (!written_by_writer) write_payload(counted, module, l.pack, *chunk);
    const std::uint64_t size = written_by_writer ? writer->size : counted.sink().size;
    if (size + kChunkHeaderSize > UINT32_MAX)
      return Error{Errc::bad_value, 0, fmt::format("chunk {} is {} bytes, more than a u32 chunk size can hold",
                                                   chunk_name(c.id), size)};
    l.slots.push_back({chunk, l.total + kChunkHeaderSize, static_cast<std::size_t>(size)});
    l.total += kChunkHeaderSize + static_cast<std::size_t>(size);
  }
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> write_module(const Module& module, unsigned threads) {
  Layout l;
  if (Error e = plan(module, l)) return e;
  const std::uint32_t version = module.version();
  std::vector<std::uint8_t> out(l.total);
  std::memcpy(out.data(), kMagic, 4);
  std::memcpy(out.data() + 4, &version, 4);
  std::atomic<bool> disagreed{false};
  auto write = [&](const Layout::Slot& s) {
    const std::uint32_t head[2] = {s.chunk->id, static_cast<std::uint32_t>(kChunkHeaderSize + s.size)};
    std::memcpy(out.data() + s.at - kChunkHeaderSize, head, kChunkHeaderSize);
    BinarySpan a(out.data() + s.at, out.data() + s.at + s.size);
    write_payload(a, module, l.pack, *s.chunk);
    if (a.sink().overflow || a.sink().at != out.data() + s.at + s.size) disagreed = true;
  };
  // The chunks are independent: with threads, biggest first, each thread takes the next one.
  std::vector<Layout::Slot> order = l.slots;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.size > b.size; });
  for_each_claimed(l.total < (std::size_t{4} << 20) ? 1 : threads, order.size(), [&](std::size_t i) { write(order[i]); });
  if (disagreed) return Error{Errc::bad_value, 0, "the module writer counted other sizes than it wrote (a bug)"};
  return out;
}

Error write_module(const Module& module, ByteSink& sink) { return write_module(module, sink, {}); }

Error write_module(const Module& module, ByteSink& sink, const PackWriter& writer) {
  const PackWriter* pack_writer = writer.write ? &writer : nullptr;
  Layout l;
  if (Error e = plan(module, l, pack_writer)) return e;
  const std::uint32_t version = module.version();
  std::uint8_t head[8];
  std::memcpy(head, kMagic, 4);
  std::memcpy(head + 4, &version, 4);
  if (Error e = sink.put(std::span<const std::uint8_t>(head, 8))) return e;
  std::vector<std::uint8_t> buffer;  // one chunk's payload at a time; PACK goes straight from its bytes
  for (const Layout::Slot& s : l.slots) {
    const std::uint32_t ids[2] = {s.chunk->id, static_cast<std::uint32_t>(kChunkHeaderSize + s.size)};
    if (Error e = sink.put(std::span(reinterpret_cast<const std::uint8_t*>(ids), kChunkHeaderSize))) return e;
    if (const auto* pack = std::get_if<PackChunk>(&s.chunk->data); pack && pack == module.pack()) {
      if (pack_writer) {
        if (Error e = pack_writer->write(sink)) return e;
        continue;
      }
      // A PACK still in its file (l.pack.payload is its mapped view) is read out a piece at a
      // time into one buffer (SharedBytes::copy says why): its mapped pages are never touched.
      const bool in_file = pack->in_file() && !pack->decoded;
      constexpr std::size_t kPiece = std::size_t{1} << 20;
      std::vector<std::uint8_t> piece_buffer(in_file ? std::min(kPiece, l.pack.payload.size()) : 0);
      for (std::size_t at = 0; at < l.pack.payload.size(); at += kPiece) {
        auto piece = l.pack.payload.subspan(at, std::min(kPiece, l.pack.payload.size() - at));
        if (in_file) {
          const auto read = std::span(piece_buffer).first(piece.size());
          if (Error e = pack->mapped.copy(at, read)) return e;
          piece = read;
        }
        if (Error e = sink.put(piece)) return e;
      }
      continue;
    }
    buffer.resize(s.size);
    BinarySpan a(buffer.data(), buffer.data() + s.size);
    write_payload(a, module, l.pack, *s.chunk);
    if (a.sink().overflow || a.sink().at != buffer.data() + s.size)
      return Error{Errc::bad_value, 0, "the module writer counted other sizes than it wrote (a bug)"};
    if (Error e = sink.put(buffer)) return e;
  }
  return {};
}

}  // namespace sceneria::eu7b
