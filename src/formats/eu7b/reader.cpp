#include "formats/eu7b/reader.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "core/parallel.hpp"
#include "formats/eu7b/fields.hpp"
#include "io/json_io.hpp"

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
  const char four[4] = {static_cast<char>(id), static_cast<char>(id >> 8), static_cast<char>(id >> 16), static_cast<char>(id >> 24)};
  return fourcc_text(std::string_view(four, 4));
}

bool probe(std::span<const std::uint8_t> head) {
  return head.size() >= 4 && std::memcmp(head.data(), kMagic, 4) == 0;
}

namespace {

// The chunk stream from `from` to the end of the file (there is no count and no terminator), or
// to PACK's end where the options stop there.
Error walk_chunks(ByteSource& source, std::uint64_t from, const ReadOptions* reading, Container& out) {
  std::uint64_t offset = from;
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
    if (reading) {
      // What read_module reads of it: STRS's head alone when lazy, PACK only when kept.
      const bool pack = info.id == chunk::PACK, lazy = info.id == chunk::STRS && reading->lazy_strings;
      if (!pack || reading->load_pack || reading->decode_pack || reading->map_pack)
        source.will_read(info.payload_offset(), lazy ? std::min(info.payload_offset() + 4, offset + info.size) : offset + info.size);
    }
    out.chunks.push_back(info);
    offset += info.size;
    if (info.id == chunk::PACK && reading && reading->stop_after_pack) break;
  }
  out.rest_offset = offset;
  return {};
}

}  // namespace

Result<Container> read_container(ByteSource& source, const ReadOptions* reading) {
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

  if (Error e = walk_chunks(source, kHeaderSize, reading, out)) return e;
  return out;
}

// The one STRS string parser, for whole reads and for StringFeed's pieces: whole strings from
// `bytes` (which start at absolute offset `at` with a string's length) until `count` have been
// read, or the bytes end inside a string. `end` is the payload's absolute end: a length running
// past it is an error. Returns how many bytes became strings.
Result<std::size_t> take_strings(std::span<const std::uint8_t> bytes, std::uint64_t at, std::uint64_t end,
                                 std::uint64_t chunk_offset, std::uint32_t count, std::uint32_t& read, StringTable& out) {
  std::size_t pos = 0;
  while (read < count && bytes.size() - pos >= 4) {
    const std::uint64_t here = at + pos;
    const std::uint32_t length = load_u32(bytes.data() + pos);
    if (length > end - here - 4)
      return Error{Errc::truncated, here,
                   fmt::format("chunk STRS at {}: string {} at {} claims {} bytes but only {} remain", hex_offset(chunk_offset),
                               read, hex_offset(here), length, end - here - 4)};
    if (bytes.size() - pos - 4 < length) break;  // cut by the end of these bytes
    out.push_back(std::string_view(reinterpret_cast<const char*>(bytes.data() + pos + 4), length));
    pos += 4 + std::size_t{length};
    ++read;
  }
  return pos;
}

Result<StringTable> read_strings(std::span<const std::uint8_t> payload, std::uint64_t payload_offset,
                                 std::size_t* consumed) {
  const std::uint64_t chunk_offset = payload_offset - kChunkHeaderSize;
  ByteReader r(payload, payload_offset, fmt::format("chunk STRS at {}", hex_offset(chunk_offset)));
  const std::uint32_t count = r.u32();
  // Each string costs at least its 4-byte length, so the payload bounds the count.
  if (!r.check_count(count, 4, "strings")) return r.error();
  StringTable table;
  table.reserve(count, r.remaining() - std::size_t{4} * count);
  std::uint32_t read = 0;
  const std::uint64_t end = payload_offset + payload.size();
  auto used = take_strings(payload.subspan(4), payload_offset + 4, end, chunk_offset, count, read, table);
  if (!used) return used.error();
  if (read < count)  // fewer than 4 bytes left for the next length
    return Error{Errc::truncated, payload_offset + 4 + *used,
                 fmt::format("chunk STRS at {} declares {} strings but its payload ends after {}", hex_offset(chunk_offset),
                             count, read)};
  if (consumed) *consumed = 4 + *used;
  return table;
}

