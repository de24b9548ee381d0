#include "formats/eu7b/json_codec.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <fmt/format.h>

#include "core/ordered_work.hpp"
#include "core/text.hpp"
#include "formats/eu7b/fields.hpp"
#include "formats/eu7b/json_archive.hpp"
#include "formats/eu7b/json_tape.hpp"
#include "formats/eu7b/json_text.hpp"
#include "formats/eu7b/reader.hpp"

namespace sceneria::eu7b {

namespace {

// One record of a chunk's list: D is the chunk's data (its pools and transforms), T the record.
template <class A, class D, class T>
void record_fields(A& a, D& d, T& r, std::uint32_t version) {
  if constexpr (std::is_same_v<T, Include>) fields(a, r, version);
  else if constexpr (std::is_same_v<D, ModelList>) fields(a, r, d, false);
  else if constexpr (std::is_same_v<D, PrototypeList>) fields(a, r, d, version);
  else if constexpr (std::is_same_v<D, std::vector<T>>) fields(a, r);
  else fields(a, r, d.transforms);
}

// The vector of records a chunk's data holds, or nullptr for other data (a terrain, a count).
template <class D>
auto* records_of(D& d) {
  if constexpr (std::is_same_v<D, std::vector<Include>> || std::is_same_v<D, std::vector<Trainset>> ||
                std::is_same_v<D, std::vector<Event>> || std::is_same_v<D, std::vector<PidxEntry>>)
    return &d;
  else if constexpr (std::is_same_v<D, ModelList>) return &d.models;
  else if constexpr (std::is_same_v<D, PrototypeList>) return &d.prototypes;
  else if constexpr (requires { d.records; }) return &d.records;
  else return static_cast<std::vector<int>*>(nullptr);
}

// The chunk body, shared by both directions: Archive is JsonOut, JsonTextOut or an input.
template <class A>
void chunk_body(A& a, Chunk& c, std::uint32_t version) {
  std::visit(
      [&](auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, Placement>) {
          a.object("placement", [&] {
            a.u8("origin_x", d.origin_x);
            a.u8("origin_y", d.origin_y);
            a.u8("origin_z", d.origin_z);
            a.u8("rotation_y", d.rotation_y);
          });
        } else if constexpr (std::is_same_v<T, Terrain>) {
          a.object("terrain", [&] { fields(a, d); });
        } else if constexpr (std::is_same_v<T, std::uint32_t>) {
          a.u32("value", d);
        } else if constexpr (std::is_same_v<T, StringsChunk>) {
          a.u32("count", d.count);
        } else if constexpr (std::is_same_v<T, OpaqueChunk> || std::is_same_v<T, PackChunk>) {
          // Byte payloads: handled by the callers (hex / sections).
        } else {
          a.list("records", *records_of(d), 0, [&](auto& r) { a.object("", [&] { record_fields(a, d, r, version); }); });
        }
      },
      c.data);
}

template <class A>
void section_body(A& a, PackSection& s) {
  const bool v13 = s.format == SectionFormat::v13;
  a.u64("offset", s.offset);
  if (s.format != SectionFormat::flat) {
    a.u32("solo_count", s.solo_count);
    a.u32("inst_count", s.inst_count);
  }
  if (s.format >= SectionFormat::umes) a.list("meshes", s.meshes, 0, [&](Sid& id) { a.sid("", id); });
  if (s.format >= SectionFormat::utex) a.list("textures", s.textures, 0, [&](Sid& id) { a.sid("", id); });
  if (s.format >= SectionFormat::chnk) {
    const bool with_inst = s.format >= SectionFormat::prot_inst;
    a.list("chunks", s.chunks, 0, [&](SectionChunkEntry& e) {
      a.object("", [&] {
        a.u32("solo", e.solo);
        if (with_inst) a.u32("inst", e.inst);
      });
    });
  }
  a.list("solo", s.solo.models, 0, [&](Model& m) { a.object("", [&] { fields(a, m, s.solo, v13); }); });
  if (s.format != SectionFormat::flat) a.list("inst", s.inst, 0, [&](Instance& i) { a.object("", [&] { fields(a, i, v13); }); });
}

std::string bytes_hex(const std::vector<std::uint8_t>& b) {
  return to_hex(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

bool hex_bytes(const njson& j, std::vector<std::uint8_t>& out) {
  std::string s;
  if (!j.is_string() || !from_hex(j.get<std::string>(), s)) return false;
  out.assign(s.begin(), s.end());
  return true;
}

bool parse_chunk_id(const std::string& text, std::uint32_t& id) {
  std::string bytes;
  if (!fourcc_from_text(text, bytes)) return false;
  id = fourcc(bytes[0], bytes[1], bytes[2], bytes[3]);
  return true;
}

ChunkData empty_chunk_data(std::uint32_t id) {
  switch (id) {
    case chunk::STRS: return StringsChunk{};
    case chunk::PACK: return PackChunk{};
    case chunk::INCL: return std::vector<Include>{};
    case chunk::PLAC: return Placement{};
    case chunk::TRAK: return RecordList<Track>{};
    case chunk::TERR: return Terrain{};
    case chunk::MESH: return RecordList<Shape>{};
    case chunk::LINE: return RecordList<Line>{};
    case chunk::MODL: return ModelList{};
    case chunk::MEMC: return RecordList<MemCell>{};
    case chunk::LAUN: return RecordList<EventLauncher>{};
    case chunk::DYNM: return RecordList<Dynamic>{};
    case chunk::SOND: return RecordList<Sound>{};
    case chunk::TRSE: return std::vector<Trainset>{};
    case chunk::EVNT: return std::vector<Event>{};
    case chunk::FINT: return std::uint32_t{0};
    case chunk::PIDX: return std::vector<PidxEntry>{};
    case chunk::PROT: return PrototypeList{};
    case chunk::TRAC: return RecordList<Traction>{};
    case chunk::PWRS: return RecordList<PowerSource>{};
    default: return OpaqueChunk{};
  }
}

}  // namespace

Result<ojson> module_to_json(const Module& module_in) {
  Module& module = const_cast<Module&>(module_in);  // the JSON writer only reads
  ojson j;
  j["format"] = "eu7b";
  j["schema"] = kJsonSchemaVersion;
  j["version"] = module.version();
  ojson strings = ojson::array();
  for (std::size_t i = 0; i < module.strings.size(); ++i) strings.push_back(string_to_json(module.strings[i]));
  j["strings"] = std::move(strings);
  ojson chunks = ojson::array();
  for (Chunk& c : module.chunks) {
    ojson out;
    out["id"] = chunk_name(c.id);
    if (auto* opaque = std::get_if<OpaqueChunk>(&c.data)) {
      out["hex"] = bytes_hex(opaque->bytes);
    } else if (auto* pack = std::get_if<PackChunk>(&c.data)) {
      if (!pack->decoded)
        return Error{Errc::bad_value, c.offset, "PACK must be decoded to write JSON (read with decode_pack)"};
      if (!pack->prefix.empty()) out["prefix_hex"] = bytes_hex(pack->prefix);
      ojson sections = ojson::array();
      for (PackSection& s : pack->sections) {
        ojson so;
        so["format"] = std::string(section_format_name(s.format));
        JsonOut a(so);
        section_body(a, s);
        if (!s.trailing.empty()) so["trailing_hex"] = bytes_hex(s.trailing);
        sections.push_back(std::move(so));
      }
      out["sections"] = std::move(sections);
    } else {
      JsonOut a(out);
      chunk_body(a, c, module.version());
    }
    if (c.empty_payload) out["empty_payload"] = true;
    if (!c.trailing.empty()) out["trailing_hex"] = bytes_hex(c.trailing);
    chunks.push_back(std::move(out));
  }
  j["chunks"] = std::move(chunks);
  return j;
}

namespace {

void hex_text(JsonText& t, const char* key, const std::vector<std::uint8_t>& bytes) {
  t.key(key);
  t.string(bytes_hex(bytes));
}

void section_text(JsonText& t, PackSection& s) {
  t.open_object();
  t.key("format");
  t.string(section_format_name(s.format));
  JsonTextOut a(t);
  section_body(a, s);
  if (!s.trailing.empty()) hex_text(t, "trailing_hex", s.trailing);
  t.close();
}

}  // namespace

Error write_module_json(const Module& module_in, ByteSink& sink, int indent, unsigned threads) {
  Module& module = const_cast<Module&>(module_in);  // the JSON writer only reads
  JsonText t(sink, indent);
  t.open_form("eu7b", kJsonSchemaVersion);
  t.key("version");
  t.number(std::uint64_t{module.version()});
  t.key("strings");
  t.open_array();
  for (std::size_t i = 0; i < module.strings.size(); ++i) string_text(t, module.strings[i]);
  t.close();
  t.key("chunks");
  t.open_array();
  for (Chunk& c : module.chunks) {
    t.open_object();
    t.key("id");
    t.string(chunk_name(c.id));
    if (auto* opaque = std::get_if<OpaqueChunk>(&c.data)) {
      hex_text(t, "hex", opaque->bytes);
    } else if (auto* pack = std::get_if<PackChunk>(&c.data)) {
      if (!pack->decoded && !pack->loaded)
        return Error{Errc::bad_value, c.offset, "PACK must be loaded to write JSON (read with load_pack)"};
      // Sections are written as text side by side (each at the depth it takes in the document)
      // and joined in order; one more than the threads at a time, so memory holds a few sections' text,
      // not the dump (docs/performance.md: a 3-million-model dump in about 20 MB).
      std::size_t depth = 0;
      OrderedWork<std::string> pieces(threads, std::size_t{threads} + 1, [&](std::string&& text) {
        t.rendered(text);
        return !t.error();
      });
      const auto piece = [indent, &depth](PackSection& s) {
        StringByteSink out;
        JsonText text(out, indent, depth);
        section_text(text, s);
        (void)text.flush();  // into a string: cannot fail
        return std::move(out.text);
      };
      auto start = [&](const std::vector<std::uint8_t>& prefix) {
        if (!prefix.empty()) hex_text(t, "prefix_hex", prefix);
        t.key("sections");
        t.open_array();
        depth = t.depth();
      };
      if (pack->decoded) {
        start(pack->prefix);
        for (PackSection& s : pack->sections) pieces.submit([&piece, &s] { return piece(s); });
      } else {
        // Decoded one at a time and let go: the dump holds a few sections' records at most.
        std::vector<std::uint8_t> prefix;
        std::vector<Problem> problems;
        bool started = false;
        if (Error e = for_each_section(module, prefix, problems, [&](PackSection&& s) {
              if (!started) start(prefix), started = true;
              auto owned = std::make_shared<PackSection>(std::move(s));
              pieces.submit([&piece, owned] { return piece(*owned); });
              return t.error();
            }))
          return e;
        if (!started) start(prefix);
      }
      pieces.finish();
      if (t.error()) return t.error();
      t.close();
    } else {
      JsonTextOut a(t);
      chunk_body(a, c, module.version());
    }
    if (c.empty_payload) {
      t.key("empty_payload");
      t.boolean(true);
    }
    if (!c.trailing.empty()) hex_text(t, "trailing_hex", c.trailing);
    t.close();
  }
  t.close();
  t.close();
  return t.flush();
}

Result<Module> module_from_json(const njson& j) {
  auto bad = [](std::string message) { return Error{Errc::bad_value, 0, std::move(message)}; };
  if (!j.is_object() || j.value("format", "") != "eu7b") return bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)");
  if (!j.contains("schema") || !j["schema"].is_number_integer() || j["schema"].get<int>() != kJsonSchemaVersion)
    return bad(fmt::format("unsupported EU7B JSON schema (this build reads schema {})", kJsonSchemaVersion));
  if (!j.contains("version") || !j["version"].is_number_unsigned()) return bad("\"version\" missing");
  Module m;
  m.container.version = j["version"].get<std::uint32_t>();
  if (m.container.version < kMinVersion || m.container.version > kMaxVersion)
    return Error{Errc::unsupported_version, 0,
                 fmt::format("EU7B version {} is not supported (supported: {}-{})", m.container.version, kMinVersion, kMaxVersion)};
  if (!j.contains("strings") || !j["strings"].is_array()) return bad("\"strings\" must be an array");
  for (std::size_t i = 0; i < j["strings"].size(); ++i) {
    std::string bytes;
    if (!string_from_json(j["strings"][i], bytes))
      return bad(fmt::format("strings[{}]: expected a string, {{\"cp1250\": …}} or {{\"hex\": …}}", i));
    m.strings.push_back(bytes);
  }
  if (!j.contains("chunks") || !j["chunks"].is_array()) return bad("\"chunks\" must be an array");
  std::uint32_t strings_used = 0;
  for (std::size_t ci = 0; ci < j["chunks"].size(); ++ci) {
    const njson& cj = j["chunks"][ci];
    const std::string path = fmt::format("chunks[{}]", ci);
    Chunk c;
    if (!cj.is_object() || !cj.contains("id") || !cj["id"].is_string() || !parse_chunk_id(cj["id"].get<std::string>(), c.id))
      return bad(path + ".id: expected a 4-character chunk id");
    c.data = empty_chunk_data(c.id);
    // A PACK as bytes: one a later PACK replaces (read_module keeps it so).
    if (c.id == chunk::PACK && cj.is_object() && cj.contains("hex") && !cj.contains("sections")) c.data = OpaqueChunk{};
    c.empty_payload = cj.value("empty_payload", false);
    if (cj.contains("trailing_hex") && !hex_bytes(cj["trailing_hex"], c.trailing)) return bad(path + ".trailing_hex: bad hex");
    if (auto* opaque = std::get_if<OpaqueChunk>(&c.data)) {
      if (!cj.contains("hex") || !hex_bytes(cj["hex"], opaque->bytes)) return bad(path + ".hex: bad hex");
    } else if (auto* pack = std::get_if<PackChunk>(&c.data)) {
      pack->loaded = pack->decoded = true;
      if (cj.contains("prefix_hex") && !hex_bytes(cj["prefix_hex"], pack->prefix)) return bad(path + ".prefix_hex: bad hex");
      if (!cj.contains("sections") || !cj["sections"].is_array()) return bad(path + ".sections must be an array");
      for (std::size_t si = 0; si < cj["sections"].size(); ++si) {
        const njson& sj = cj["sections"][si];
        const std::string spath = fmt::format("{}.sections[{}]", path, si);
        PackSection s;
        if (!sj.is_object() || !sj.contains("format") || !sj["format"].is_string() ||
            !parse_section_format(sj["format"].get<std::string>(), s.format))
          return bad(spath + ".format: expected \"flat\" or \"1\"…\"6\"");
        JsonIn a(sj, spath);
        section_body(a, s);
        if (!a.ok()) return a.error();
        if (s.format == SectionFormat::flat) s.solo_count = static_cast<std::uint32_t>(s.solo.models.size());
        if (const std::string problem = section_counts_problem(s); !problem.empty()) return bad(spath + ".chunks: " + problem);
        if (sj.contains("trailing_hex") && !hex_bytes(sj["trailing_hex"], s.trailing)) return bad(spath + ".trailing_hex: bad hex");
        pack->sections.push_back(std::move(s));
      }
    } else {
      JsonIn a(cj, path);
      chunk_body(a, c, m.container.version);
      if (!a.ok()) return a.error();
      if (auto* strs = std::get_if<StringsChunk>(&c.data)) {
        strs->first = strings_used;
        strings_used += strs->count;
        if (strings_used > m.strings.size())
          return bad(fmt::format("{}.count: STRS chunks claim {} strings but \"strings\" has {}", path, strings_used,
                                 m.strings.size()));
      }
    }
    m.chunks.push_back(std::move(c));
  }
  if (strings_used != m.strings.size())
    return bad(fmt::format("STRS chunks hold {} strings but \"strings\" has {}", strings_used, m.strings.size()));
  return m;
}


namespace {

// RapidJSON's events as tape tokens: the handlers below say what to do with each (Derived's
// scalar, text, key, start, end).
template <class Derived>
class TapeEvents : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Derived> {
 public:
  bool Null() { return self().scalar(TapeToken{}); }
  bool Bool(bool b) {
    TapeToken t;
    t.kind = TapeToken::boolean;
    t.flag = b;
    return self().scalar(t);
  }
  bool Int(int i) { return Int64(i); }
  bool Uint(unsigned u) { return Uint64(u); }
  bool Int64(std::int64_t i) {
    if (i >= 0) return Uint64(static_cast<std::uint64_t>(i));
    TapeToken t;
    t.kind = TapeToken::signed_int;
    t.i = i;
    return self().scalar(t);
  }
  bool Uint64(std::uint64_t u) {
    TapeToken t;
    t.kind = TapeToken::unsigned_int;
    t.u = u;
    return self().scalar(t);
  }
  bool Double(double d) {
    TapeToken t;
    t.kind = TapeToken::real;
    t.d = d;
    return self().scalar(t);
  }
  bool String(const char* s, rapidjson::SizeType n, bool) { return self().text(std::string_view(s, n)); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return self().key(std::string_view(s, n)); }
  bool StartObject() { return self().start(TapeToken::object); }
  bool StartArray() { return self().start(TapeToken::array); }
  bool EndObject(rapidjson::SizeType) { return self().end(); }
  bool EndArray(rapidjson::SizeType) { return self().end(); }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

Error bad(std::string message) { return Error{Errc::bad_value, 0, std::move(message)}; }
Error not_json(std::size_t at, rapidjson::ParseErrorCode code) {
  return Error{Errc::bad_value, at, fmt::format("not valid JSON at byte {}: {}", at, rapidjson::GetParseError_En(code))};
}
constexpr const char* kSectionFormatExpected = ".format: expected \"flat\" or \"1\"…\"6\"";

// One PACK section read and encoded, or why not.
struct SectionPiece {
  std::uint64_t offset = 0;  // as read (PIDX entries name sections by it)
  std::vector<std::uint8_t> bytes;
  Error error;
  bool out_of_order = false;
};

// One PACK section object: its own members on a tape (TapeIn reads them when it closes), its
// models an item at a time, then the section encoded to its bytes. Its "format" must come before
// its "solo" and "inst".
class SectionReader : public TapeEvents<SectionReader> {
 public:
  explicit SectionReader(std::string path) : path_(std::move(path)) {}
  SectionPiece piece;

