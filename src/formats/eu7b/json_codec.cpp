#include "formats/eu7b/json_codec.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/eu7b/fields.hpp"
#include "formats/eu7b/json_archive.hpp"
#include "formats/eu7b/reader.hpp"

namespace sceneria::eu7b {

namespace {

// The chunk body, shared by both directions: Archive is JsonOut or JsonIn.
template <class A>
void chunk_body(A& a, Chunk& c, std::uint32_t version) {
  std::visit(
      [&](auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, std::vector<Include>>) {
          a.list("records", d, 0, [&](Include& i) { a.object("", [&] { fields(a, i, version); }); });
        } else if constexpr (std::is_same_v<T, Placement>) {
          a.object("placement", [&] {
            a.u8("origin_x", d.origin_x);
            a.u8("origin_y", d.origin_y);
            a.u8("origin_z", d.origin_z);
            a.u8("rotation_y", d.rotation_y);
          });
        } else if constexpr (std::is_same_v<T, Terrain>) {
          a.object("terrain", [&] { fields(a, d); });
        } else if constexpr (std::is_same_v<T, ModelList>) {
          a.list("records", d.models, 0, [&](Model& m) { a.object("", [&] { fields(a, m, d, false); }); });
        } else if constexpr (std::is_same_v<T, PrototypeList>) {
          a.list("records", d.prototypes, 0, [&](Prototype& p) { a.object("", [&] { fields(a, p, d, version); }); });
        } else if constexpr (std::is_same_v<T, std::vector<Trainset>> || std::is_same_v<T, std::vector<Event>> ||
                             std::is_same_v<T, std::vector<PidxEntry>>) {
          a.list("records", d, 0, [&](auto& r) { a.object("", [&] { fields(a, r); }); });
        } else if constexpr (std::is_same_v<T, std::uint32_t>) {
          a.u32("value", d);
        } else if constexpr (std::is_same_v<T, StringsChunk>) {
          a.u32("count", d.count);
        } else if constexpr (std::is_same_v<T, OpaqueChunk> || std::is_same_v<T, PackChunk>) {
          // Byte payloads: handled by the callers (hex / sections).
        } else {
          a.list("records", d.records, 0, [&](auto& r) { a.object("", [&] { fields(a, r, d.transforms); }); });
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
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\\' && i + 3 < text.size() + 0 && text[i + 1] == 'x') {
      std::string b;
      if (!from_hex(text.substr(i + 2, 2), b)) return false;
      bytes += b;
      i += 4;
    } else {
      bytes += text[i++];
    }
  }
  if (bytes.size() != 4) return false;
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

ojson string_to_json(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return std::string(bytes);
  std::string text;
  if (decode_cp1250(bytes, text)) return ojson{{"cp1250", text}};
  return ojson{{"hex", to_hex(bytes)}};
}

bool string_from_json(const njson& j, std::string& bytes) {
  if (j.is_string()) {
    bytes = j.get<std::string>();
    return true;
  }
  if (j.is_object() && j.size() == 1) {
    if (j.contains("cp1250") && j["cp1250"].is_string()) return encode_cp1250(j["cp1250"].get<std::string>(), bytes);
    if (j.contains("hex") && j["hex"].is_string()) return from_hex(j["hex"].get<std::string>(), bytes);
  }
  return false;
}

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

}  // namespace sceneria::eu7b