namespace {

// The smallest a record can be on disk: a default one (every optional field absent), encoded.
// Counts are capped by the bytes left over this, so a guess too large would refuse real files
// (a hand-counted 103 did, for unnamed traction wires of 99 bytes).
template <class T>
std::size_t min_record_size() {
  static const std::size_t size = [] {
    std::vector<std::uint8_t> out;
    BinaryOut a(out);
    T record{};
    std::vector<TransformContext> transforms;
    fields(a, record, transforms);
    return out.size();
  }();
  return size;
}

template <class T, class F>
void record_list(BinaryIn& a, const char* name, RecordList<T>& list, F&& each) {
  a.list(name, list.records, min_record_size<T>(), [&](T& r) { each(r, list.transforms); });
}

}  // namespace

Result<ChunkData> decode_chunk(std::uint32_t id, std::span<const std::uint8_t> payload, std::uint64_t payload_offset,
                               std::uint32_t version, std::uint32_t string_count, Chunk& chunk,
                               std::vector<Problem>* problems, std::uint32_t* string_reach) {
  const std::uint64_t chunk_offset = payload_offset - kChunkHeaderSize;
  ByteReader r(payload, payload_offset, fmt::format("chunk {} at {}", chunk_name(id), hex_offset(chunk_offset)));
  BinaryIn a(r, string_count, problems);
  ChunkData data;
  auto fill = [&](auto&& value) { data = std::move(value); };
  auto each = [&](auto& rec, auto& transforms) { fields(a, rec, transforms); };
  switch (id) {
    case chunk::INCL: {
      std::vector<Include> v;
      a.list("includes", v, 16 + (version >= 6 ? kMinTransform : 0), [&](Include& i) { fields(a, i, version); });
      fill(std::move(v));
      break;
    }
    case chunk::PLAC: {
      Placement p;
      a.u8("origin_x", p.origin_x);
      a.u8("origin_y", p.origin_y);
      a.u8("origin_z", p.origin_z);
      a.u8("rotation_y", p.rotation_y);
      fill(p);
      break;
    }
    case chunk::TRAK: { RecordList<Track> l; record_list(a, "tracks", l, each); fill(std::move(l)); break; }
    case chunk::TRAC: { RecordList<Traction> l; record_list(a, "traction wires", l, each); fill(std::move(l)); break; }
    case chunk::PWRS: { RecordList<PowerSource> l; record_list(a, "power sources", l, each); fill(std::move(l)); break; }
    case chunk::MESH: { RecordList<Shape> l; record_list(a, "shapes", l, each); fill(std::move(l)); break; }
    case chunk::LINE: { RecordList<Line> l; record_list(a, "lines", l, each); fill(std::move(l)); break; }
    case chunk::MEMC: { RecordList<MemCell> l; record_list(a, "memcells", l, each); fill(std::move(l)); break; }
    case chunk::LAUN: { RecordList<EventLauncher> l; record_list(a, "event launchers", l, each); fill(std::move(l)); break; }
    case chunk::DYNM: { RecordList<Dynamic> l; record_list(a, "dynamics", l, each); fill(std::move(l)); break; }
    case chunk::SOND: { RecordList<Sound> l; record_list(a, "sounds", l, each); fill(std::move(l)); break; }
    case chunk::TERR: {
      Terrain t;
      fields(a, t);
      fill(std::move(t));
      break;
    }
    case chunk::MODL: {
      ModelList l;
      a.list("models", l.models, kMinModel, [&](Model& m) { fields(a, m, l, false); });
      fill(std::move(l));
      break;
    }
    case chunk::TRSE: {
      std::vector<Trainset> v;
      a.list("trainsets", v, 32, [&](Trainset& t) { fields(a, t); });
      fill(std::move(v));
      break;
    }
    case chunk::EVNT: {
      std::vector<Event> v;
      a.list("events", v, 27, [&](Event& e) { fields(a, e); });
      fill(std::move(v));
      break;
    }
    case chunk::FINT: {
      std::uint32_t n = 0;
      a.u32("first_init_count", n);
      fill(n);
      break;
    }
    case chunk::PIDX: {
      std::vector<PidxEntry> v;
      a.list("PIDX entries", v, 16, [&](PidxEntry& e) { fields(a, e); });
      fill(std::move(v));
      break;
    }
    case chunk::PROT: {
      PrototypeList l;
      if (payload.size() < 4) {
        // The reference writer emits an empty PROT with no count at all (notes §4).
        chunk.empty_payload = true;
      } else {
        a.list("prototypes", l.prototypes, kMinPrototype + (version >= 9 ? 17 : 0),
               [&](Prototype& p) { fields(a, p, l, version); });
      }
      fill(std::move(l));
      break;
    }
    default:
      fill(OpaqueChunk{{payload.begin(), payload.end()}});
      return data;
  }
  if (!r.ok()) return r.error();
  if (string_reach) *string_reach = a.string_reach();
  if (!r.at_end()) {
    if (problems && !chunk.empty_payload)
      problems->push_back({r.offset(), fmt::format("chunk {} at {}: {} bytes after its records", chunk_name(id),
                                                   hex_offset(chunk_offset), r.remaining())});
    auto rest = r.take(r.remaining(), "trailing bytes");
    chunk.trailing.assign(rest.begin(), rest.end());
  }
  return data;
}