  bool scalar(const TapeToken& t) {
    switch (top()) {
      case Ctx::models: unit_.clear(); unit_.value(t); return model_done();
      case Ctx::section: member_key(); section_tape_.value(t); return true;
      case Ctx::capture: tape().value(t); return true;
      default: return stop(bad(path_ + kSectionFormatExpected));
    }
  }
  bool text(std::string_view s) {
    switch (top()) {
      case Ctx::models: unit_.clear(); unit_.text_value(TapeToken::string, s); return model_done();
      case Ctx::section:
        if (key_ == "format") {
          if (!parse_section_format(s, section_.format)) return stop(bad(path_ + kSectionFormatExpected));
          has_format_ = true;
        }
        member_key();
        section_tape_.text_value(TapeToken::string, s);
        return true;
      case Ctx::capture: tape().text_value(TapeToken::string, s); return true;
      default: return stop(bad(path_ + kSectionFormatExpected));
    }
  }
  bool key(std::string_view k) {
    if (top() == Ctx::section) key_.assign(k);
    else if (top() == Ctx::capture) tape().text_value(TapeToken::key, k);
    return true;
  }
  bool start(TapeToken::Kind kind) {
    const bool array = kind == TapeToken::array;
    if (stack_.empty()) {
      if (array || started_) return stop(bad(path_ + ": expected an object"));
      started_ = true;
      section_tape_.begin(TapeToken::object);
      stack_.push_back({Ctx::section, &section_tape_});
      return true;
    }
    switch (top()) {
      case Ctx::section:
        member_key();
        if (array && (key_ == "solo" || key_ == "inst")) {
          if (!has_format_) {
            piece.out_of_order = true;
            return stop(bad(path_ + ".format comes after its " + key_ +
                            " (sceneria writes it first; a document in another order is read whole)"));
          }
          inst_ = key_ == "inst";
          model_index_ = 0;
          list_path_ = path_ + "." + key_;
          section_tape_.value(streamed_token());
          stack_.push_back({Ctx::models, nullptr});
          return true;
        }
        section_tape_.begin(kind);
        stack_.push_back({Ctx::capture, &section_tape_});
        return true;
      case Ctx::models:
        unit_.clear();
        unit_.begin(kind);
        stack_.push_back({Ctx::capture, &unit_});
        return true;
      case Ctx::capture:
        tape().begin(kind);
        stack_.push_back({Ctx::capture, stack_.back().tape});
        return true;
      case Ctx::done: break;
    }
    return stop(bad(path_ + ": expected one object"));
  }
  bool end() {
    const Level level = stack_.back();
    stack_.pop_back();
    if (level.ctx == Ctx::section) {
      section_tape_.end();
      return section_done();
    }
    if (level.ctx == Ctx::capture) {
      level.tape->end();
      if (level.tape == &unit_ && level.tape->depth() == 0 && top() == Ctx::models) return model_done();
    }
    return true;
  }

