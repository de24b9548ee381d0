#include "formats/eu7b/browse.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/eu7b/fields.hpp"
#include "formats/eu7b/json_archive.hpp"
#include "formats/eu7b/pack.hpp"

namespace sceneria::eu7b {

namespace {

constexpr std::uint64_t kMaxRowsPerCall = 2000;

struct KindInfo {
  const char* id;
  const char* label;
  std::uint32_t chunk;
};
constexpr KindInfo kKinds[] = {
    {"tracks", "Tracks", chunk::TRAK},         {"traction", "Traction", chunk::TRAC},
    {"models", "Models (MODL)", chunk::MODL},  {"shapes", "Shapes", chunk::MESH},
    {"lines", "Lines", chunk::LINE},           {"terrain", "Terrain", chunk::TERR},
    {"events", "Events", chunk::EVNT},         {"memcells", "Memory cells", chunk::MEMC},
    {"launchers", "Event launchers", chunk::LAUN}, {"dynamics", "Vehicles", chunk::DYNM},
    {"trainsets", "Trainsets", chunk::TRSE},   {"sounds", "Sounds", chunk::SOND},
    {"power", "Power sources", chunk::PWRS},   {"prototypes", "Prototypes", chunk::PROT},
    {"sections", "PACK sections", chunk::PIDX}, {"includes", "Includes", chunk::INCL},
};

const char* const kTrackTypes[] = {"unknown", "normal", "switch", "table", "cross", "tributary"};
const char* const kEventTypes[] = {"AddValues", "UpdateValues", "CopyValues", "GetValues", "PutValues", "Whois",
                                   "LogValues", "Multiple",  "Switch",     "TrackVel",  "Sound",     "Texture",
                                   "Animation", "Lights",    "Voltage",    "Visible",   "Friction",  "Message",
                                   "Unknown"};

// A streamed module loads its strings on demand: one not loaded yet shows as "…".
std::string text_of(const Module& m, Sid id) {
  if (id == kNoString || id >= m.string_count()) return std::string();
  return id < m.strings.size() ? display_text(m.strings[id]) : std::string("…");
}

std::string node_name(const Module& m, const SlimNode& n) {
  return (n.flags & node_flag::name) ? text_of(m, n.name) : std::string();
}

std::string xyz(const Vec3f& v) { return fmt::format("{:.1f}, {:.1f}, {:.1f}", v.x, v.y, v.z); }

// Long arrays (vertices) would swamp an inspector: keep the first few and say how many.
void shorten(ojson& j) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) shorten(v);
  } else if (j.is_array()) {
    if (j.size() > 12) {
      ojson short_array = ojson::array();
      for (std::size_t i = 0; i < 3; ++i) short_array.push_back(j[i]);
      short_array.push_back(fmt::format("… {} items in all", j.size()));
      j = std::move(short_array);
    }
    for (auto& v : j) shorten(v);
  }
}

// A legacy (unbatched) TERR chunk stores loose triangles: each is one terrain record, numbered
// after the chunk's batches, as to_scene numbers the objects it draws for them.
struct LegacyTriangle {
  const PackedVertex* v;
};
struct LegacyTriangles {
  const std::vector<PackedVertex>* v;
  std::size_t size() const { return v->size() / 3; }
  LegacyTriangle operator[](std::size_t i) const { return {v->data() + 3 * i}; }
};

// Calls f(records_vector, transforms_or_null) for the chunks of one kind, in file order.
template <class F>
void for_each_list(const Module& m, std::uint32_t id, F&& f) {
  for (const Chunk& c : m.chunks) {
    if (c.id != id) continue;
    std::visit(
        [&](const auto& d) {
          using T = std::decay_t<decltype(d)>;
          if constexpr (requires { d.records; }) f(d.records);
          else if constexpr (std::is_same_v<T, ModelList>) f(d.models);
          else if constexpr (std::is_same_v<T, PrototypeList>) f(d.prototypes);
          else if constexpr (std::is_same_v<T, Terrain>) {
            f(d.batches);
            f(LegacyTriangles{&d.legacy});
          }
          else if constexpr (std::is_same_v<T, std::vector<Include>> || std::is_same_v<T, std::vector<Trainset>> ||
                             std::is_same_v<T, std::vector<Event>> || std::is_same_v<T, std::vector<PidxEntry>>)
            f(d);
        },
        c.data);
  }
}

const KindInfo* find_kind(std::string_view id) {
  for (const KindInfo& k : kKinds)
    if (id == k.id) return &k;
  return nullptr;
}

}  // namespace

RecordBrowser::RecordBrowser(const Module& module, Live) : module_(module) {}