namespace {

// A record chunk read in the header pass and decoded after it (ReadOptions::threads): what it
// would have been decoded with in the pass, and where its problems go among the module's.
struct LaterChunk {
  std::size_t chunk;  // index in module.chunks
  std::uint64_t payload_offset;
  std::vector<std::uint8_t> owned;       // read from the source, or
  std::span<const std::uint8_t> payload;  // in its memory (or in `owned`)
  std::uint32_t string_count;
  std::size_t problems_at;
  std::vector<Problem> problems = {};
  std::uint32_t reach = 0;
  Error error = {};
};

// Decodes the waiting chunks, on up to `threads` at once, into the module as the pass would
// have: their problems in chunk order among the others, the first error in chunk order returned.
Error decode_later(Module& module, std::vector<LaterChunk>& later, unsigned threads) {
  if (later.empty()) return {};
  const std::uint32_t version = module.container.version;
  for_each_claimed(threads, later.size(), [&](std::size_t i) {
    LaterChunk& l = later[i];
    Chunk& chunk = module.chunks[l.chunk];
    auto data = decode_chunk(chunk.id, l.payload, l.payload_offset, version, l.string_count, chunk, &l.problems, &l.reach);
    if (data) chunk.data = std::move(data).value();
    else l.error = data.error();
    l.owned = {};
  });
  std::size_t inserted = 0;
  Error first;
  for (LaterChunk& l : later) {
    if (!first && l.error) first = l.error;
    module.strings_referenced = std::max(module.strings_referenced, l.reach);
    module.problems.insert(module.problems.begin() + static_cast<std::ptrdiff_t>(l.problems_at + inserted), l.problems.begin(),
                           l.problems.end());
    inserted += l.problems.size();
  }
  later.clear();
  return first;
}

}  // namespace