 private:
  enum class Ctx : std::uint8_t { done, section, models, capture };
  struct Level {
    Ctx ctx;
    Tape* tape;  // capture: where tokens go
  };
  Ctx top() const { return stack_.empty() ? Ctx::done : stack_.back().ctx; }
  Tape& tape() { return *stack_.back().tape; }
  bool stop(Error e) {
    if (!piece.error) piece.error = std::move(e);
    return false;
  }
  void member_key() { section_tape_.text_value(TapeToken::key, key_); }
  static TapeToken streamed_token() {
    TapeToken t;
    t.kind = TapeToken::streamed;
    return t;
  }

  bool model_done() {
    if (inst_ && section_.format == SectionFormat::flat) return true;  // a flat section has no inst list
    TapeIn a(unit_, list_path_, model_index_++);
    const bool v13 = section_.format == SectionFormat::v13;
    if (inst_) {
      Instance& i = section_.inst.emplace_back();
      a.object("", [&] { fields(a, i, v13); });
    } else {
      Model& m = section_.solo.models.emplace_back();
      a.object("", [&] { fields(a, m, section_.solo, v13); });
    }
    return a.ok() || stop(a.error());
  }

  bool section_done() {
    if (!has_format_) return stop(bad(path_ + kSectionFormatExpected));
    TapeIn a(section_tape_, path_, 0, true);
    section_body(a, section_);
    if (!a.ok()) return stop(a.error());
    if (section_.format == SectionFormat::flat) section_.solo_count = static_cast<std::uint32_t>(section_.solo.models.size());
    if (const std::string problem = section_counts_problem(section_); !problem.empty()) return stop(bad(path_ + ".chunks: " + problem));
    if (const TapeToken* t = a.member("trailing_hex")) {
      std::string bytes;
      if (t->kind != TapeToken::string || !from_hex(a.text(*t), bytes)) return stop(bad(path_ + ".trailing_hex: bad hex"));
      section_.trailing.assign(bytes.begin(), bytes.end());
    }
    piece.offset = section_.offset;
    piece.bytes = encode_section(section_);
    return true;
  }

