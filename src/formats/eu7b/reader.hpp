#pragma once
// EU7B reader. Works on a ByteSource (random access) or on spans already fetched, so the same
// code serves a dropped file, a local file and HTTP Range streaming.
#include <cstdint>
#include <functional>
#include <span>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/pack.hpp"
#include "io/byte_source.hpp"

namespace sceneria::eu7b {

// True if the bytes start with the EU7B magic (used for format detection).
bool probe(std::span<const std::uint8_t> head);

struct ReadOptions;
// Header and chunk walk. Reads 8 bytes per chunk; payloads are not touched. With `reading`, the
// payloads a read_module with those options will read are announced to the source as the walk
// steps over them (ByteSource::will_read).
Result<Container> read_container(ByteSource& source, const ReadOptions* reading = nullptr);

// STRS payload -> string table. `payload_offset` is the absolute offset of payload[0];
// `consumed` (optional) receives how many payload bytes the strings took.
// The STRS string parser shared by read_strings and StringFeed (reader.cpp).
Result<std::size_t> take_strings(std::span<const std::uint8_t> bytes, std::uint64_t at, std::uint64_t end,
                                 std::uint64_t chunk_offset, std::uint32_t count, std::uint32_t& read, StringTable& out);
Result<StringTable> read_strings(std::span<const std::uint8_t> payload, std::uint64_t payload_offset,
                                 std::size_t* consumed = nullptr);

struct ReadOptions {
  bool load_pack = false;    // keep the PACK payload's bytes (needed to write the module back)
  bool decode_pack = false;  // decode every PACK section (implies load_pack)
  // Keep a mapped file's PACK where it lies instead of copying it (PackChunk::mapped); sources
  // that are not mapped files load it as load_pack does.
  bool map_pack = false;
  // Read only each STRS chunk's count, not its strings: a big scenery's STRS holds the names of
  // every model and is megabytes long, while showing the header needs a few leading strings.
  // A StringFeed loads them afterwards, as far as they are needed.
  bool lazy_strings = false;
  // Record chunks decoded on up to this many threads at once, after the pass that reads them;
  // the module is the same, problems in the same order, the same first error.
  unsigned threads = 1;
  // End the walk with PACK: the chunks after it (traction, vehicles, events, …) are read by
  // read_rest, so that a streamed module's first section need not wait for them (EU7B has no
  // chunk directory: their headers are found only by stepping over PACK).
  bool stop_after_pack = false;
};

// The module header pass: every chunk decoded except PACK, whose payload is only located
// (unless the options ask for it). Malformed records are errors; inconsistencies that still
// decode (string ids out of range, trailing bytes, ...) are collected in Module::problems.
Result<Module> read_module(ByteSource& source, const ReadOptions& options = {});

// The chunks a read_module with `stop_after_pack` left, from module.container.rest_offset to the
// end of the file, decoded and appended as read_module would have. Chunks the sections were
// already read by (STRS, PIDX, PROT, PACK) are refused there: the module stays as it was.
Error read_rest(ByteSource& source, Module& module, const ReadOptions& options = {});

// One chunk's payload -> records (STRS and PACK excepted). `string_count` bounds string ids;
// `string_reach` (optional) receives one past the highest string id the records use.
Result<ChunkData> decode_chunk(std::uint32_t id, std::span<const std::uint8_t> payload, std::uint64_t payload_offset,
                               std::uint32_t version, std::uint32_t string_count, Chunk& chunk,
                               std::vector<Problem>* problems, std::uint32_t* string_reach = nullptr);

// Loads the strings of a module read with `lazy_strings`, from bytes handed over in file order as
// they arrive (STRS has no index: string n is found only by reading the n before it). Whole
// strings go into module.strings at once; only a string cut by the end of a piece waits.
class StringFeed {
 public:
  explicit StringFeed(const Module& module);
  bool done() const { return part_ >= parts_.size(); }
  const Error& error() const { return error_; }
  // The next byte wanted (absolute), and the end of the STRS payload it lies in: a fetch for more
  // strings is [next_offset, min(end_offset, next_offset + piece)).
  std::uint64_t next_offset() const { return buffer_at_ + buffer_.size(); }
  std::uint64_t end_offset() const { return done() ? next_offset() : parts_[part_].end; }
  // Bytes at `offset` (which must not leave a gap after what was fed before; bytes already fed
  // are skipped). A malformed STRS is an error, and stays one.
  Error feed(std::uint64_t offset, std::span<const std::uint8_t> bytes, Module& module);