namespace {

// Decodes container chunks [first, end) into module.chunks, as the header pass does.
Error decode_chunks(ByteSource& source, Module& module, std::size_t first, const ReadOptions& options) {
  const std::uint32_t version = module.container.version;
  bool seen_strings = false;
  for (std::size_t k = 0; k < first; ++k) seen_strings = seen_strings || module.container.chunks[k].id == chunk::STRS;
  std::vector<LaterChunk> later;
  const std::optional<std::span<const std::uint8_t>> memory = source.in_memory();
  // The reference reader keeps the last PACK (eu7b.hpp, Module::pack); an earlier one is kept as
  // bytes, so that the module writes back as it was read.
  const ChunkInfo* indexed_pack = nullptr;
  for (const ChunkInfo& c : module.container.chunks)
    if (c.id == chunk::PACK) indexed_pack = &c;
  for (std::size_t k = first; k < module.container.chunks.size(); ++k) {
    const ChunkInfo& c = module.container.chunks[k];
    Chunk chunk;
    chunk.id = c.id;
    chunk.offset = c.offset;
    if (c.id == chunk::PACK && &c != indexed_pack)
      module.problems.push_back({c.offset, fmt::format("chunk PACK at {} is replaced by the PACK at {}: the reference reader "
                                                       "keeps the last, so nothing indexes this one",
                                                       hex_offset(c.offset), hex_offset(indexed_pack->offset))});
    if (&c == indexed_pack) {
      PackChunk pack;
      pack.payload_offset = c.payload_offset();
      pack.payload_size = c.payload_size();
      if (auto file = options.map_pack ? source.mapped() : std::nullopt; file && !options.decode_pack) {
        if (Error e = source.check_range(c.payload_offset(), c.payload_size())) return e;
        pack.mapped = file->part(static_cast<std::size_t>(c.payload_offset()), static_cast<std::size_t>(c.payload_size()));
        pack.loaded = true;
      } else if (options.load_pack || options.decode_pack || options.map_pack) {
        // In pieces, each let go from the source once copied: a mapped file's PACK is not
        // resident twice (the copy, and the file's pages), which a dump of a big module would pay.
        if (Error e = source.check_range(c.payload_offset(), c.payload_size())) return e;
        pack.raw.resize(static_cast<std::size_t>(c.payload_size()));
        constexpr std::size_t kPiece = std::size_t{8} << 20;
        for (std::size_t at = 0; at < pack.raw.size(); at += kPiece) {
          const std::size_t n = std::min(kPiece, pack.raw.size() - at);
          if (Error e = source.read(c.payload_offset() + at, std::span(pack.raw).subspan(at, n))) return e;
          source.release(c.payload_offset() + at, c.payload_offset() + at + n);
        }
        pack.loaded = true;
      }
      chunk.data = std::move(pack);
      module.chunks.push_back(std::move(chunk));
      continue;
    }
    if (c.id == chunk::STRS && options.lazy_strings) {
      // The count only; StringFeed reads the strings. Each costs at least its 4-byte length.
      std::array<std::uint8_t, 4> count_bytes{};
      const auto head = std::span<std::uint8_t>(count_bytes).first(static_cast<std::size_t>(std::min<std::uint64_t>(4, c.payload_size())));
      if (Error e = source.read(c.payload_offset(), head)) return e;
      ByteReader r(head, c.payload_offset(), fmt::format("chunk STRS at {}", hex_offset(c.offset)));
      const std::uint32_t count = r.u32();
      if (r.ok() && count > (c.payload_size() - 4) / 4)
        return Error{Errc::bad_count, c.payload_offset(),
                     fmt::format("chunk STRS at {}: {} strings need at least {} bytes but the payload has {}",
                                 hex_offset(c.offset), count, 4 + std::uint64_t{4} * count, c.payload_size())};
      if (!r.ok()) return r.error();
      chunk.data = StringsChunk{module.string_count(), count};
      seen_strings = true;
      module.chunks.push_back(std::move(chunk));
      continue;
    }
    // Bytes in memory are decoded where they lie; others are read into a buffer first.
    std::vector<std::uint8_t> owned;
    std::span<const std::uint8_t> payload;
    if (memory && c.payload_offset() <= memory->size() && c.payload_size() <= memory->size() - c.payload_offset()) {
      payload = memory->subspan(static_cast<std::size_t>(c.payload_offset()), static_cast<std::size_t>(c.payload_size()));
    } else {
      auto read = source.read_vector(c.payload_offset(), c.payload_size());
      if (!read) {
        if (Error e = decode_later(module, later, 1)) return e;  // an earlier chunk's error comes first
        return read.error();
      }
      owned = std::move(read).value();
      payload = owned;
    }
    if (c.id == chunk::STRS) {
      std::size_t used = 0;
      auto strings = read_strings(payload, c.payload_offset(), &used);
      if (!strings) return strings.error();
      if (used < payload.size()) {
        module.problems.push_back({c.payload_offset() + used, fmt::format("chunk STRS at {}: {} bytes after its strings",
                                                                          hex_offset(c.offset), payload.size() - used)});
        chunk.trailing.assign(payload.begin() + static_cast<std::ptrdiff_t>(used), payload.end());
      }
      StringsChunk ref{static_cast<std::uint32_t>(module.strings.size()), static_cast<std::uint32_t>(strings->size())};
      // The reference reader appends repeated chunks to its lists; do the same.
      if (module.strings.empty()) module.strings = std::move(strings).value();
      else for (std::size_t i = 0; i < strings->size(); ++i) module.strings.push_back((*strings)[i]);
      chunk.data = ref;
      seen_strings = true;
      module.chunks.push_back(std::move(chunk));
      continue;
    }
    if (!seen_strings && is_known_chunk(c.id) && c.id != chunk::PLAC && c.id != chunk::FINT && c.id != chunk::PIDX &&
        c.id != chunk::PACK)
      module.problems.push_back({c.offset, fmt::format("chunk {} at {} comes before STRS; the reference reader "
                                                       "resolves string ids while reading, so STRS must be first",
                                                       chunk_name(c.id), hex_offset(c.offset))});
    if (options.threads > 1) {  // decoded after the pass, side by side
      later.push_back({module.chunks.size(), c.payload_offset(), std::move(owned), payload, module.string_count(),
                       module.problems.size()});
      module.chunks.push_back(std::move(chunk));
      continue;
    }
    std::uint32_t reach = 0;
    auto data = decode_chunk(c.id, payload, c.payload_offset(), version, module.string_count(), chunk,
                             &module.problems, &reach);
    if (!data) return data.error();
    module.strings_referenced = std::max(module.strings_referenced, reach);
    chunk.data = std::move(data).value();
    module.chunks.push_back(std::move(chunk));
  }
  return decode_later(module, later, options.threads);
}

}  // namespace