  std::string path_, key_, list_path_;
  std::vector<Level> stack_;
  Tape unit_, section_tape_;
  PackSection section_;
  bool started_ = false, has_format_ = false, inst_ = false;
  std::uint64_t model_index_ = 0;
};

// A section's text cut out of the document, then the rest of the document: a section too big to
// cut out whole is read by RapidJSON from here, its head from the copy, its tail from the input.
class ChainStream {
 public:
  using Ch = char;
  ChainStream(std::string_view head, std::size_t head_at, SourceStream& rest) : head_(head), head_at_(head_at), rest_(rest) {}
  Ch Peek() const { return at_ < head_.size() ? head_[at_] : rest_.Peek(); }
  Ch Take() { return at_ < head_.size() ? head_[at_++] : rest_.Take(); }
  std::size_t Tell() const { return at_ < head_.size() ? at_ : rest_.Tell() - head_at_; }  // from the head's start
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

 private:
  std::string_view head_;
  std::size_t head_at_, at_ = 0;
  SourceStream& rest_;
};

// Reads one section from `stream` (its text or the chain above); `at`: where it starts in the
// document, for messages.
template <class Stream>
SectionPiece read_section(Stream& stream, std::string path, std::size_t at) {
  SectionReader handler(std::move(path));
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag;
  const rapidjson::ParseResult parsed = reader.Parse<kFlags>(stream, handler);
  if (!parsed && !handler.piece.error) handler.piece.error = not_json(at + parsed.Offset(), parsed.Code());
  return std::move(handler.piece);
}

// Where an object that starts at '{' ends: fed the text in pieces, it tells how much of each
// belongs to the object (brackets counted outside strings; RapidJSON checks the rest). It runs
// on the reading thread for the whole PACK while the others parse, so it steps over eight
// characters at a time where none is a quote, a backslash or a bracket (twice the speed of a
// character loop in WebAssembly).
class ObjectEnd {
 public:
  // How many characters of `s` are the object's; `closed` once its last '}' is among them.
  std::size_t feed(std::string_view s, bool& closed) {
    const char* p = s.data();
    const char* const end = p + s.size();
    while (p < end) {
      if (escaped_) {
        escaped_ = false, ++p;
        continue;
      }
      p = next_special(p, end);
      if (p == end) break;
      const char c = *p++;
      if (in_string_) {
        if (c == '"') in_string_ = false;
        else if (c == '\\') escaped_ = true;
      } else if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if (c == '}' || c == ']') {
        if (--depth_ == 0) {
          closed = true;
          return static_cast<std::size_t>(p - s.data());
        }
      }
    }
    return s.size();
  }

