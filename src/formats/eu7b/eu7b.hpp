#pragma once
// EU7B (.eu7): compiled MaSzyna scenery modules. Records as stored in the file; nothing here
// knows about rendering. See shared/specs/eu7b-format.pl.txt and shared/specs/notes/eu7b.md.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/fourcc.hpp"
#include "core/string_table.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

using sceneria::fourcc;

namespace chunk {
constexpr std::uint32_t STRS = fourcc('S', 'T', 'R', 'S');
constexpr std::uint32_t INCL = fourcc('I', 'N', 'C', 'L');
constexpr std::uint32_t PLAC = fourcc('P', 'L', 'A', 'C');
constexpr std::uint32_t TRAK = fourcc('T', 'R', 'A', 'K');
constexpr std::uint32_t TERR = fourcc('T', 'E', 'R', 'R');
constexpr std::uint32_t MESH = fourcc('M', 'E', 'S', 'H');
constexpr std::uint32_t LINE = fourcc('L', 'I', 'N', 'E');
constexpr std::uint32_t MODL = fourcc('M', 'O', 'D', 'L');
constexpr std::uint32_t PIDX = fourcc('P', 'I', 'D', 'X');
constexpr std::uint32_t PROT = fourcc('P', 'R', 'O', 'T');
constexpr std::uint32_t PACK = fourcc('P', 'A', 'C', 'K');
constexpr std::uint32_t TRAC = fourcc('T', 'R', 'A', 'C');
constexpr std::uint32_t PWRS = fourcc('P', 'W', 'R', 'S');
constexpr std::uint32_t MEMC = fourcc('M', 'E', 'M', 'C');
constexpr std::uint32_t LAUN = fourcc('L', 'A', 'U', 'N');
constexpr std::uint32_t DYNM = fourcc('D', 'Y', 'N', 'M');
constexpr std::uint32_t SOND = fourcc('S', 'O', 'N', 'D');
constexpr std::uint32_t TRSE = fourcc('T', 'R', 'S', 'E');
constexpr std::uint32_t EVNT = fourcc('E', 'V', 'N', 'T');
constexpr std::uint32_t FINT = fourcc('F', 'I', 'N', 'T');
}  // namespace chunk

constexpr char kMagic[4] = {'E', 'U', '7', 'B'};
constexpr std::uint32_t kMinVersion = 4;  // 1-3 are rejected by every reference reader
constexpr std::uint32_t kMaxVersion = 9;
constexpr std::uint32_t kHeaderSize = 8;       // magic + u32 version
constexpr std::uint32_t kChunkHeaderSize = 8;  // FourCC + u32 total size (header included)

bool is_known_chunk(std::uint32_t id);
// "STRS"; bytes outside printable ASCII appear as \xNN so an unknown id is always readable.
std::string chunk_name(std::uint32_t id);

struct ChunkInfo {
  std::uint32_t id = 0;
  std::uint64_t offset = 0;  // of the chunk header
  std::uint64_t size = 0;    // total, including the 8-byte header
  std::uint64_t payload_offset() const { return offset + kChunkHeaderSize; }
  std::uint64_t payload_size() const { return size - kChunkHeaderSize; }
};

// The framing of a module: what a chunk walk sees without decoding any payload.
struct Container {
  std::uint32_t version = 0;
  std::uint64_t file_size = 0;
  std::vector<ChunkInfo> chunks;
  // Where the chunks a walk left unread begin (ReadOptions::stop_after_pack: the end of PACK);
  // the file's size once every chunk is read.
  std::uint64_t rest_offset = 0;
};

struct Module {
  Container container;              // version, source size, chunk table as read
  StringTable strings;              // all STRS chunks, in order (a prefix of them while streaming)
  std::vector<Chunk> chunks;        // every chunk in file order, STRS and unknown ones included
  std::vector<Problem> problems;    // non-fatal findings while reading
  // One past the highest string id the decoded chunks (PACK aside) refer to: how many leading
  // strings must be loaded before those records can be shown.
  std::uint32_t strings_referenced = 0;

  std::uint32_t version() const { return container.version; }
  // The strings STRS declares. A streamed module loads them on demand (ReadOptions::lazy_strings,
  // StringFeed), so `strings` may hold fewer for a while.
  std::uint32_t string_count() const {
    std::uint64_t declared = 0;
    for (const Chunk& c : chunks)
      if (const auto* s = std::get_if<StringsChunk>(&c.data)) declared += s->count;
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(declared, strings.size()));
  }
  bool strings_complete() const { return strings.size() >= string_count(); }
  template <class T>
  const T* first() const {
    for (const Chunk& c : chunks)
      if (const T* p = std::get_if<T>(&c.data)) return p;
    return nullptr;
  }
  template <class T>
  T* first() {
    return const_cast<T*>(std::as_const(*this).first<T>());
  }
  template <class T>
  const T* last() const {
    for (auto c = chunks.rbegin(); c != chunks.rend(); ++c)
      if (const T* p = std::get_if<T>(&c->data)) return p;
    return nullptr;
  }
  template <class T>
  T* last() {
    return const_cast<T*>(std::as_const(*this).last<T>());
  }
  // The reference reader keeps the last PIDX, PROT and PACK it meets (each replaces what an
  // earlier one set; eu7_reader.cpp, read_chunk_payload), so these are the last of their kind.
  // A PACK that a later one replaces is read as bytes (an OpaqueChunk): nothing indexes it.
  const PrototypeList* prototypes() const { return last<PrototypeList>(); }
  const std::vector<PidxEntry>* pidx() const { return last<std::vector<PidxEntry>>(); }
  const PackChunk* pack() const { return last<PackChunk>(); }
  PackChunk* pack() { return last<PackChunk>(); }
};

}  // namespace sceneria::eu7b