Result<Module> read_module(ByteSource& source, const ReadOptions& options) {
  auto container = read_container(source, &options);
  if (!container) return container.error();
  Module module;
  module.container = std::move(container).value();
  if (Error e = decode_chunks(source, module, 0, options)) return e;
  // The records are read: a mapped file's pages may go until a section is wanted.
  if (const PackChunk* pack = module.pack(); pack && pack->in_file())
    if (auto file = source.mapped()) release_pages(file->view);
  if (options.decode_pack && module.pack()) {
    if (Error e = decode_pack(module)) return e;
  }
  return module;
}

Error read_rest(ByteSource& source, Module& module, const ReadOptions& options) {
  Container& container = module.container;
  if (container.rest_offset >= container.file_size) return {};
  const std::size_t first = container.chunks.size();
  Container rest;
  rest.file_size = container.file_size;
  if (Error e = walk_chunks(source, container.rest_offset, &options, rest)) return e;
  // The sections were located and their names counted by what came before; a later STRS, PIDX,
  // PROT or PACK would change that under them (the reference reader keeps the last of each).
  for (const ChunkInfo& c : rest.chunks)
    if (c.id == chunk::STRS || c.id == chunk::PIDX || c.id == chunk::PROT || c.id == chunk::PACK)
      return Error{Errc::bad_value, c.offset,
                   fmt::format("chunk {} at {} comes after PACK: a streamed module's sections were read by the ones "
                               "before it, so open the file whole to see it as the reference reader does",
                               chunk_name(c.id), hex_offset(c.offset))};
  const std::size_t problems = module.problems.size();
  const std::uint32_t referenced = module.strings_referenced;
  container.chunks.insert(container.chunks.end(), rest.chunks.begin(), rest.chunks.end());
  if (Error e = decode_chunks(source, module, first, options)) {
    container.chunks.resize(first);  // as it was: the rest is not half there
    module.chunks.resize(first);
    module.problems.resize(problems);
    module.strings_referenced = referenced;
    return e;
  }
  container.rest_offset = container.file_size;
  return {};
}

SectionContext section_context(const Module& module, const PidxEntry& entry, std::vector<Problem>* problems) {
  SectionContext ctx;
  ctx.model_count = entry.model_count;
  const PrototypeList* prot = module.prototypes();
  ctx.prototype_count = prot ? static_cast<std::uint32_t>(prot->prototypes.size()) : 0;
  ctx.string_count = module.string_count();
  ctx.problems = problems;
  return ctx;
}

SectionSpans::SectionSpans(const Module& module) : pack_(module.pack()) {
  if (const std::vector<PidxEntry>* pidx = module.pidx()) {
    entries_.reserve(pidx->size());
    for (const PidxEntry& e : *pidx) entries_.push_back(&e);
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const PidxEntry* a, const PidxEntry* b) { return a->pack_offset < b->pack_offset; });
  for (const PidxEntry* e : entries_)
    if (offsets_.empty() || offsets_.back() != e->pack_offset) offsets_.push_back(e->pack_offset);
}