 private:
  static constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  // The high bit of each byte that is zero; exact for the lowest such byte, which is all we use.
  static std::uint64_t zero_bytes(std::uint64_t v) { return (v - kOnes) & ~v & kHighs; }
  // The first '"', '\\', '{', '}', '[' or ']' from p ('[' and ']' are '{' and '}' less 0x20).
  static const char* next_special(const char* p, const char* end) {
    for (; end - p >= 8; p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      const std::uint64_t folded = w | (kOnes * 0x20);
      const std::uint64_t hits = zero_bytes(w ^ (kOnes * '"')) | zero_bytes(w ^ (kOnes * '\\')) |
                                 zero_bytes(folded ^ (kOnes * '{')) | zero_bytes(folded ^ (kOnes * '}'));
      if (hits) return p + (std::countr_zero(hits) >> 3);
    }
    for (; p < end; ++p)
      if (*p == '"' || *p == '\\' || *p == '{' || *p == '}' || *p == '[' || *p == ']') return p;
    return end;
  }
  std::int64_t depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

// The document as RapidJSON streams it: the members of the document and of each chunk are kept
// as small tapes (TapeIn reads them when they close), while the long lists (strings, records)
// are decoded an item at a time. A PACK's sections are cut out of the text as they come and read
// and encoded side by side (read_section), joined in order, so the module is never held decoded.
// Items need what their container says first ("id", a section's "format", "prefix_hex", and
// "version" and "strings" before "chunks"), as sceneria writes them; a document in another
// order sets `out_of_order` and the caller reads it as a tree instead.
class StreamReader : public TapeEvents<StreamReader> {
 public:
  StreamReader(SourceStream& stream, unsigned threads) : stream_(stream), threads_(threads) {}
  Module module;
  Error error;
  bool out_of_order = false;
  std::uint64_t pack_reserve = 0;

