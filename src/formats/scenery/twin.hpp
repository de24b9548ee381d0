#pragma once
// The scenery binary twin (`.scnb/.incb/.scmb/.ctrb`, notes part A): one text file's own tokens,
// comments gone, numbers typed, strings interned, includes as entries, top-level nodes wrapped in
// markers (class, body span, and for visual nodes a position and range) so a pass can skip a
// node in O(1). Read from bytes that are treated as hostile; written back byte for byte.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sceneria::scenery {

constexpr std::uint8_t kTwinVersion = 10;  // the magic's fourth byte
constexpr std::uint8_t kTwinOldestVersion = 5;

enum class TwinKind : std::uint8_t { scn = 0, inc = 1, scm = 2 };
enum class EntryTag : std::uint8_t { token = 0, include = 1, int_number = 2, f32 = 3, f64 = 4, qtoken = 5, node = 6 };
enum class NodeClass : std::uint8_t { infra = 0, visual = 1, visual_pos = 2 };
enum class LoadPass : std::uint8_t { all = 0, infrastructure = 1, visual = 2 };

struct TwinEntry {
  EntryTag tag = EntryTag::token;
  std::uint32_t marker = kNoMarker;  // the node marker whose body holds it
  std::uint64_t offset = 0;          // of its head varint
  // token, qtoken: string index; include: first index into Twin::include_strings
  std::uint32_t index = 0;
  std::uint32_t files = 0, params = 0;  // include: sizes of the file expression and parameters
  std::int64_t integer = 0;             // int_number
  double number = 0;                    // every number, as the engine replays it (f32 widened)
  std::uint64_t bits = 0;               // f32, f64: the stored bits (a NaN's payload kept)
  static constexpr std::uint32_t kNoMarker = 0xFFFFFFFFu;
  static TwinEntry f32_entry(float v);
  static TwinEntry f64_entry(double v);
  bool is_number() const { return tag == EntryTag::int_number || tag == EntryTag::f32 || tag == EntryTag::f64; }
};

struct TwinMarker {
  std::uint64_t offset = 0;       // of the 0x06 head
  NodeClass cls = NodeClass::infra;
  std::uint64_t span = 0;         // body bytes
  std::uint64_t body_offset = 0;  // where the body starts (after the position block)
  bool has_position = false;
  float position[3] = {0, 0, 0};
  float range = -1;               // v9+; -1 = unlimited (and before v9)
  std::uint32_t first_entry = 0, entry_count = 0;
  // `node` tokens in its body: 1 where the marker holds one node, as writers mean it to; more
  // where position collection ran on past the terminator (notes A5).
  std::uint32_t nodes = 0;
};

struct Twin {
  std::uint8_t version = kTwinVersion;
  TwinKind kind = TwinKind::scn;
  std::uint32_t flags = 0;  // bit 0: infra-relevant (v10)
  std::vector<std::string> strings;
  std::vector<TwinEntry> entries;
  std::vector<std::uint32_t> include_strings;  // string indices of every include, in order
  std::vector<TwinMarker> markers;
  std::uint64_t strings_offset = 0, entries_offset = 0;

  bool infra_relevant() const { return (flags & 1u) != 0; }
  std::string_view text(const TwinEntry& e) const;  // token/qtoken text ("" for others)
  std::string_view include_string(const TwinEntry& e, std::uint32_t i) const;  // files then params
};

bool is_twin(std::span<const std::uint8_t> head);  // "eu7" + a version byte 5..10
Result<Twin> read_twin(std::span<const std::uint8_t> bytes);
// The bytes of a twin: read_twin → write_twin is byte-identical for files with minimal varints
// (every file the reference writes).
std::vector<std::uint8_t> write_twin(const Twin& twin);
void append_varint(std::vector<std::uint8_t>& out, std::uint64_t value);  // unsigned LEB128

// The twin's wire form piece by piece (notes A2-A4): write_twin and the baker write through these.
// The header up to the string count: magic, version, kind, flags.
void put_twin_header(std::vector<std::uint8_t>& out, std::uint8_t version, TwinKind kind, std::uint32_t flags);
void put_twin_string(std::vector<std::uint8_t>& out, std::string_view s);  // a string table entry
void put_twin_token(std::vector<std::uint8_t>& out, std::uint32_t string_index, bool quoted);
void put_twin_include(std::vector<std::uint8_t>& out, std::span<const std::uint32_t> files, std::span<const std::uint32_t> params);
void put_twin_int(std::vector<std::uint8_t>& out, std::int64_t value);
void put_twin_f32(std::vector<std::uint8_t>& out, std::uint32_t bits);
void put_twin_f64(std::vector<std::uint8_t>& out, std::uint64_t bits);
// A node marker before its body of `body_size` bytes; the position block goes with a
// VISUAL_POS marker from version 7, its range from version 9.
void put_twin_marker(std::vector<std::uint8_t>& out, std::uint8_t version, NodeClass cls, std::uint64_t body_size,
                     const float (&position)[3], float range);

// Appends entries written with one numbering of the string table, renumbered: string `i` becomes
// `ids[i]`. Marker lengths follow their bodies, whose varints may grow. For entries of this
// version, as the baker writes them (no markers inside markers): the bake of a text in parts,
// each part baked with a table of its own.
Error renumber_twin_entries(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> entries,
                            std::span<const std::uint32_t> ids);

// Whether a pass serves this entry: entries outside markers always; those inside by class.
bool served(const Twin& twin, const TwinEntry& entry, LoadPass pass);

std::string_view tag_name(EntryTag tag);
std::string_view class_name(NodeClass cls);
std::string_view kind_name(TwinKind kind);

}  // namespace sceneria::scenery