RecordBrowser::RecordBrowser(Module module) : owned_(std::move(module)), module_(owned_) {
  const PackChunk* pack = module_.pack();
  if (pack && pack->decoded) {
    pack_starts_.push_back(0);
    for (const PackSection& s : pack->sections) {
      pack_starts_.push_back(pack_starts_.back() + s.model_count());
      const PidxEntry* entry = nullptr;
      if (module_.pidx())
        for (const PidxEntry& e : *module_.pidx())
          if (e.pack_offset == s.offset && !entry) entry = &e;
      section_entry_.push_back(entry);
    }
  }
}

std::vector<RecordKind> RecordBrowser::kinds() const {
  std::vector<RecordKind> out;
  if (pack_models() > 0) out.push_back({"pack_models", "PACK models", pack_models()});
  for (const KindInfo& k : kKinds) {
    std::uint64_t n = 0;
    bool present = false;
    for_each_list(module_, k.chunk, [&](const auto& list) {
      present = true;
      n += list.size();
    });
    if (present && n > 0) out.push_back({k.id, k.label, n});
  }
  if (module_.string_count() > 0) out.push_back({"strings", "Strings", module_.string_count()});
  return out;
}

std::vector<ListInfo> RecordBrowser::lists() const {
  std::vector<ListInfo> out;
  for (const RecordKind& k : kinds()) out.push_back({k.id, k.label, k.count});
  return out;
}

RecordBrowser::PackIndex RecordBrowser::locate(std::uint64_t index) const {
  const auto it = std::upper_bound(pack_starts_.begin(), pack_starts_.end(), index);
  const auto section = static_cast<std::size_t>(it - pack_starts_.begin() - 1);
  return {section, static_cast<std::size_t>(index - pack_starts_[section])};
}

ojson RecordBrowser::rows(std::string_view kind, std::uint64_t first, std::uint64_t count) const {
  ojson out = ojson::array();
  count = std::min(count, kMaxRowsPerCall);
  auto row = [&](std::uint64_t i, std::string name, std::string detail) {
    out.push_back(ojson{{"i", i}, {"name", std::move(name)}, {"detail", std::move(detail)}});
  };
  if (kind == "pack_models") {
    const std::uint64_t end = std::min(pack_models(), first + count);
    const PackChunk* pack = module_.pack();
    std::size_t cached_section = SIZE_MAX;
    std::vector<ExpandedModel> expanded;
    for (std::uint64_t i = first; i < end; ++i) {
      const PackIndex at = locate(i);
      if (at.section != cached_section) {
        expanded = expand_section(pack->sections[at.section], module_.prototypes());
        cached_section = at.section;
      }
      const ExpandedModel& e = expanded[at.index];
      const PidxEntry* entry = section_entry_[at.section];
      row(i, text_of(module_, e.name),
          fmt::format("{} · section {},{} · {}", text_of(module_, e.file), entry ? entry->row : 0, entry ? entry->col : 0,
                      xyz(e.location)));
    }
    return out;
  }
  if (kind == "strings") {
    const std::uint64_t end = std::min<std::uint64_t>(module_.string_count(), first + count);
    for (std::uint64_t i = first; i < end; ++i) row(i, text_of(module_, static_cast<Sid>(i)), "");
    return out;
  }
  const KindInfo* k = find_kind(kind);
  if (!k) return out;
  std::uint64_t base = 0;
  for_each_list(module_, k->chunk, [&](const auto& list) {
    for (std::size_t j = 0; j < list.size(); ++j, ++base) {
      if (base < first || base >= first + count) continue;
      const auto& r = list[j];
      using T = std::decay_t<decltype(r)>;
      if constexpr (std::is_same_v<T, Track>)
        row(base, node_name(module_, r.node),
            fmt::format("{} · {:.1f} m · {} path{}", r.type < 6 ? kTrackTypes[r.type] : "?", r.length, r.paths.size(),
                        r.paths.size() == 1 ? "" : "s"));
      else if constexpr (std::is_same_v<T, Traction>)
        row(base, node_name(module_, r.node), fmt::format("{:.0f} V · {}", r.nominal_voltage, text_of(module_, r.power_supply)));
      else if constexpr (std::is_same_v<T, Model>)
        row(base, node_name(module_, r.node), fmt::format("{} · {}", text_of(module_, r.model_file), xyz(r.location)));
      else if constexpr (std::is_same_v<T, Prototype>)
        row(base, node_name(module_, r.node), text_of(module_, r.model_file));
      else if constexpr (std::is_same_v<T, Event>)
        row(base, text_of(module_, r.name),
            fmt::format("{} · {} target{}", r.type < 19 ? kEventTypes[r.type] : "?", r.targets.size(), r.targets.size() == 1 ? "" : "s"));
      else if constexpr (std::is_same_v<T, Include>)
        row(base, text_of(module_, r.source_path), text_of(module_, r.binary_path));
      else if constexpr (std::is_same_v<T, Trainset>)
        row(base, text_of(module_, r.name), fmt::format("{} vehicles on {}", r.vehicles.size(), text_of(module_, r.track)));
      else if constexpr (std::is_same_v<T, PidxEntry>)
        row(base, fmt::format("{}, {}", r.row, r.col), fmt::format("{} models", r.model_count));
      else if constexpr (std::is_same_v<T, TerrainBatch>)
        row(base, fmt::format("batch {}, {}", r.section_x, r.section_z), fmt::format("{} vertices", r.vertices.size()));
      else if constexpr (std::is_same_v<T, LegacyTriangle>)
        row(base, "triangle",
            fmt::format("{:.1f}, {:.1f}, {:.1f}", r.v[0].position[0], r.v[0].position[1], r.v[0].position[2]));
      else if constexpr (std::is_same_v<T, Shape>)
        row(base, node_name(module_, r.node), fmt::format("{} · {} vertices", text_of(module_, r.material), r.vertices.size()));
      else if constexpr (std::is_same_v<T, Line>)
        row(base, node_name(module_, r.node), fmt::format("{} vertices", r.vertices.size()));
      else if constexpr (std::is_same_v<T, MemCell>)
        row(base, node_name(module_, r.node), fmt::format("{} · {} · {}", text_of(module_, r.text), r.value1, r.value2));
      else if constexpr (std::is_same_v<T, EventLauncher>)
        row(base, node_name(module_, r.node), text_of(module_, r.event1));
      else if constexpr (std::is_same_v<T, Dynamic>)
        row(base, node_name(module_, r.node), fmt::format("{} on {}", text_of(module_, r.mmd), text_of(module_, r.track)));
      else if constexpr (std::is_same_v<T, Sound>)
        row(base, node_name(module_, r.node), text_of(module_, r.wav));
      else if constexpr (std::is_same_v<T, PowerSource>)
        row(base, node_name(module_, r.node), fmt::format("{:.0f} V", r.nominal_voltage));
    }
  });
  return out;
}