  bool key(std::string_view k) {
    switch (top()) {
      case Ctx::doc:
      case Ctx::chunk: key_.assign(k); return true;
      case Ctx::capture: tape().text_value(TapeToken::key, k); return true;
      default: return true;  // skip
    }
  }
  bool scalar(const TapeToken& t) {
    if (stack_.empty()) return stop(bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)"));
    switch (top()) {
      case Ctx::doc: return header(t);
      case Ctx::strings: unit_.clear(); unit_.value(t); return string_done();
      case Ctx::records: unit_.clear(); unit_.value(t); return record_done();
      case Ctx::chunk: member_key(); tape().value(t); return true;
      case Ctx::capture: tape().value(t); return true;
      case Ctx::chunks: return stop(bad(chunk_path() + ".id: expected a 4-character chunk id"));
      default: return true;
    }
  }
  bool text(std::string_view s) {
    if (stack_.empty()) return stop(bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)"));
    switch (top()) {
      case Ctx::doc:
        if (key_ == "format") format_ = s;
        return true;
      case Ctx::strings: unit_.clear(); unit_.text_value(TapeToken::string, s); return string_done();
      case Ctx::records: unit_.clear(); unit_.text_value(TapeToken::string, s); return record_done();
      case Ctx::chunk:
        if (key_ == "id") {
          if (!parse_chunk_id(std::string(s), chunk_.id)) return stop(bad(chunk_path() + ".id: expected a 4-character chunk id"));
          chunk_.data = empty_chunk_data(chunk_.id);
          has_id_ = true;
        } else if (key_ == "prefix_hex") {
          if (auto* pack = std::get_if<PackChunk>(&chunk_.data)) {
            std::string bytes;
            if (!from_hex(s, bytes)) return stop(bad(chunk_path() + ".prefix_hex: bad hex"));
            if (!pack->raw.empty() || sections_seen_) return reorder(chunk_path() + ".prefix_hex comes after its sections");
            pack->raw.assign(bytes.begin(), bytes.end());  // decode_pack finds the prefix in it
          }
        }
        member_key();
        tape().text_value(TapeToken::string, s);
        return true;
      case Ctx::capture: tape().text_value(TapeToken::string, s); return true;
      case Ctx::chunks: return stop(bad(chunk_path() + ".id: expected a 4-character chunk id"));
      default: return true;
    }
  }

  bool start(TapeToken::Kind kind) {
    const bool array = kind == TapeToken::array;
    if (stack_.empty()) {
      if (array || in_doc_seen_) return stop(bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)"));
      in_doc_seen_ = true;
      stack_.push_back({Ctx::doc, nullptr});
      return true;
    }
    switch (top()) {
      case Ctx::doc:
        if (stack_.size() == 1 && array && (key_ == "strings" || key_ == "chunks")) {
          if (key_ == "chunks" && !strings_seen_) return reorder("\"chunks\" comes before \"strings\"");
          if (key_ == "strings" && !format_.empty() && format_ != "eu7b")
            return stop(bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)"));
          if (Error e = check_header()) {
            // Header members after the lists are allowed in JSON, but not streamed.
            if (format_.empty() || schema_ < 0 || !has_version_) return reorder("\"format\", \"schema\" and \"version\" come after the lists");
            return stop(e);
          }
          (key_ == "strings" ? strings_seen_ : chunks_seen_) = true;
          stack_.push_back({key_ == "strings" ? Ctx::strings : Ctx::chunks, nullptr});
        } else {
          stack_.push_back({Ctx::skip, nullptr});
        }
        return true;
      case Ctx::skip: stack_.push_back({Ctx::skip, nullptr}); return true;
      case Ctx::strings:
      case Ctx::records:
        unit_.clear();
        unit_.begin(kind);
        stack_.push_back({Ctx::capture, &unit_});
        return true;
      case Ctx::chunks:
        if (array) return stop(bad(chunk_path() + ".id: expected a 4-character chunk id"));
        chunk_ = Chunk{};
        has_id_ = sections_seen_ = false;
        chunk_tape_.clear();
        chunk_tape_.begin(TapeToken::object);
        stack_.push_back({Ctx::chunk, &chunk_tape_});
        return true;
      case Ctx::chunk: {
        const bool records = key_ == "records", sections = key_ == "sections";
        if (array && (records || sections)) {
          if (!has_id_) return reorder(chunk_path() + ".id comes after its " + key_);
          const bool pack = std::holds_alternative<PackChunk>(chunk_.data);
          if (sections == pack) {
            record_index_ = 0;
            if (records) return stream_member(Ctx::records, chunk_path());
            sections_seen_ = true;
            // A PACK's bytes are about a third of its JSON: reserved once rather than regrown.
            std::get<PackChunk>(chunk_.data).raw.reserve(static_cast<std::size_t>(pack_reserve));
            return stream_member(Ctx::sections, chunk_path()) && read_sections();
          }
        }
        return capture_member(kind);
      }
      case Ctx::capture:
        tape().begin(kind);
        stack_.push_back({Ctx::capture, stack_.back().tape});
        return true;
      default: return true;
    }
  }

  bool end() {
    const Level level = stack_.back();
    stack_.pop_back();
    switch (level.ctx) {
      case Ctx::capture:
        level.tape->end();
        if (level.tape->depth() > 0 || level.tape != &unit_) return true;
        switch (top()) {
          case Ctx::strings: return string_done();
          case Ctx::records: return record_done();
          default: return true;
        }
      case Ctx::chunk: chunk_tape_.end(); return chunk_done();
      default: return true;
    }
  }

  // After a successful parse: the checks only the whole document allows.
  Error finish() {
    if (!in_doc_seen_) return bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)");
    if (!chunks_seen_) return bad("\"chunks\" must be an array");
    if (strings_used_ != module.strings.size())
      return bad(fmt::format("STRS chunks hold {} strings but \"strings\" has {}", strings_used_, module.strings.size()));
    // PIDX names sections by their offset in the PACK as read; they now lie where they were encoded.
    for (Chunk& c : module.chunks)
      if (auto* pidx = std::get_if<std::vector<PidxEntry>>(&c.data))
        for (PidxEntry& e : *pidx)
          if (auto it = new_offset_.find(e.pack_offset); it != new_offset_.end()) e.pack_offset = it->second;
    return {};
  }