 private:
  void start_part();
  struct Part {
    std::uint64_t begin = 0, end = 0;  // the strings of one STRS payload, after its count
    std::uint32_t count = 0;
    std::uint64_t chunk_offset = 0;
  };
  std::vector<Part> parts_;
  std::size_t part_ = 0;
  std::uint32_t read_ = 0;               // strings of the current part loaded so far
  std::uint64_t buffer_at_ = 0;          // absolute offset of buffer_[0]: the next string's start
  std::vector<std::uint8_t> buffer_;     // received bytes not yet made into strings
  Error error_;
};

// What a section decode needs from a read module (model count from the PIDX entry).
SectionContext section_context(const Module& module, const PidxEntry& entry, std::vector<Problem>* problems = nullptr);

// Where one section's bytes lie in the PACK payload: [begin, end). Sections are cut at the
// sorted distinct PIDX offsets; the last one runs to the end of the payload.
struct SectionSpan {
  std::uint64_t begin = 0, end = 0;
};
// The spans of all sections: the PIDX entries are sorted by offset once (a scenery may have
// 11,000 sections), then each lookup is a binary search.
class SectionSpans {
 public:
  explicit SectionSpans(const Module& module);
  Result<SectionSpan> operator()(const PidxEntry& entry) const;
  // PIDX entries in PACK order; entries sharing an offset stay in file order.
  const std::vector<const PidxEntry*>& entries() const { return entries_; }
  const std::vector<std::uint64_t>& offsets() const { return offsets_; }  // sorted, distinct

 private:
  const PackChunk* pack_ = nullptr;
  std::vector<const PidxEntry*> entries_;
  std::vector<std::uint64_t> offsets_;
};
// One section's span (sorts the offsets: use SectionSpans for more than one).
Result<SectionSpan> section_span(const Module& module, const PidxEntry& entry);

// The loaded PACK's sections one at a time, in PACK order, as decode_pack finds them: the bytes
// before the first section go to `prefix` at once, findings to `problems` as they are found.
// The module and the vectors must outlive the cursor.
class PackCursor {
 public:
  PackCursor(const Module& module, std::vector<std::uint8_t>& prefix, std::vector<Problem>& problems);
  // The next section (nullopt after the last); an error stops the walk.
  Result<std::optional<PackSection>> next();
  // The PIDX entry of the section next() gave last (nullptr before the first), and of the one it
  // gives next (nullptr after the last), which skip() passes by undecoded.
  const PidxEntry* entry() const { return entry_; }
  const PidxEntry* upcoming() const;
  void skip();
  std::size_t count() const { return spans_.offsets().size(); }
  const std::vector<const PidxEntry*>& entries() const { return spans_.entries(); }  // by PACK offset

 private:
  const Module& module_;
  const PackChunk* pack_;
  SectionSpans spans_;
  std::vector<Problem>& problems_;
  std::size_t next_ = 0, next_entry_ = 0;
  const PidxEntry* entry_ = nullptr;
  Error error_;
  std::vector<std::uint8_t> buffer_;  // a section of a PACK left in its file, read out
};

// Decodes every section of a loaded PACK into PackChunk::sections.
Error decode_pack(Module& module);
// The loaded PACK's sections one at a time, in PACK order, as decode_pack finds them, without
// keeping them (a JSON dump of a module bigger than memory would hold decoded). `prefix` gets the
// bytes before the first section; findings go to `problems`.
Error for_each_section(const Module& module, std::vector<std::uint8_t>& prefix, std::vector<Problem>& problems,
                       const std::function<Error(PackSection&&)>& each);

}  // namespace sceneria::eu7b