ojson RecordBrowser::search(std::string_view kind, std::string_view query, std::uint64_t limit) const {
  ojson out = ojson::array();
  std::uint64_t total = 0;
  for (const RecordKind& k : kinds())
    if (k.id == kind) total = k.count;
  constexpr std::uint64_t kPage = kMaxRowsPerCall;
  for (std::uint64_t first = 0; first < total && out.size() < limit; first += kPage) {
    for (auto& row : rows(kind, first, kPage)) {
      if (!icontains(row["name"].get<std::string>(), query) && !icontains(row["detail"].get<std::string>(), query)) continue;
      out.push_back(std::move(row));
      if (out.size() >= limit) break;
    }
  }
  return out;
}

ojson pack_model_record(const Module& module, const PackSection& s, const PidxEntry* entry, std::size_t index) {
  const auto expanded = expand_section(s, module.prototypes());
  if (index >= expanded.size()) return nullptr;
  return expanded_model_record(module, s, entry, expanded[index]);
}

ojson expanded_model_record(const Module& module, const PackSection& s, const PidxEntry* entry, const ExpandedModel& e) {
  ojson j;
  j["name"] = text_of(module, e.name);
  j["file"] = text_of(module, e.file);
  j["texture"] = text_of(module, e.texture);
  j["section"] = entry ? ojson{entry->row, entry->col} : ojson(nullptr);
  j["section_format"] = std::string(section_format_name(s.format));
  j["location"] = {e.location.x, e.location.y, e.location.z};
  j["angles"] = {e.angles.x, e.angles.y, e.angles.z};
  j["scale"] = {e.scale.x, e.scale.y, e.scale.z};
  j["terrain"] = e.terrain;
  j["transition"] = e.transition;
  j["range_min"] = std::sqrt(std::max(0.0f, e.range_sq_min));
  j["range_max"] = std::isinf(e.range_sq_max) ? ojson("unlimited") : ojson(std::sqrt(e.range_sq_max));
  if (e.cell != kNoCell) j["cell"] = e.cell;
  if (e.proto >= 0) {
    j["prototype"] = e.proto;
    j["pack_flags"] = e.flags;
  }
  if (e.solo) {
    j["lights"] = e.solo->lights.count;
    j["light_colors"] = e.solo->colors.count;
  }
  return j;
}