 private:
  enum class Ctx : std::uint8_t { doc, skip, strings, chunks, chunk, records, sections, capture };
  struct Level {
    Ctx ctx;
    Tape* tape;  // capture: where tokens go
  };
  // A section's text bigger than this is not cut out but read as it comes, on this thread.
  static constexpr std::size_t kPieceLimit = std::size_t{8} << 20;

  Ctx top() const { return stack_.empty() ? Ctx::skip : stack_.back().ctx; }
  Tape& tape() { return *stack_.back().tape; }
  bool stop(Error e) {
    if (!error) error = std::move(e);
    return false;
  }
  bool reorder(std::string what) {
    out_of_order = true;
    return stop(bad(what + " (sceneria writes it first; a document in another order is read whole)"));
  }
  std::string chunk_path() const { return fmt::format("chunks[{}]", chunk_index_); }

  static TapeToken streamed_token() {
    TapeToken t;
    t.kind = TapeToken::streamed;
    return t;
  }
  // A member of a chunk: its name goes on the chunk's tape before its value.
  void member_key() { tape().text_value(TapeToken::key, key_); }
  // A member list whose items are read one at a time: only a mark on the object's tape.
  bool stream_member(Ctx list, const std::string& owner_path) {
    member_key();
    tape().value(streamed_token());
    list_path_ = owner_path + "." + key_;
    stack_.push_back({list, nullptr});
    return true;
  }
  // Any other container member: kept whole on the object's tape.
  bool capture_member(TapeToken::Kind kind) {
    member_key();
    Tape* object = stack_.back().tape;
    object->begin(kind);
    stack_.push_back({Ctx::capture, object});
    return true;
  }

  // Called as RapidJSON meets a PACK's "sections" list, with its '[' not yet taken: reads the
  // whole list from the input, then leaves " ]" for RapidJSON to end the list with.
  bool read_sections() {
    SourceStream& in = stream_;
    auto& pack = std::get<PackChunk>(chunk_.data);
    OrderedWork<SectionPiece> work(threads_, 2 * std::size_t{threads_} + 2, [&](SectionPiece&& piece) {
      if (piece.error) {
        out_of_order = out_of_order || piece.out_of_order;
        return stop(std::move(piece.error));
      }
      new_offset_[piece.offset] = pack.raw.size();
      pack.raw.insert(pack.raw.end(), piece.bytes.begin(), piece.bytes.end());
      return true;
    });
    const auto skip_space = [&] {
      while (in.Peek() == ' ' || in.Peek() == '\n' || in.Peek() == '\r' || in.Peek() == '\t') in.Take();
    };
    in.Take();  // '['
    skip_space();
    if (in.Peek() != ']') {
      for (std::uint64_t index = 0;; ++index) {
        const std::string path = fmt::format("{}.sections[{}]", chunk_path(), index);
        const std::size_t at = in.Tell();
        if (in.Peek() != '{') {
          const char c = in.Peek();
          if (c == '[') return stop(bad(path + ": expected an object"));
          if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') return stop(bad(path + kSectionFormatExpected));
          return stop(not_json(at, rapidjson::kParseErrorValueInvalid));
        }
        std::string text;
        ObjectEnd scan;
        bool closed = false;
        while (!closed && text.size() < kPieceLimit) {
          const std::string_view block = in.available();
          if (block.empty()) break;
          const std::size_t n = scan.feed(block, closed);
          text.append(block.data(), n);
          in.advance(n);
        }
        if (closed) {
          work.submit([text = std::make_shared<std::string>(std::move(text)), path, at] {
            rapidjson::StringStream stream(text->c_str());
            return read_section(stream, path, at);
          });
        } else {
          // Too big to cut out (or cut short by the end of the input): read where it lies.
          ChainStream stream(text, at, in);
          auto piece = std::make_shared<SectionPiece>(read_section(stream, path, at));
          if (piece->error) {
            // The input stopped somewhere inside it: the sections before it are taken first (an
            // error among them comes first), then this one's.
            if (!work.finish()) return false;
            out_of_order = out_of_order || piece->out_of_order;
            return stop(std::move(piece->error));
          }
          work.submit([piece] { return std::move(*piece); });
        }
        if (stream_.error()) return work.finish(), false;
        skip_space();
        if (in.Peek() == ',') {
          in.Take();
          skip_space();
          continue;
        }
        if (in.Peek() == ']') break;
        if (!work.finish()) return false;
        return stop(not_json(in.Tell(), rapidjson::kParseErrorArrayMissCommaOrSquareBracket));
      }
    }
    if (!work.finish()) return false;
    in.Take();  // ']'
    in.inject(" ]");
    return true;
  }

  bool header(const TapeToken& t) {
    const bool whole = t.kind == TapeToken::unsigned_int;
    if (key_ == "schema") {
      schema_ = whole ? static_cast<std::int64_t>(t.u) : -1;
    } else if (key_ == "version") {
      version_ = whole ? t.u : 0;
      has_version_ = whole;
    }
    return true;
  }
  Error check_header() {
    if (format_ != "eu7b") return bad("not an EU7B JSON document (\"format\": \"eu7b\" missing)");
    if (schema_ != kJsonSchemaVersion)
      return bad(fmt::format("unsupported EU7B JSON schema (this build reads schema {})", kJsonSchemaVersion));
    if (!has_version_) return bad("\"version\" missing");
    if (version_ < kMinVersion || version_ > kMaxVersion)
      return Error{Errc::unsupported_version, 0,
                   fmt::format("EU7B version {} is not supported (supported: {}-{})", version_, kMinVersion, kMaxVersion)};
    module.container.version = static_cast<std::uint32_t>(version_);
    return {};
  }