Result<SectionSpan> SectionSpans::operator()(const PidxEntry& entry) const {
  if (!pack_) return Error{Errc::bad_value, 0, "module has no PIDX/PACK"};
  auto it = std::lower_bound(offsets_.begin(), offsets_.end(), entry.pack_offset);
  if (it == offsets_.end() || *it != entry.pack_offset || entry.pack_offset > pack_->payload_size)
    return Error{Errc::truncated, pack_->payload_offset,
                 fmt::format("PIDX section ({}, {}) at PACK offset {} lies outside the {}-byte PACK payload", entry.row,
                             entry.col, entry.pack_offset, pack_->payload_size)};
  // The next section's offset ends this one, but never past the payload: a hostile PIDX may point
  // far beyond it (that entry fails on its own).
  const std::uint64_t end = (it + 1 == offsets_.end()) ? pack_->payload_size : std::min(*(it + 1), pack_->payload_size);
  return SectionSpan{entry.pack_offset, end};
}

Result<SectionSpan> section_span(const Module& module, const PidxEntry& entry) {
  if (!module.pack() || !module.pidx()) return Error{Errc::bad_value, 0, "module has no PIDX/PACK"};
  return SectionSpans(module)(entry);
}

PackCursor::PackCursor(const Module& module, std::vector<std::uint8_t>& prefix, std::vector<Problem>& problems)
    : module_(module), pack_(module.pack()), spans_(module), problems_(problems) {
  prefix.clear();
  if (!pack_) return;
  if (!pack_->loaded) {
    error_ = Error{Errc::bad_value, pack_->payload_offset, "PACK payload not loaded"};
    return;
  }
  const std::vector<std::uint64_t>& offsets = spans_.offsets();
  const std::span<const std::uint8_t> raw = pack_->bytes();
  if (offsets.empty() && !raw.empty()) {
    prefix.assign(raw.begin(), raw.end());
    problems.push_back({pack_->payload_offset, fmt::format("PACK holds {} bytes but PIDX lists no section", raw.size())});
  }
  if (!offsets.empty() && offsets.front() > 0) {
    prefix.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(offsets.front(), raw.size())));
    problems.push_back({pack_->payload_offset, fmt::format("PACK starts with {} bytes no PIDX entry points at", offsets.front())});
  }
}

Result<std::optional<PackSection>> PackCursor::next() {
  if (error_) return error_;
  const std::vector<std::uint64_t>& offsets = spans_.offsets();
  if (!pack_ || next_ >= offsets.size()) return std::optional<PackSection>();
  // Entries at one offset are neighbours in PACK order: one pass instead of a scan per section.
  const std::vector<const PidxEntry*>& by_offset = spans_.entries();
  // The first PIDX entry at this offset gives the model count the section must hold.
  const std::uint64_t offset = offsets[next_++];
  entry_ = by_offset[next_entry_];
  std::size_t sharing = 0;
  while (next_entry_ < by_offset.size() && by_offset[next_entry_]->pack_offset == offset) ++next_entry_, ++sharing;
  if (sharing > 1)
    problems_.push_back({pack_->payload_offset + offset, fmt::format("{} PIDX entries share the section at PACK offset {}", sharing, offset)});
  auto span = spans_(*entry_);
  if (!span) return error_ = span.error();
  // The span was checked against the loaded payload, so it fits in memory (size_t).
  const auto begin = static_cast<std::size_t>(span->begin), size = static_cast<std::size_t>(span->end - span->begin);
  std::span<const std::uint8_t> bytes = pack_->bytes().subspan(begin, size);
  if (pack_->in_file()) {
    // Read out into one buffer (SharedBytes::copy says why), not decoded where it is mapped: the
    // mapping's pages are never touched, so none are resident and none need letting go.
    if (buffer_.size() < size) buffer_.resize(size);
    if (Error e = pack_->mapped.copy(begin, std::span(buffer_).first(size))) return error_ = e;
    bytes = std::span(buffer_).first(size);
  }
  auto section = decode_section(bytes, pack_->payload_offset + span->begin, section_context(module_, *entry_, &problems_));
  if (!section) return error_ = section.error();
  section->offset = span->begin;
  return std::optional<PackSection>(std::move(section).value());
}