namespace {

// Enumerations of the format document (Eu7TrackType, Eu7TrackCategory, Eu7TrackEnvironment stored
// as enum + 1, Eu7EventType), shown by name beside the stored number: {"type": "switch", ...}.
ojson enum_labels(std::string_view kind, const ojson& record) {
  ojson labels = ojson::object();
  auto number = [&](const char* key) -> std::optional<std::uint64_t> {
    if (!record.contains(key) || !record[key].is_number_unsigned()) return std::nullopt;
    return record[key].get<std::uint64_t>();
  };
  if (kind == "tracks") {
    if (auto v = number("type"); v && *v < 6) labels["type"] = kTrackTypes[*v];
    static const std::map<std::uint64_t, const char*> categories = {{1, "rail"}, {2, "road"}, {4, "water"}};
    if (auto v = number("category"); v && categories.count(*v)) labels["category"] = categories.at(*v);
    static const char* const environments[] = {"unknown", "flat", "mountains", "canyon", "tunnel", "bridge", "bank"};
    if (auto v = number("environment"); v && *v < 7) labels["environment"] = environments[*v];
  } else if (kind == "events") {
    if (auto v = number("type"); v && *v < 19) labels["type"] = kEventTypes[*v];
  }
  return labels;
}

}  // namespace

ojson RecordBrowser::record(std::string_view kind, std::uint64_t index) const {
  ojson out = record_fields(kind, index);
  // "$labels": names for enumerated fields (the inspector shows "switch (2)").
  if (out.is_object())
    if (ojson labels = enum_labels(kind, out); !labels.empty()) out["$labels"] = std::move(labels);
  return out;
}

ojson RecordBrowser::record_fields(std::string_view kind, std::uint64_t index) const {
  const std::uint32_t version = module_.version();
  if (kind == "pack_models") {
    if (index >= pack_models()) return nullptr;
    const PackIndex at = locate(index);
    return pack_model_record(module_, module_.pack()->sections[at.section], section_entry_[at.section], at.index);
  }
  if (kind == "strings") {
    if (index >= module_.string_count()) return nullptr;
    if (index >= module_.strings.size()) return ojson{{"text", "…"}, {"loaded", false}};
    const auto bytes = module_.strings[static_cast<std::size_t>(index)];
    return ojson{{"text", display_text(bytes)}, {"bytes", bytes.size()}, {"utf8", is_valid_utf8(bytes)}};
  }
  const KindInfo* k = find_kind(kind);
  if (!k) return nullptr;
  ojson out = nullptr;
  std::uint64_t base = 0;
  for (const Chunk& c : module_.chunks) {
    if (c.id != k->chunk || !out.is_null()) continue;
    Chunk& chunk = const_cast<Chunk&>(c);  // JsonOut only reads
    std::visit(
        [&](auto& d) {
          using T = std::decay_t<decltype(d)>;
          auto emit = [&](auto& list, auto&& write) {
            if (index >= base && index < base + list.size()) {
              ojson j = ojson::object();
              JsonOut a(j, &module_.strings);
              write(a, list[static_cast<std::size_t>(index - base)]);
              shorten(j);
              out = std::move(j);
            }
            base += list.size();
          };
          if constexpr (requires { d.records; }) {
            emit(d.records, [&](JsonOut& a, auto& r) { fields(a, r, d.transforms); });
          } else if constexpr (std::is_same_v<T, ModelList>) {
            emit(d.models, [&](JsonOut& a, Model& r) { fields(a, r, d, false); });
          } else if constexpr (std::is_same_v<T, PrototypeList>) {
            emit(d.prototypes, [&](JsonOut& a, Prototype& r) { fields(a, r, d, version); });
          } else if constexpr (std::is_same_v<T, Terrain>) {
            emit(d.batches, [&](JsonOut& a, TerrainBatch& b) {
              a.i32("section_x", b.section_x);
              a.i32("section_z", b.section_z);
              vertices(a, "vertices", b.vertices);
            });
            const std::size_t triangles = d.legacy.size() / 3;
            if (out.is_null() && index >= base && index < base + triangles) {
              const auto at = static_cast<std::ptrdiff_t>(3 * (index - base));
              std::vector<PackedVertex> tri(d.legacy.begin() + at, d.legacy.begin() + at + 3);
              ojson j = ojson::object();
              JsonOut a(j, &module_.strings);
              vertices(a, "legacy_triangle", tri);
              out = std::move(j);
            }
            base += triangles;
          } else if constexpr (std::is_same_v<T, std::vector<Include>>) {
            emit(d, [&](JsonOut& a, Include& r) { fields(a, r, version); });
          } else if constexpr (std::is_same_v<T, std::vector<Trainset>> || std::is_same_v<T, std::vector<Event>> ||
                               std::is_same_v<T, std::vector<PidxEntry>>) {
            emit(d, [&](JsonOut& a, auto& r) { fields(a, r); });
          }
        },
        chunk.data);
  }
  return out;
}

}  // namespace sceneria::eu7b