  bool string_done() {
    const TapeToken& t = unit_.tokens()[0];
    std::string bytes;
    bool ok = false;
    if (t.kind == TapeToken::string) {
      ok = string_from_form({}, unit_.text(t), bytes);
    } else if (t.kind == TapeToken::object && t.count == 1 && unit_.tokens()[2].kind == TapeToken::string) {
      const std::string_view form = unit_.text(unit_.tokens()[1]);
      ok = !form.empty() && string_from_form(form, unit_.text(unit_.tokens()[2]), bytes);
    }
    if (!ok)
      return stop(bad(fmt::format("strings[{}]: expected a string, {{\"cp1250\": …}} or {{\"hex\": …}}", module.strings.size())));
    module.strings.push_back(bytes);
    return true;
  }

  bool record_done() {
    const std::uint64_t index = record_index_++;
    bool ok = true;
    std::visit(
        [&](auto& d) {
          auto* records = records_of(d);
          using V = std::remove_pointer_t<decltype(records)>;
          if constexpr (!std::is_same_v<V, std::vector<int>>) {
            TapeIn a(unit_, list_path_, index);
            auto& r = records->emplace_back();
            a.object("", [&] { record_fields(a, d, r, module.container.version); });
            if (!a.ok()) ok = stop(a.error());
          }
        },
        chunk_.data);
    return ok;
  }

  bool chunk_done() {
    const std::string path = chunk_path();
    ++chunk_index_;
    if (!has_id_) return stop(bad(path + ".id: expected a 4-character chunk id"));
    Chunk& c = chunk_;
    TapeIn a(chunk_tape_, path, 0, true);
    auto hex = [&](const char* key, std::vector<std::uint8_t>& out, bool required) {
      const TapeToken* t = a.member(key);
      if (!t) return !required;
      std::string bytes;
      if (t->kind != TapeToken::string || !from_hex(a.text(*t), bytes)) return false;
      out.assign(bytes.begin(), bytes.end());
      return true;
    };
    if (const TapeToken* t = a.member("empty_payload")) c.empty_payload = t->kind == TapeToken::boolean && t->flag;
    if (!hex("trailing_hex", c.trailing, false)) return stop(bad(path + ".trailing_hex: bad hex"));
    if (auto* opaque = std::get_if<OpaqueChunk>(&c.data)) {
      if (!hex("hex", opaque->bytes, true)) return stop(bad(path + ".hex: bad hex"));
    } else if (auto* pack = std::get_if<PackChunk>(&c.data); pack && !sections_seen_ && a.member("hex")) {
      OpaqueChunk bytes;  // a PACK a later one replaces, as bytes (module_from_json does the same)
      if (!hex("hex", bytes.bytes, true)) return stop(bad(path + ".hex: bad hex"));
      c.data = std::move(bytes);
    } else if (pack) {
      if (!sections_seen_) return stop(bad(path + ".sections must be an array"));
      pack->loaded = true;
      pack->payload_size = pack->raw.size();
    } else {
      chunk_body(a, c, module.container.version);
      if (!a.ok()) return stop(a.error());
      if (auto* strs = std::get_if<StringsChunk>(&c.data)) {
        strs->first = strings_used_;
        strings_used_ += strs->count;
        if (strings_used_ > module.strings.size())
          return stop(bad(fmt::format("{}.count: STRS chunks claim {} strings but \"strings\" has {}", path, strings_used_,
                                      module.strings.size())));
      }
    }
    module.chunks.push_back(std::move(c));
    chunk_ = Chunk{};
    return true;
  }

  SourceStream& stream_;
  unsigned threads_;
  std::vector<Level> stack_;
  std::string key_;
  std::string list_path_;  // of the list whose items are being read, for messages
  Tape unit_, chunk_tape_;
  std::string format_;
  std::int64_t schema_ = -1;
  std::uint64_t version_ = 0;
  bool has_version_ = false, strings_seen_ = false, chunks_seen_ = false, in_doc_seen_ = false;
  Chunk chunk_;
  bool has_id_ = false, sections_seen_ = false;
  std::uint64_t chunk_index_ = 0, record_index_ = 0;
  std::uint32_t strings_used_ = 0;
  std::map<std::uint64_t, std::uint64_t> new_offset_;  // a section's offset as read -> as encoded
};

}  // namespace

Result<Module> read_module_json(ByteSource& source, std::uint64_t tree_limit, unsigned threads) {
  bool out_of_order = false;
  {
    SourceStream stream(source);
    StreamReader handler(stream, std::max(1u, threads));
    handler.pack_reserve = std::min<std::uint64_t>(source.size() / 3, std::uint64_t{1} << 30);
    rapidjson::Reader reader;
    // Iterative: a hostile document nested a million deep cannot exhaust the stack.
    const rapidjson::ParseResult parsed = reader.Parse<rapidjson::kParseIterativeFlag>(stream, handler);
    if (stream.error()) return stream.error();
    out_of_order = handler.out_of_order;
    if (!parsed && !out_of_order) {
      if (handler.error) return handler.error;
      return not_json(parsed.Offset(), parsed.Code());
    }
    if (!out_of_order) {
      if (Error e = handler.finish()) return e;
      return std::move(handler.module);
    }
    if (source.size() > tree_limit) return handler.error;
  }
  auto bytes = source.read_vector(0, source.size());
  if (!bytes) return bytes.error();
  auto j = njson::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (j.is_discarded()) return Error{Errc::bad_value, 0, "not valid JSON"};
  return module_from_json(j);
}

}  // namespace sceneria::eu7b