const PidxEntry* PackCursor::upcoming() const {
  if (!pack_ || error_ || next_ >= spans_.offsets().size()) return nullptr;
  return spans_.entries()[next_entry_];
}

void PackCursor::skip() {
  if (!upcoming()) return;
  const std::uint64_t offset = spans_.offsets()[next_++];
  entry_ = spans_.entries()[next_entry_];
  while (next_entry_ < spans_.entries().size() && spans_.entries()[next_entry_]->pack_offset == offset) ++next_entry_;
}

Error for_each_section(const Module& module, std::vector<std::uint8_t>& prefix, std::vector<Problem>& problems,
                       const std::function<Error(PackSection&&)>& each) {
  PackCursor cursor(module, prefix, problems);
  for (;;) {
    auto section = cursor.next();
    if (!section) return section.error();
    if (!*section) return {};
    if (Error e = each(std::move(**section))) return e;
  }
}

Error decode_pack(Module& module) {
  PackChunk* pack = module.pack();
  if (!pack) return {};
  pack->sections.clear();
  if (Error e = for_each_section(module, pack->prefix, module.problems, [&](PackSection&& s) {
        pack->sections.push_back(std::move(s));
        return Error{};
      }))
    return e;
  pack->decoded = true;
  return {};
}

StringFeed::StringFeed(const Module& module) {
  for (const Chunk& c : module.chunks) {
    const auto* strs = std::get_if<StringsChunk>(&c.data);
    if (!strs) continue;
    for (const ChunkInfo& info : module.container.chunks)
      if (info.offset == c.offset && info.id == chunk::STRS && info.payload_size() >= 4)
        parts_.push_back({info.payload_offset() + 4, info.offset + info.size, strs->count, info.offset});
  }
  // A module read eagerly (or built in memory) has nothing left to feed.
  if (module.strings.size() >= module.string_count()) parts_.clear();
  else if (!module.strings.empty())
    error_ = Error{Errc::bad_value, 0, "StringFeed needs a module read with lazy_strings (no strings loaded yet)"};
  start_part();
}

void StringFeed::start_part() {
  while (part_ < parts_.size() && parts_[part_].count == 0) ++part_;
  read_ = 0;
  buffer_.clear();
  if (!done()) buffer_at_ = parts_[part_].begin;
}

Error StringFeed::feed(std::uint64_t offset, std::span<const std::uint8_t> bytes, Module& module) {
  if (error_ || done()) return error_;
  if (offset > next_offset())
    return Error{Errc::bad_value, offset,
                 fmt::format("STRS bytes at {} leave a gap after {}", hex_offset(offset), hex_offset(next_offset()))};
  // Only what is new and still inside this payload.
  auto append = [&](std::uint64_t at, std::span<const std::uint8_t> b) {
    const std::uint64_t from = std::max(at, next_offset()), to = std::min(at + b.size(), parts_[part_].end);
    if (to > from) buffer_.insert(buffer_.end(), b.begin() + static_cast<std::ptrdiff_t>(from - at),
                                  b.begin() + static_cast<std::ptrdiff_t>(to - at));
  };
  append(offset, bytes);
  while (!done()) {
    const Part& p = parts_[part_];
    auto used = take_strings(buffer_, buffer_at_, p.end, p.chunk_offset, p.count, read_, module.strings);
    if (!used) {
      error_ = used.error();
      return error_;
    }
    const std::size_t pos = *used;
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(pos));
    buffer_at_ += pos;
    if (read_ < p.count) {
      if (next_offset() >= p.end) {
        error_ = Error{Errc::truncated, p.end,
                       fmt::format("chunk STRS at {} declares {} strings but its payload ends after {}",
                                   hex_offset(p.chunk_offset), p.count, read_)};
        return error_;
      }
      return {};  // wait for more bytes
    }
    ++part_;
    start_part();
    if (!done()) append(offset, bytes);  // a piece may reach into the next STRS chunk
  }
  return {};
}

}  // namespace sceneria::eu7b
