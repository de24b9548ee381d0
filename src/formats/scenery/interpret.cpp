#include "formats/scenery/interpret.hpp"

#include "core/parallel.hpp"
#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/to_scene.hpp"  // kSectionGrid

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>
#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

namespace sceneria::scenery {
namespace {

using namespace eu7b;

// A token the grammar keeps while it reads one statement: its text (a view into the source's
// bytes, or into the reader's arena when substituted or transient), its number, where it is.
struct Tok {
  TokenKind kind = TokenKind::word;
  std::string_view text;
  std::string_view original;  // an include's file name as written
  double value = 0;
  SourceRef at;
  bool substituted = false;  // a `(pN)` in it was replaced
  bool reread = false;       // read again after the writer's grammar refused its node
  bool number() const { return kind == TokenKind::number; }
  // The engine reads a field as a number from whatever token is there (leading digits only).
  double num() const { return kind == TokenKind::number ? value : leading_number(text); }
  std::string low() const { return lower(text); }
  // As the reference writer's node parsers read a number field (parse_writer_number).
  bool writer_number(double& v) const {
    if (kind == TokenKind::number) return v = value, true;
    return kind == TokenKind::word && parse_writer_number(text, v);
  }
  bool is(std::string_view word) const { return kind != TokenKind::number && iequals(text, word); }
  bool is_exactly(std::string_view word) const { return kind != TokenKind::number && text == word; }
  bool starts(std::string_view prefix) const { return kind != TokenKind::number && istarts_with(text, prefix); }
  // How a number reads back as a name or a value ("1.435", "0"): the text's own spelling, or the
  // shortest form of the value for a twin.
  std::string spelled() const { return !text.empty() || kind != TokenKind::number ? std::string(text) : fmt::format("{}", value); }
};

// A number read into a whole-number field: cut toward zero as the cast cuts it, held within an
// int32's range (a NaN is 0), where a bare cast of 1e51 would be undefined.
std::int32_t whole(double v) {
  if (!(v == v)) return 0;
  return static_cast<std::int32_t>(std::clamp(v, -2147483648.0, 2147483647.0));
}

// A node body read field by field, in order; a field past the end reads as 0 or empty.
struct Fields {
  const std::vector<Tok>& b;
  std::size_t i = 0;
  bool more() const { return i < b.size(); }
  const Tok* peek() const { return i < b.size() ? &b[i] : nullptr; }
  const Tok* next() { return i < b.size() ? &b[i++] : nullptr; }
  double num() { return i < b.size() ? b[i++].num() : 0.0; }
  float f32() { return static_cast<float>(num()); }
  std::string text() { return i < b.size() ? b[i++].spelled() : std::string(); }
};

// `(pN)` anywhere in a token → parameter N (1-based); missing or bad → `none` (notes B2).
std::string substitute(std::string_view s, const std::vector<std::string>& params) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "(p") == 0) {
      const std::size_t close = s.find(')', i + 2);
      if (close == std::string_view::npos) {  // substitution ends for this token
        out.append(s.substr(i));
        break;
      }
      const std::string_view digits = s.substr(i + 2, close - i - 2);
      std::size_t n = 0;
      bool ok = !digits.empty() && digits.size() < 6;
      for (char c : digits) ok = ok && c >= '0' && c <= '9', n = n * 10 + static_cast<std::size_t>(c - '0');
      out += ok && n >= 1 && n <= params.size() ? params[n - 1] : "none";
      i = close + 1;
      continue;
    }
    out.push_back(s[i++]);
  }
  return out;
}

const std::vector<std::string_view> kTrackTypes = {"", "normal", "switch", "table", "cross", "tributary"};
const std::vector<std::string_view> kEnvironments = {"", "flat", "mountains", "canyon", "tunnel", "bridge", "bank"};
const std::vector<std::string_view> kTails = {"",         "event0",   "eventall0",   "event1",  "eventall1", "event2", "eventall2",
                                              "velocity", "isolated", "overhead",    "vradius", "railprofile", "trackbed",
                                              "friction", "fouling1", "fouling2", "sleepermodel", "angle1", "angle2"};
const std::vector<std::string_view> kEventTypes = {"addvalues", "updatevalues", "copyvalues", "getvalues", "putvalues", "whois",
                                                   "logvalues", "multiple",     "switch",     "trackvel",  "sound",     "texture",
                                                   "animation", "lights",       "voltage",    "visible",   "friction",  "message"};

// Top-level blocks kept as directives, with what ends each.
const std::map<std::string, std::string_view, std::less<>> kBlocks = {
    {"atmo", "endatmo"},       {"time", "endtime"},     {"camera", "endcamera"}, {"config", "endconfig"},
    {"sky", "endsky"},         {"description", "enddescription"}, {"test", "endtest"}, {"light", "endlight"},
    {"terrain", "endterrain"}, {"isolated", "endisolated"}, {"area", "endarea"}, {"assignment", "endassignment"}};

// How each node type ends, as the reference writer reads them: at its terminator or a second
// spelling (a launcher's `endeventlauncher`); shapes and lines at any token starting with theirs
// (`endtriangles`, `endline_strip`), shapes not inside their material block. Models, shapes and
// lines are the visual nodes of the load passes.
struct NodeType {
  std::string_view end, also;
  bool prefix = false, material = false, visual = false;
  bool ends(std::string_view token) const {
    return prefix ? istarts_with(token, end) : iequals(token, end) || iequals(token, also);
  }
};
const std::map<std::string, NodeType, std::less<>> kNodeTypes = {
    {"track", {"endtrack", "endtrack"}},
    {"traction", {"endtraction", "endtraction"}},
    {"tractionpowersource", {"end", "end"}},
    {"model", {"endmodel", "endmodel", false, false, true}},
    {"triangles", {"endtri", "endtri", true, true, true}},
    {"triangle_strip", {"endtri", "endtri", true, true, true}},
    {"triangle_fan", {"endtri", "endtri", true, true, true}},
    {"lines", {"endline", "endline", true, false, true}},
    {"line_strip", {"endline", "endline", true, false, true}},
    {"line_loop", {"endline", "endline", true, false, true}},
    {"memcell", {"endmemcell", "endmemcell"}},
    {"eventlauncher", {"end", "endeventlauncher"}},
    {"sound", {"endsound", "endsound"}},
    {"dynamic", {"enddynamic", "enddynamic"}}};
// An unknown type: nothing ends it but the file (the reference stops at the next node); infra.
constexpr NodeType kUnknownNode{"endnode", "endnode"};

int index_of(const std::vector<std::string_view>& names, std::string_view word) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!names[i].empty() && names[i] == word) return static_cast<int>(i);
  return -1;
}

Vec3f v3(const glm::dvec3& v) { return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)}; }

// In float, as the reference writer rounds (0.9691 gives 31755).
std::int16_t snorm(double v) { return static_cast<std::int16_t>(std::lround(std::clamp(static_cast<float>(v), -1.0f, 1.0f) * 32767.0f)); }

// The reference EU7B writer's float → half: the rounding carry is OR-ed into the exponent's low
// bit, not added, so a value rounding up to the next power of two may come out half as big.
// Kept as it is: linia053-misja5.v6.eu7 holds such UVs. (eu7b/generator.cpp's to_half rounds
// correctly; the generated files do not claim to be the reference writer's.)
std::uint16_t half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exponent = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  const std::uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent <= 0) return static_cast<std::uint16_t>(sign);
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10) | ((mantissa + 0x1000u) >> 13));
}

// The reference writer's tolerance for lighting colours (runtime_codec.hpp kLightingEps).
constexpr float kLightingEpsilon = 1e-4f;
bool is_default(const Lighting& l) {
  const Lighting d;
  for (std::size_t k = 0; k < 4; ++k)
    if (std::abs(l.diffuse[k] - d.diffuse[k]) > kLightingEpsilon || std::abs(l.ambient[k] - d.ambient[k]) > kLightingEpsilon ||
        std::abs(l.specular[k] - d.specular[k]) > kLightingEpsilon)
      return false;
  return true;
}

// Text that outlives its token for the rest of a statement: substituted tokens, and those a source
// serves from a buffer it reuses. Blocks are kept and reused, statement after statement.
class TextArena {
 public:
  std::string_view keep(std::string_view s) {
    // Nothing to keep: before the first block there is no block to point into (block_ is kNone).
    if (s.empty()) return {};
    if (s.size() > kBlock / 4) return big_.emplace_back(s);  // rare: a huge token gets its own string
    if (used_ + s.size() > kBlock) {
      ++block_;  // from none (the largest value) to 0
      // Not zeroed: every byte is written before it is read (zeroing cost a small file more than reading it).
      if (block_ == blocks_.size()) blocks_.push_back(std::unique_ptr<char[]>(new char[kBlock]));
      used_ = 0;
    }
    char* at = blocks_[block_].get() + used_;
    std::memcpy(at, s.data(), s.size());
    used_ += s.size();
    return {at, s.size()};
  }
  void reset() {
    block_ = kNone;
    used_ = kBlock;
    big_.clear();
  }

 private:
  static constexpr std::size_t kBlock = 64 * 1024, kNone = static_cast<std::size_t>(-1);
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_ = kNone, used_ = kBlock;
  std::deque<std::string> big_;
};

struct State {
  std::vector<glm::dvec3> origins;  // cumulative
  glm::dvec3 rotation{0.0};         // degrees, absolute
  std::vector<glm::dvec3> scales;   // multiplicative
  glm::dvec3 origin() const { return origins.empty() ? glm::dvec3(0.0) : origins.back(); }
  glm::dvec3 scale() const { return scales.empty() ? glm::dvec3(1.0) : scales.back(); }
};

class Interpreter {
 public:
  Interpreter(Interpreted& out, const InterpretOptions& options) : out_(out), options_(options), pass_(options.pass) {
    // A visual pass continues the infrastructure pass's string table.
    if (pass_ == LoadPass::visual)
      for (std::size_t i = 0; i < out_.module.strings.size(); ++i) {
        id_text_.emplace_back(out_.module.strings[i]);
        ids_.emplace(id_text_.back(), static_cast<Sid>(i));
      }
  }

  // A part of a text read in parts (interpret()): it ends at the first statement at or past `at`,
  // and `met` says whether that statement starts exactly there with nothing open (no origin,
  // rotate, scale or group), the state the part after it started in.
  // `from` is where the part starts, `room_for` how many bytes of text its lists will hold (the
  // whole text for the first part, which the others are joined onto). Each part counts lines
  // from 1; `line` is the line, so counted, of the statement met at `at`, from which absorb()
  // learns how far to move the next part's line numbers.
  struct Cut {
    std::uint64_t at = UINT64_MAX;
    bool met = false;
    std::uint64_t from = 0, room_for = 0;
    std::uint32_t line = 0;
  };

  void run(TokenSource& source, std::uint32_t file, const std::vector<std::string>& params, std::uint32_t depth,
           Cut* cut = nullptr) {
    Reader r{source, file, params, {}, {}, {}, {}, {}, false, false};
    Tok t;
    const bool report = file == 0 && options_.progress;
    bool roomy = false;
    for (std::uint64_t n = 0; next(r, t); ++n) {
      // (A part that missed its cut reads on without a cut: it may not have sized its lists.)
      if (cut && !roomy && t.at.offset - cut->from >= kRoomSample) {
        make_room(static_cast<double>(cut->room_for) / static_cast<double>(t.at.offset - cut->from));
        roomy = true;
      }
      if (cut && t.at.offset >= cut->at) {
        cut->met = t.at.offset == cut->at && state_.origins.empty() && state_.scales.empty() &&
                   state_.rotation == glm::dvec3(0.0) && groups_.empty();
        if (cut->met) {
          cut->line = t.at.line;
          return;
        }
        cut = nullptr;  // the next part's start was wrong: this one reads on to the end instead
      }
      statement(r, t, depth);
      settle(r);
      r.arena.reset();  // nothing of a statement's tokens outlives it
      if (report && (n & 0x3FF) == 0) options_.progress(source.progress());
    }
  }

  // A part of a big text gives its lists room for all it will hold once it has read this much of
  // it, at the rate of records per byte seen so far and a margin. Otherwise they grow by
  // doubling, and each step copies into fresh memory, which the system zeroes page by page: on
  // the machines measured, that was a sixth of a compile's time. Room not used is address space
  // only, never touched.
  static constexpr std::uint64_t kRoomSample = std::uint64_t{1} << 20;

  void make_room(double scale) {
    const auto room = [scale](auto& list) { list.reserve(static_cast<std::size_t>(static_cast<double>(list.size()) * scale * 1.25) + 16); };
    const auto records = [&room](auto& list) {
      room(list.records);
      room(list.transforms);
    };
    records(tracks_);
    records(shapes_);
    records(lines_);
    records(traction_);
    records(power_);
    records(memcells_);
    records(launchers_);
    records(dynamics_);
    records(sounds_);
    room(models_.models);
    room(models_.transforms);
    room(events_);
    room(includes_);
  }

  void finish() {
    Module& m = out_.module;
    m.container.version = options_.root ? 9 : 6;
    order_records();
    std::vector<Chunk> pack_run;  // root: PIDX, PROT, PACK
    if (options_.root) pack_run = build_pack();
    if (seen_origin_) out_.placement = {placement_.origin_x, placement_.origin_y, placement_.origin_z, placement_.rotation_y};
    renumber_strings(pack_run);
    const auto count = static_cast<std::uint32_t>(m.strings.size());
    auto add = [&](std::uint32_t id, ChunkData data) { m.chunks.push_back(Chunk{id, 0, std::move(data), {}, false}); };
    // The reference writer's chunk order; STRS, INCL, TRAK and MESH always, the rest when used.
    add(chunk::STRS, StringsChunk{0, count});
    add(chunk::INCL, std::move(includes_));
    // Only a file with an `origin` is placed, by its first one's `(pN)` tokens and its first
    // rotate's second (include_placement.hpp extractIncludePlacement).
    if (seen_origin_ && (placement_.origin_x || placement_.origin_y || placement_.origin_z || placement_.rotation_y))
      add(chunk::PLAC, placement_);
    add(chunk::TRAK, std::move(tracks_));
    if (auto terrain = options_.reference_writer ? as_terrain() : std::nullopt) add(chunk::TERR, std::move(*terrain));
    else add(chunk::MESH, std::move(shapes_));
    if (!lines_.records.empty()) add(chunk::LINE, std::move(lines_));
    for (Chunk& c : pack_run) m.chunks.push_back(std::move(c));
    if (!models_.models.empty()) add(chunk::MODL, std::move(models_));
    if (!traction_.records.empty()) add(chunk::TRAC, std::move(traction_));
    if (!power_.records.empty()) add(chunk::PWRS, std::move(power_));
    if (!memcells_.records.empty()) add(chunk::MEMC, std::move(memcells_));
    if (!launchers_.records.empty()) add(chunk::LAUN, std::move(launchers_));
    if (!dynamics_.records.empty()) add(chunk::DYNM, std::move(dynamics_));
    if (!sounds_.records.empty()) add(chunk::SOND, std::move(sounds_));
    if (!trainsets_.empty()) add(chunk::TRSE, std::move(trainsets_));
    if (!events_.empty()) add(chunk::EVNT, std::move(events_));
    if (first_init_) add(chunk::FINT, first_init_);
    m.container.chunks.clear();
  }

  // TERR instead of MESH when every shape is plain terrain: a `triangles` node of one triangle,
  // unnamed, without ranges, group or origin/rotate/scale around it, all with the first one's
  // texture, translucency and lighting (runtime_codec.hpp canUseTerrEncoding). Its triangles are
  // batched by the section of their centroid, sections in (z, x) order, file order inside
  // (groupTerrShapesBySection); the section indices are not clamped.
  std::optional<Terrain> as_terrain() const {
    const auto& shapes = shapes_.records;
    if (shapes.empty() || centroids_.size() != shapes.size()) return std::nullopt;
    constexpr std::uint8_t kNotPlain = node_flag::name | node_flag::range_min | node_flag::range_max | node_flag::group |
                                       node_flag::transform | node_flag::not_visible;
    const Shape& first = shapes.front();
    const auto near = [](const std::array<float, 4>& a, const std::array<float, 4>& b) {
      for (std::size_t k = 0; k < 4; ++k)
        if (std::abs(a[k] - b[k]) > kLightingEpsilon) return false;
      return true;
    };
    for (const Shape& s : shapes) {
      if (s.subtype != 0 || s.vertices.size() != 3 || (s.node.flags & kNotPlain)) return std::nullopt;
      if (s.material != first.material || s.translucent != first.translucent) return std::nullopt;
      if (!near(s.lighting.diffuse, first.lighting.diffuse) || !near(s.lighting.ambient, first.lighting.ambient) ||
          !near(s.lighting.specular, first.lighting.specular))
        return std::nullopt;
    }
    Terrain t;
    t.flags = static_cast<std::uint8_t>(terrain_flag::batched | (first.translucent ? terrain_flag::translucent : 0) |
                                        (first.has_lighting ? terrain_flag::lighting : 0));
    t.material = first.material;
    t.lighting = first.lighting;
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> batch_of;  // (z, x) → batch
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const glm::dvec3& c = centroids_[i];
      const auto x = whole(std::floor(c.x / kSectionGrid.cell + kSectionGrid.centre));
      const auto z = whole(std::floor(c.z / kSectionGrid.cell + kSectionGrid.centre));
      auto [it, added] = batch_of.try_emplace({z, x}, t.batches.size());
      if (added) t.batches.push_back(TerrainBatch{x, z, {}});
      auto& into = t.batches[it->second].vertices;
      into.insert(into.end(), shapes[i].vertices.begin(), shapes[i].vertices.end());
    }
    std::vector<TerrainBatch> sorted;
    sorted.reserve(t.batches.size());
    for (const auto& [key, index] : batch_of) sorted.push_back(std::move(t.batches[index]));
    t.batches = std::move(sorted);
    return t;
  }

  // After a visual pass: its shapes fill the MESH chunk the infrastructure pass left empty; its
  // lines and models go after it, where finish() puts them. Strings stay in reading order (they
  // are the table both passes share; viewing never writes them).
  void finish_visuals() {
    Module& m = out_.module;
    auto at = std::find_if(m.chunks.begin(), m.chunks.end(), [](const Chunk& c) { return c.id == chunk::MESH; });
    if (at == m.chunks.end()) at = m.chunks.insert(m.chunks.end(), Chunk{chunk::MESH, 0, RecordList<Shape>{}, {}, false});
    std::get<RecordList<Shape>>(at->data) = std::move(shapes_);
    ++at;
    if (!lines_.records.empty()) at = 1 + m.chunks.insert(at, Chunk{chunk::LINE, 0, std::move(lines_), {}, false});
    if (!models_.models.empty()) m.chunks.insert(at, Chunk{chunk::MODL, 0, std::move(models_), {}, false});
    for (Chunk& c : m.chunks)
      if (auto* strs = std::get_if<StringsChunk>(&c.data)) strs->count = static_cast<std::uint32_t>(m.strings.size());
  }

  // The records of the part of the text after this one (read in parts, interpret()), joined on
  // as if this interpreter had read on: its strings interned here, its groups numbered after
  // these, its pool and list indices moved past these lists' ends, its line numbers moved down
  // by `lines` (it counted from 1). Parts follow no includes, so every file index is 0.
  void absorb(Interpreter& b, bool last, unsigned threads, std::uint32_t lines) {
    // Its strings take the id they have here, or a new one. The last part's new strings need no
    // interning (nothing looks them up again), which spares a hash map its growth.
    std::vector<Sid> ids(b.out_.module.strings.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string_view text = b.out_.module.strings[i];
      if (!last) {
        ids[i] = sid(text);
      } else if (auto it = ids_.find(text); it != ids_.end()) {
        ids[i] = it->second;
      } else {
        ids[i] = static_cast<Sid>(out_.module.strings.size());
        out_.module.strings.push_back(text);
      }
    }
    b.each_sid([&](Sid& s) {
      if (s != kNoString && s < ids.size()) s = ids[s];
    });
    const std::uint32_t groups = last_group_;
    auto shift = [&](SlimNode& n, std::size_t transforms) {
      if (n.flags & node_flag::transform) n.transform += static_cast<std::int32_t>(transforms);
      if (n.flags & node_flag::group) n.group += groups;
    };
    auto append = [](auto& into, auto& from) {
      into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
      from = {};  // given back now: the joined lists are what the memory is needed for
    };
    auto join = [&](auto& into, auto& from) {
      for (auto& r : from.records) shift(r.node, into.transforms.size());
      append(into.records, from.records);
      append(into.transforms, from.transforms);
    };
    // The big lists move on two threads: each list is joined by one of them only.
    run_shares(threads, [&](unsigned k) {
      if (k == 0 || threads < 2) {
        join(tracks_, b.tracks_);
        join(lines_, b.lines_);
        join(power_, b.power_);
        join(memcells_, b.memcells_);
        join(launchers_, b.launchers_);
        join(sounds_, b.sounds_);
      }
      if (k == 1 || threads < 2) {
        join(shapes_, b.shapes_);
        append(centroids_, b.centroids_);
        join(traction_, b.traction_);
      }
    });
    for (Model& m : b.models_.models) {
      shift(m.node, models_.transforms.size());
      m.lights.first += static_cast<std::uint32_t>(models_.light_states.size());
      m.colors.first += static_cast<std::uint32_t>(models_.light_colors.size());
    }
    append(models_.models, b.models_.models);
    append(models_.transforms, b.models_.transforms);
    append(models_.light_states, b.models_.light_states);
    append(models_.light_colors, b.models_.light_colors);
    const auto dynamics = static_cast<std::uint32_t>(dynamics_.records.size());
    const auto trainsets = static_cast<std::uint32_t>(trainsets_.size());
    for (Dynamic& d : b.dynamics_.records)
      if (d.has_trainset_index) d.trainset_index += trainsets;
    for (Trainset& t : b.trainsets_)
      for (std::uint32_t& v : t.vehicles) v += dynamics;
    join(dynamics_, b.dynamics_);
    append(trainsets_, b.trainsets_);
    append(events_, b.events_);
    for (Include& i : b.includes_) i.source_line += lines;
    append(includes_, b.includes_);
    first_init_ += b.first_init_;
    last_group_ += b.last_group_;
    if (!seen_origin_ && b.seen_origin_) {
      seen_origin_ = true;
      placement_.origin_x = b.placement_.origin_x;
      placement_.origin_y = b.placement_.origin_y;
      placement_.origin_z = b.placement_.origin_z;
    }
    if (!seen_rotate_ && b.seen_rotate_) {
      seen_rotate_ = true;
      placement_.rotation_y = b.placement_.rotation_y;
    }
    Interpreted& o = b.out_;
    const auto move_down = [lines](std::uint32_t& line) {
      if (line) line += lines;  // 0: no line (a twin's)
    };
    for (auto& [list, refs] : o.where) {
      for (SourceRef& at : refs) move_down(at.line);
      append(out_.where[list], refs);
    }
    for (Directive& d : o.directives) move_down(d.at.line);
    append(out_.directives, o.directives);
    for (Warning& w : o.warnings)
      if (out_.warnings.size() < 1000) {
        move_down(w.line);
        out_.warnings.push_back(std::move(w));
      }
    for (std::string& m : o.missing)
      if (std::find(out_.missing.begin(), out_.missing.end(), m) == out_.missing.end()) out_.missing.push_back(std::move(m));
    out_.nodes += o.nodes;
  }

 private:
  struct Reader {
    TokenSource& source;
    std::uint32_t file;
    const std::vector<std::string>& params;
    Token raw;
    TextArena arena;
    // Tokens read again: a node the reference writer's grammar refuses is read on from the token
    // after `node` (its parser rewinds to the node and skips that one token), and a token looked
    // at before it is taken. Their text lives in `kept` until they are all read again.
    std::deque<Tok> pending;
    std::deque<std::string> kept;
    Tok ahead;  // peek()'s token, its text as next() gave it (valid to the statement's end)
    bool has_ahead = false;
    bool quiet = false;  // after a refused node: its leftovers are not each a warning
  };

  // A model node's fields, however read.
  struct ModelFields {
    glm::dvec3 position{0.0};
    double ry = 0;
    Tok file, skin;
    bool has_file = true, has_skin = true;
    std::vector<float> lights;
    std::vector<std::uint32_t> colors;
    std::optional<glm::dvec3> angles, scale;  // inline `angles` and `scale`
    bool angles_replace = false;  // the engine replaces the angles; the reference writer adds them
    bool notransition = false;
  };

  // A shape node's fields, however read: its material block's colours, texture, vertices.
  struct ShapeFields {
    bool material = false;
    Lighting lighting;                // the block's colours / 255 (the default without one)
    std::vector<double> raw_colours;  // as written, ambient then diffuse (what decides if it counts)
    std::string texture;
    std::vector<std::array<double, 8>> vertices;  // x y z nx ny nz u v
  };

  bool next(Reader& r, Tok& t) {
    if (r.has_ahead) {
      t = r.ahead;
      r.has_ahead = false;
      return true;
    }
    if (!r.pending.empty()) {
      t = r.pending.front();
      r.pending.pop_front();
      return true;
    }
    if (!r.source.next(r.raw)) return false;
    t.kind = r.raw.kind;
    t.value = r.raw.value;
    t.text = r.raw.transient ? r.arena.keep(r.raw.text) : r.raw.text;
    t.original = r.raw.in_include ? r.arena.keep(r.raw.original) : std::string_view();  // only an include's file name needs it
    t.at = SourceRef{r.file, r.raw.offset, r.raw.line, r.raw.column};
    t.substituted = false;
    t.reread = false;
    if (!r.params.empty() && t.kind != TokenKind::number && t.text.find("(p") != std::string::npos) {
      std::string s = substitute(t.text, r.params);
      t.substituted = s != t.text;
      if (t.substituted) t.text = r.arena.keep(s);
    }
    // The reference writer's tokenizer splits at commas, the engine's does not: a twin (baked by
    // the engine's rules) holds `-926.3,0.0,7746.9` as one word, which the writer reads as three.
    if (options_.reference_writer && t.kind == TokenKind::word && t.text.find(',') != std::string_view::npos) {
      std::vector<Tok> parts;
      for (std::size_t from = 0; from <= t.text.size();) {
        const std::size_t comma = std::min(t.text.find(',', from), t.text.size());
        Tok part = t;
        part.text = t.text.substr(from, comma - from);
        if (double v; parse_number(part.text, v)) part.kind = TokenKind::number, part.value = v;
        if (!part.text.empty()) parts.push_back(part);
        from = comma + 1;
      }
      if (parts.empty()) return next(r, t);
      t = parts.front();
      unread(r, {parts.data() + 1, parts.size() - 1}, false);
    }
    return true;
  }

  // The next token without taking it (valid until the next token is read).
  const Tok* peek(Reader& r) {
    if (!r.has_ahead) {
      if (!next(r, r.ahead)) return nullptr;
      r.has_ahead = true;
    }
    return &r.ahead;
  }
  // `tokens` to be read again, before anything else (a peeked token after them). Their text is
  // copied: it may have been in the statement's arena.
  void unread(Reader& r, std::span<const Tok> tokens, bool again = true) {
    if (r.has_ahead) {
      r.has_ahead = false;
      Tok ahead = r.ahead;
      unread(r, {&ahead, 1}, ahead.reread);
    }
    for (std::size_t k = tokens.size(); k-- > 0;) {
      Tok t = tokens[k];
      t.reread = t.reread || again;
      t.text = r.kept.emplace_back(t.text);
      if (!t.original.empty()) t.original = r.kept.emplace_back(t.original);
      r.pending.push_front(t);
    }
  }
  // Between statements: a token looked at but not taken outlives the arena as a pending one.
  void settle(Reader& r) {
    if (r.has_ahead) unread(r, {});
    if (r.pending.empty()) r.kept.clear();
  }

  // Where a record came from, kept beside its list (InterpretOptions::sources).
  void located(const char* list, const SourceRef& at) {
    if (options_.sources) out_.where[list].push_back(at);
  }

  void warn(const SourceRef& at, std::string message) {
    Warning w;
    w.file = out_.files[at.file];
    w.offset = at.offset;
    w.line = at.line;
    w.column = at.column;
    w.message = std::move(message);
    if (out_.warnings.size() < 1000) out_.warnings.push_back(std::move(w));
  }

  Sid sid(std::string_view s) {
    if (auto it = ids_.find(s); it != ids_.end()) return it->second;
    const auto id = static_cast<Sid>(out_.module.strings.size());
    out_.module.strings.push_back(s);
    id_text_.emplace_back(s);  // a deque: the views in ids_ stay valid
    ids_.emplace(id_text_.back(), id);
    return id;
  }
  Sid name_sid(const std::string& s) { return iequals(s, "none") ? kNoString : sid(s); }

  // Tokens up to (and with) one of the terminators, or the end of the file.
  // `prefix`: a token starting with a terminator ends it too (`endline_strip`, `endlines`).
  std::vector<Tok> until(Reader& r, std::initializer_list<std::string_view> ends, bool* ended = nullptr, bool prefix = false) {
    std::vector<Tok> body;
    until(r, ends, body, ended, prefix);
    return body;
  }
  // The same into `body` (a buffer node() reuses, so a node costs no allocation).
  void until(Reader& r, std::initializer_list<std::string_view> ends, std::vector<Tok>& body, bool* ended, bool prefix) {
    Tok t;
    while (next(r, t)) {
      for (std::string_view e : ends)
        if (prefix ? t.starts(e) : t.is(e)) {
          if (ended) *ended = true;
          return;
        }
      body.push_back(t);
    }
    if (ended) *ended = false;
  }

  void statement(Reader& r, Tok& t, std::uint32_t depth) {
    const std::string k = t.low();
    if (k == "node" || k == "include" || k == "origin" || k == "endorigin" || k == "rotate" || k == "event" || k == "trainset")
      r.quiet = false;
    if (k == "include") return include(r, t, depth);
    if (k == "node") return node(r, t);
    // What the infrastructure pass recorded, a visual pass reads past.
    if (pass_ == LoadPass::visual && skip_in_inc(r, k)) return;
    if (k == "origin") {
      std::vector<Tok> args;
      const auto v = take(r, 3, &args);
      // The first origin and rotate of a file placed by its includer's parameters (`(p2)`) tell
      // the runtime which parameters place it (PLAC).
      if (!seen_origin_ && r.file == 0) {
        seen_origin_ = true;
        placement_.origin_x = param_number(args[0]);
        placement_.origin_y = param_number(args[1]);
        placement_.origin_z = param_number(args[2]);
      }
      state_.origins.push_back(state_.origin() + glm::dvec3(v[0], v[1], v[2]));
      return;
    }
    if (k == "endorigin") {
      if (!state_.origins.empty()) state_.origins.pop_back();
      else warn(t.at, "endorigin without origin");
      return;
    }
    if (k == "rotate") {
      std::vector<Tok> args;
      const auto v = take(r, 3, &args);
      if (!seen_rotate_ && r.file == 0) {
        seen_rotate_ = true;
        placement_.rotation_y = param_number(args[1]);
      }
      state_.rotation = {v[0], v[1], v[2]};
      return;
    }
    if (k == "scale") {
      auto v = take(r, 3);
      // The engine's fork takes a factor that is not positive for 1; the reference writer keeps it
      // (scene/scratch.hpp pushScale), and its compose then skips a zero one.
      if (!options_.reference_writer)
        for (double& f : v) f = f > 0 ? f : 1.0;
      state_.scales.push_back(state_.scale() * glm::dvec3(v[0], v[1], v[2]));
      return;
    }
    if (k == "endscale") {
      if (!state_.scales.empty()) state_.scales.pop_back();
      return;
    }
    if (k == "group") {
      // Numbered from 1 in the order they open; the reference writer numbers only outermost
      // groups, a nested one taking its parent's number (scene/scratch.hpp openGroup).
      groups_.push_back(options_.reference_writer && !groups_.empty() ? groups_.back() : ++last_group_);
      return;
    }
    if (k == "endgroup") {
      if (!groups_.empty()) groups_.pop_back();
      return;
    }
    if (k == "trainset") return trainset(r, t);
    if (k == "event") return event(r, t);
    if (k == "firstinit") {
      ++first_init_;
      return directive(t, {});
    }
    if (k == "lua") {
      Tok file;
      next(r, file);
      return directive(t, {file});
    }
    if (options_.reference_writer && (t.is_exactly("isolated") || t.is_exactly("area"))) {
      // isolated.hpp, area.hpp: a block that meets a top-level keyword (or one of a node's
      // own words) before its end is no block: the keyword was a stray token.
      std::vector<Tok> took;
      const std::string_view end = t.text == "isolated" ? "endisolated" : "endarea";
      for (Tok v; next(r, v);) {
        took.push_back(v);
        if (v.is_exactly(end)) return directive(t, {took.begin(), took.end() - 1});
        static constexpr std::string_view kStops[] = {"node", "include", "trainset", "event", "rotate", "origin", "scale",
                                                      "group", "isolated", "velocity", "rail_screw_used1", "endtrack",
                                                      "endtraction", "endtri", "endtriangles", "enddynamic", "endmodel",
                                                      "vis", "flat"};
        if (std::any_of(std::begin(kStops), std::end(kStops), [&](std::string_view w) { return v.is_exactly(w); })) break;
      }
      ++out_.unknown_tokens;
      unread(r, took, false);
      return;
    }
    if (auto it = kBlocks.find(k); it != kBlocks.end()) {
      bool ended = false;
      auto values = until(r, {it->second}, &ended);
      if (!ended) warn(t.at, fmt::format("{} without {}", t.text, it->second));
      return directive(t, values);
    }
    if (k == "editorterrain") return directive(t, {});
    ++out_.unknown_tokens;
    if (!t.reread && !r.quiet) warn(t.at, fmt::format("unexpected token '{}'", display_text(t.text)));
  }

  // Root compile: an `.inc`'s trainsets, events and directives are read past, not recorded
  // (and so are everyone's in a visual pass).
  bool skip_in_inc(Reader& r, const std::string& k) {
    if (k == "trainset") return until(r, {"endtrainset"}), true;
    if (k == "event") return until(r, {"endevent"}), true;
    if (k == "firstinit" || k == "editorterrain") return true;
    if (k == "lua") {
      Tok file;
      return next(r, file), true;
    }
    if (auto it = kBlocks.find(k); it != kBlocks.end()) return until(r, {it->second}), true;
    return false;
  }

  // The reference writer groups records by kind, each group in file order: tracks as rail
  // (switches after the rest), road, water; shapes as triangles, strips, fans; lines as lines,
  // strips, loops. Their source locations follow them.
  void order_records() {
    // bake/module.hpp: normal, turn and table; switches; roads; crossings; the rest (rivers,
    // tributaries, kinds it does not know, which read as type 0 on a rail).
    order_by("tracks", tracks_.records, [](const Track& t) {
      if (t.category == 2) return t.type == 4 ? 3 : 2;
      if (t.category == 1 && t.type != 0) return t.type == 2 ? 1 : 0;
      return 4;
    });
    if (!options_.reference_writer) return;  // viewed, shapes and lines stay in file order
    order_by("shapes", shapes_.records, [](const Shape& s) { return s.subtype; });
    order_by("lines", lines_.records, [](const Line& l) { return l.subtype; });
  }
  template <class T, class Key>
  void order_by(const std::string& list, std::vector<T>& records, Key key) {
    auto& where = out_.where[list];
    std::vector<std::size_t> order(records.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto before = [&](std::size_t a, std::size_t b) { return key(records[a]) < key(records[b]); };
    if (std::is_sorted(order.begin(), order.end(), before)) {  // already in the writer's order
      if (where.empty()) out_.where.erase(list);  // (the lookup above made it)
      return;
    }
    std::stable_sort(order.begin(), order.end(), before);
    std::vector<T> sorted;
    std::vector<SourceRef> refs;
    sorted.reserve(records.size());
    refs.reserve(where.size());
    for (std::size_t i : order) {
      sorted.push_back(std::move(records[i]));
      if (i < where.size()) refs.push_back(where[i]);
    }
    records = std::move(sorted);
    where = std::move(refs);
    if (where.empty()) out_.where.erase(list);
  }

  // Every string id the records hold (the root's .inc models and PACK aside), in the order the
  // reference writer meets them: chunk order, then field order.
  template <class F>
  void each_sid(F&& fix) {
    auto node = [&](SlimNode& n) { fix(n.name); };
    for (Include& r : includes_) {
      fix(r.source_path);
      fix(r.binary_path);
      for (Sid& p : r.parameters) fix(p);
    }
    for (Track& r : tracks_.records) {
      node(r.node);
      fix(r.visibility.material1);
      fix(r.visibility.material2);
      for (TrackTail& t : r.tails) fix(t.custom_key), fix(t.value);
    }
    for (Shape& r : shapes_.records) node(r.node), fix(r.material);
    for (Line& r : lines_.records) node(r.node);
    for (Model& r : models_.models) node(r.node), fix(r.model_file), fix(r.texture);
    for (Traction& r : traction_.records) node(r.node), fix(r.power_supply), fix(r.material_raw), fix(r.parallel);
    for (PowerSource& r : power_.records) node(r.node);
    for (MemCell& r : memcells_.records) node(r.node), fix(r.text), fix(r.track);
    for (EventLauncher& r : launchers_.records) {
      node(r.node);
      for (Sid* s : {&r.activation_key_raw, &r.event1, &r.event2, &r.memcell, &r.compare_text}) fix(*s);
    }
    for (Dynamic& r : dynamics_.records) {
      node(r.node);
      for (Sid* s : {&r.data_folder, &r.skin, &r.mmd, &r.track, &r.driver_type, &r.load_type, &r.coupling_params, &r.coupling_raw, &r.destination}) fix(*s);
    }
    for (Sound& r : sounds_.records) node(r.node), fix(r.wav);
    for (Trainset& r : trainsets_) {
      fix(r.name);
      fix(r.track);
      for (KeyValue& kv : r.assignments) fix(kv.key), fix(kv.value);
    }
    for (Event& r : events_) {
      fix(r.name);
      for (Sid& t : r.targets) fix(t);
      for (KeyValue& kv : r.payload) fix(kv.key), fix(kv.value);
    }
  }

  // The reference writer interns strings as it writes the chunks, so STRS holds them in chunk
  // order and, within a record, in field order: renumber what parsing interned on the way.
  // Interned strings are distinct, so this is a permutation by first use, without hashing again.
  void renumber_strings(std::vector<Chunk>& pack_run) {
    StringTable old = std::move(out_.module.strings);
    out_.module.strings = StringTable();
    out_.module.strings.reserve(old.size(), old.byte_size());
    std::vector<Sid> renumbered(old.size(), kNoString);
    auto fix = [&](Sid& s) {
      if (s == kNoString || s >= old.size()) return;
      if (renumbered[s] == kNoString) {
        renumbered[s] = static_cast<Sid>(out_.module.strings.size());
        out_.module.strings.push_back(old[s]);
      }
      s = renumbered[s];
    };
    each_sid(fix);
    auto node = [&](SlimNode& n) { fix(n.name); };
    // The .inc models' strings come last (the reference gathers them after the root's own
    // chunks): in PIDX order, file order within a section, name, mesh and skin of each.
    for (std::size_t i : pack_order_) {
      Model& r = pack_models_.models[i];
      node(r.node), fix(r.model_file), fix(r.texture);
    }
    for (Chunk& c : pack_run) {
      if (auto* prot = std::get_if<PrototypeList>(&c.data))
        for (Prototype& p : prot->prototypes) node(p.node), fix(p.model_file), fix(p.texture), fix(p.resolved_texture);
      if (auto* pack = std::get_if<PackChunk>(&c.data))
        for (PackSection& s : pack->sections) {
          for (Sid& id : s.meshes) fix(id);
          for (Sid& id : s.textures) fix(id);
          // Per sub-chunk: its solo records, then its inst records (v13 solo records hold list
          // indices, not string ids, for the mesh and skin).
          std::size_t solo = 0, inst = 0;
          for (const SectionChunkEntry& e : s.chunks) {
            for (std::uint32_t k = 0; k < e.solo && solo < s.solo.models.size(); ++k) node(s.solo.models[solo++].node);
            for (std::uint32_t k = 0; k < e.inst && inst < s.inst.size(); ++k) fix(s.inst[inst++].name);
          }
        }
    }
    ids_.clear();  // its ids are the old ones (nothing is interned after this)
    id_text_.clear();
  }

  // A composed PACK model as a record of the root (its strings in the root's table), with what
  // the writer keys and sorts it by.
  void add_pack_model(const PackModel& p) {
    Model m;
    if (!p.name.empty()) {
      m.node.flags |= node_flag::name;
      m.node.name = sid(p.name);
    }
    const double rmin_sq = p.range_min * p.range_min;
    const double rmax_sq = p.range_max >= 0 ? p.range_max * p.range_max : std::numeric_limits<double>::max();
    if (rmin_sq != 0) {
      m.node.flags |= node_flag::range_min;
      m.node.range_sq_min = static_cast<float>(rmin_sq);
    }
    if (p.range_max >= 0) {
      m.node.flags |= node_flag::range_max;
      m.node.range_sq_max = static_cast<float>(rmax_sq);
    }
    if (p.group) {
      m.node.flags |= node_flag::group;
      m.node.group = p.group;
    }
    m.terrain = p.terrain ? 1 : 0;
    m.transition = p.transition ? 1 : 0;
    m.location = v3(p.location);
    m.angles = v3(p.angles);
    m.scale = v3(p.scale);
    m.model_file = sid(p.file);
    m.texture = sid(p.texture);
    m.lights = {static_cast<std::uint32_t>(pack_models_.light_states.size()), static_cast<std::uint32_t>(p.lights.size())};
    pack_models_.light_states.insert(pack_models_.light_states.end(), p.lights.begin(), p.lights.end());
    m.colors = {static_cast<std::uint32_t>(pack_models_.light_colors.size()), static_cast<std::uint32_t>(p.colors.size())};
    pack_models_.light_colors.insert(pack_models_.light_colors.end(), p.colors.begin(), p.colors.end());
    pack_models_.models.push_back(m);
    pack_exact_.push_back({p.location.x, p.location.z, rmin_sq, rmax_sq});
  }

  // Root compile: the .inc models in their 1 km sections, in PIDX order (row, col) and file order
  // within each, handed to eu7b's converter, which lays them out as the reference writer's
  // version 9 does (format 6 sections, prototypes, cells; notes eu7b §5-§7).
  std::vector<Chunk> build_pack() {
    if (options_.pack_models)
      for (const PackModel& p : *options_.pack_models) add_pack_model(p);
    // The writer clamps a model outside the 500 x 500 grid into its edge sections.
    const auto clamped = [](int cell) { return static_cast<std::uint16_t>(std::clamp(cell, 0, kSectionGrid.cells - 1)); };
    std::map<std::pair<std::uint16_t, std::uint16_t>, std::vector<std::size_t>> sections;
    // By the unrounded location: a model at x.99999 whose f32 is x+1 stays in the section of x.
    for (std::size_t i = 0; i < pack_models_.models.size(); ++i) {
      const ConvertOptions::Exact& at = pack_exact_[i];
      sections[{clamped(kSectionGrid.row_of(at.z)), clamped(kSectionGrid.col_of(at.x))}].push_back(i);
    }
    std::vector<std::vector<ConvertOptions::Exact>> exact;
    Module flat;
    flat.container.version = 7;
    flat.strings = out_.module.strings;
    std::vector<PidxEntry> pidx;
    PackChunk pack;
    pack.loaded = pack.decoded = true;
    for (const auto& [key, models] : sections) {
      pack_order_.insert(pack_order_.end(), models.begin(), models.end());
      exact.emplace_back();
      for (std::size_t i : models) exact.back().push_back(pack_exact_[i]);
      PackSection s;
      s.offset = pidx.size();  // a placeholder: the writer lays the sections out
      for (std::size_t i : models) {
        Model mo = pack_models_.models[i];
        const auto span = [](auto& to, const auto& from, Span32 sp) {
          const Span32 out{static_cast<std::uint32_t>(to.size()), sp.count};
          to.insert(to.end(), from.begin() + sp.first, from.begin() + sp.first + sp.count);
          return out;
        };
        mo.lights = span(s.solo.light_states, pack_models_.light_states, mo.lights);
        mo.colors = span(s.solo.light_colors, pack_models_.light_colors, mo.colors);
        mo.node.flags &= static_cast<std::uint8_t>(~node_flag::transform);
        mo.node.transform = kNoTransform;
        s.solo.models.push_back(mo);
      }
      pidx.push_back({key.first, key.second, static_cast<std::uint32_t>(models.size()), s.offset});
      pack.sections.push_back(std::move(s));
    }
    flat.chunks.push_back(Chunk{chunk::PIDX, 0, std::move(pidx), {}, false});
    flat.chunks.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
    std::vector<std::string> losses;
    auto built = convert_module(flat, {.version = 9, .pack_format = SectionFormat::v13, .keep_pack_format = false,
                                       .allow_lossy = true, .losses = &losses, .exact = &exact});
    for (std::string& loss : losses) warn(SourceRef{}, std::move(loss));
    if (!built) {
      warn(SourceRef{}, fmt::format("the PACK models could not be laid out: {}", built.error().describe()));
      return {};
    }
    std::vector<Chunk> run;
    for (Chunk& c : built->chunks)
      if (c.id == chunk::PIDX || c.id == chunk::PROT || c.id == chunk::PACK) run.push_back(std::move(c));
    return run;
  }

  void directive(const Tok& t, const std::vector<Tok>& values) {
    Directive d;
    d.keyword = t.text;
    d.at = t.at;
    for (const Tok& v : values) d.values.push_back(v.spelled());
    out_.directives.push_back(std::move(d));
  }

  std::vector<double> take(Reader& r, int n, std::vector<Tok>* tokens = nullptr) {
    std::vector<double> v;
    Tok t;
    for (int i = 0; i < n && next(r, t); ++i) {
      v.push_back(t.num());
      if (tokens) tokens->push_back(t);
    }
    v.resize(static_cast<std::size_t>(n), 0.0);
    if (tokens) tokens->resize(static_cast<std::size_t>(n));
    return v;
  }

  // N of a `(pN)` token, else 0.
  static std::uint8_t param_number(const Tok& t) {
    if (t.kind == TokenKind::number || t.text.size() < 4 || t.text.compare(0, 2, "(p") != 0 || t.text.back() != ')') return 0;
    int n = 0;
    for (std::size_t i = 2; i + 1 < t.text.size(); ++i) {
      if (t.text[i] < '0' || t.text[i] > '9' || n > 25) return 0;
      n = n * 10 + (t.text[i] - '0');
    }
    return static_cast<std::uint8_t>(n <= 255 ? n : 0);
  }

  void include(Reader& r, const Tok& at, std::uint32_t depth) {
    Tok t;
    std::vector<std::string> words;
    std::string written;
    while (next(r, t)) {
      if (t.text == "end" && !words.empty()) break;
      if (words.empty()) written = t.original;
      words.push_back(t.spelled());
    }
    if (words.empty()) return warn(at.at, "include without a file name");
    std::string file = words.front();
    std::vector<std::string> params(words.begin() + 1, words.end());
    // A random set `[ a.inc b.inc ]`: the engine draws one on every load; the viewer draws one
    // that depends only on where the include is, so a scenery looks the same each time it opens.
    if (file == "[" && !options_.reference_writer) {
      const auto close = std::find(params.begin(), params.end(), "]");
      if (close != params.begin() && close != params.end()) {
        const auto choices = static_cast<std::size_t>(close - params.begin());
        file = lower(params[(at.at.offset * 2654435761u + at.at.file) % choices]);  // a file name, as the engine reads one
        params.erase(params.begin(), close + 1);
        written = file;
      }
    }
    for (char& c : file) c = c == '\\' ? '/' : c;
    if (pass_ == LoadPass::visual) return follow(at, file, params, depth);  // recorded by the first pass
    Include inc;
    inc.source_line = at.at.line ? at.at.line - 1 : 0;  // the reference counts lines from 0
    if (written.empty()) written = file;
    inc.source_path = sid(written);  // as written: the EU7B writer keeps the case
    inc.binary_path = sid(binary_path(written));
    for (const std::string& p : params) inc.parameters.push_back(sid(p));
    inc.site = context();
    includes_.push_back(std::move(inc));
    if (options_.exact) {
      IncludeSite site{written, params, state_.origin(), state_.scale(), state_.rotation, true};
      site.empty = state_.origins.empty() && state_.scales.empty() && groups_.empty() && state_.rotation == glm::dvec3(0.0);
      out_.include_sites.push_back(std::move(site));
    }
    located("includes", at.at);
    if (options_.root) return;  // what a root includes, compose_root_pack reads
    follow(at, file, params, depth);
  }

  // std::filesystem::path::replace_extension(".eu7") on a generic path (bake/module.hpp
  // textPathToBinaryPath): the extension is the file name's last `.…`, unless the name starts
  // with its only dot (or is `.` or `..`).
  static std::string binary_path(const std::string& written) {
    const std::size_t slash = written.rfind('/');
    const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
    const std::string_view file = std::string_view(written).substr(name);
    const std::size_t dot = file.rfind('.');
    const bool extension = dot != std::string_view::npos && dot > 0 && file != "..";
    return (extension ? written.substr(0, name + dot) : written) + ".eu7";
  }

  void follow(const Tok& at, const std::string& file, const std::vector<std::string>& params, std::uint32_t depth) {
    if (!options_.assets) return;
    if (depth >= options_.max_depth) return warn(at.at, fmt::format("include {} nested deeper than {} files: not followed", file, options_.max_depth));
    if (files_opened_ >= options_.max_files) return;
    const std::vector<std::string> candidates = {"scenery/" + file, file, "scenery/" + file + "b", file + "b"};
    auto source = options_.assets->open_first(candidates);
    if (!source) {
      if (std::find(out_.missing.begin(), out_.missing.end(), file) == out_.missing.end()) out_.missing.push_back(file);
      return;
    }
    auto bytes = source->read_vector(0, source->size());
    if (!bytes.ok()) return warn(at.at, fmt::format("include {}: {}", file, bytes.error().describe()));
    // A visual pass opens the files of the first pass again, in the same order: same indices.
    const auto index = static_cast<std::uint32_t>(files_opened_++);
    if (index >= out_.files.size()) out_.files.push_back(source->name());
    if (is_twin(bytes.value())) {
      auto twin = read_twin(bytes.value());
      if (!twin.ok()) return warn(at.at, fmt::format("include {}: {}", file, twin.error().describe()));
      TwinTokenSource child(twin.value());
      run(child, index, params, depth + 1);
    } else {
      TextTokenSource child(bytes.value(), {.writer = options_.reference_writer});
      run(child, index, params, depth + 1);
    }
    if (options_.keep_files && pass_ != LoadPass::visual) {
      if (!out_.kept_files) out_.kept_files = std::make_shared<MemoryAssets>();
      out_.kept_files->add(candidates.front(), std::move(bytes).value());
    }
  }

  // A record of a node kind: its slim node from the header, placed in `list`'s transform pool;
  // add() keeps it with where its node starts.
  template <class T>
  T start(const std::vector<Tok>& h, RecordList<T>& list) {
    T r;
    r.node = slim(h);
    place_context(r.node, list.transforms);
    return r;
  }
  template <class T>
  void add(RecordList<T>& list, T&& r, const char* id, const std::vector<Tok>& h) {
    list.records.push_back(std::move(r));
    located(id, h[0].at);
  }

  // x y z, read in that order (a braced list is evaluated left to right).
  static glm::dvec3 position(Fields& f) { return glm::dvec3{f.num(), f.num(), f.num()}; }

  SlimNode slim(const std::vector<Tok>& h) {
    SlimNode n;
    const double rmax = h[1].num(), rmin = h[2].num();
    // `none` is no name: any case for the engine, exactly so for the reference writer.
    const bool unnamed = options_.reference_writer ? h[3].text == "none" : iequals(h[3].text, "none");
    if (!unnamed && !h[3].text.empty()) {
      n.flags |= node_flag::name;
      n.name = sid(h[3].spelled());
    }
    if (rmax >= 0) {
      n.flags |= node_flag::range_max;
      n.range_sq_max = static_cast<float>(rmax * rmax);
    }
    if (rmin != 0) {  // a negative one (legacy terrain model) is squared too
      n.flags |= node_flag::range_min;
      n.range_sq_min = static_cast<float>(rmin * rmin);
    }
    if (!groups_.empty()) {  // the innermost open group
      n.flags |= node_flag::group;
      n.group = groups_.back();
    }
    return n;
  }

  // Where the node was placed (informational: coordinates are already baked), when any.
  TransformContext context() const {
    TransformContext c;
    for (const glm::dvec3& o : state_.origins) c.origins.push_back(v3(o));
    for (const glm::dvec3& k : state_.scales) c.scales.push_back(v3(k));
    c.rotation = v3(state_.rotation);
    c.group_depth = static_cast<std::uint8_t>(std::min<std::size_t>(groups_.size(), 255));
    return c;
  }
  void place_context(SlimNode& n, std::vector<TransformContext>& pool) const {
    TransformContext c = context();
    if (c.origins.empty() && c.scales.empty() && c.group_depth == 0 && c.rotation.x == 0 && c.rotation.y == 0 && c.rotation.z == 0) return;
    n.flags |= node_flag::transform;
    n.transform = static_cast<std::int32_t>(pool.size());
    pool.push_back(std::move(c));
  }

  // Position of point-like nodes: rotated about Y by the rotate's y, scaled, then moved (B5).
  glm::dvec3 place(const glm::dvec3& p) const {
    const double a = glm::radians(state_.rotation.y);
    const glm::dvec3 r{p.x * std::cos(a) + p.z * std::sin(a), p.y, -p.x * std::sin(a) + p.z * std::cos(a)};
    return r * state_.scale() + state_.origin();
  }
  // Shape vertices and normals: Z, then X, then Y by the full rotate (B5).
  // The matrix is made again only when the rotate changes (shapes turn every vertex by it).
  glm::dvec3 turn(const glm::dvec3& p) {
    if (!(state_.rotation == turned_by_)) {
      const glm::dvec3 r = glm::radians(state_.rotation);
      turn_ = glm::rotate(glm::dmat4(1.0), r.y, glm::dvec3(0, 1, 0));
      turn_ = glm::rotate(turn_, r.x, glm::dvec3(1, 0, 0));
      turn_ = glm::rotate(turn_, r.z, glm::dvec3(0, 0, 1));
      turned_by_ = state_.rotation;
    }
    return glm::dvec3(turn_ * glm::dvec4(p, 0.0));
  }

  void node(Reader& r, const Tok& at) {
    std::vector<Tok>& h = head_;
    h.assign(1, at);
    Tok t;
    while (h.size() < 5 && next(r, t)) h.push_back(std::move(t));
    if (h.size() < 5) return warn(at.at, "a node cut short by the end of the file");
    if (options_.reference_writer) return writer_node(r, h);
    const std::string type = h[4].low();
    const auto it = kNodeTypes.find(type);
    const NodeType* kind = it == kNodeTypes.end() ? nullptr : &it->second;
    // The other pass's nodes are read past without keeping a token (unknown types count as
    // infrastructure, as the baker classes them).
    const bool visual = kind && kind->visual;
    if (pass_ != LoadPass::all && visual != (pass_ == LoadPass::visual)) {
      skip_node(r, kind ? *kind : kUnknownNode);
      if (visual) ++out_.visual_nodes_left;
      return;
    }
    ++out_.nodes;
    if (!kind) {
      warn(h[4].at, fmt::format("node of unknown type '{}' skipped", display_text(h[4].text)));
      until(r, {kUnknownNode.end});
      return;
    }
    bool ended = false;
    std::vector<Tok>& b = body_;
    b.clear();
    if (kind->material) shape_body(r, &ended, b);
    else until(r, {kind->end, kind->also}, b, &ended, kind->prefix);
    if (!ended) {  // cut off by the end of the file: the reference writer drops it too
      warn(at.at, fmt::format("{} node without {} at the end of the file: skipped", type, kind->end));
      return;
    }
    if (options_.root && type == "model") return;  // a root's own models are compose_root_pack's
    build(type, h, b);
  }

  // A node's record from its header and body tokens, by its type.
  void build(const std::string& type, const std::vector<Tok>& h, const std::vector<Tok>& b) {
    if (type == "track") track(h, b);
    else if (type == "traction") traction(h, b);
    else if (type == "model") model(h, b, models_);
    else if (type.rfind("tri", 0) == 0) shape(h, b, type);
    else if (type.rfind("line", 0) == 0) line(h, b, type);
    else if (type == "memcell") memcell(h, b);
    else if (type == "eventlauncher") launcher(h, b);
    else if (type == "sound") sound(h, b);
    else if (type == "tractionpowersource") power(h, b);
    else if (type == "dynamic") dynamic(h, b, nullptr);
  }

  // A node as the reference EU7B writer's grammar reads it (scene/node.hpp parseInto): its
  // header's ranges must be numbers and its type one of the fourteen, spelled in lower case;
  // models and shapes are read token by token as its parsers do (a model's light list may run
  // on past `endmodel`), the other kinds up to their terminator. A node it refuses is not
  // skipped: it reads on from the token after `node`, as top-level statements.
  void writer_node(Reader& r, const std::vector<Tok>& h) {
    double rmax = 0, rmin = 0;
    const auto it = kNodeTypes.find(h[4].text);
    if (!h[1].writer_number(rmax) || !h[2].writer_number(rmin) || it == kNodeTypes.end() || h[4].kind != TokenKind::word)
      return refuse(r, h, {}, "a node header the reference writer does not read");
    const std::string type(h[4].text);
    const NodeType& kind = it->second;
    ++out_.nodes;
    std::vector<Tok> took;  // what the body's parser took, read again if it refuses the node
    const bool keep = !(options_.root && type == "model");  // a root's own models are compose_root_pack's
    if (type == "model") {
      ModelFields f;
      if (!writer_model(r, took, f)) return refuse(r, h, took, "a model the reference writer does not read");
      if (keep) store_model(h, f, models_);
      return;
    }
    if (kind.material) {
      ShapeFields f;
      if (!writer_shape(r, type, took, f)) return refuse(r, h, took, fmt::format("a {} node the reference writer does not read", type));
      if (keep) store_shape(h, f, type);
      return;
    }
    std::vector<Tok>& b = body_;
    b.clear();
    if (type.rfind("line", 0) == 0) {
      if (!writer_line_node(r, type, took)) return refuse(r, h, took, fmt::format("a {} node the reference writer does not read", type));
      if (keep) line(h, {took.begin(), took.end() - 1}, type);
      return;
    }
    if (type == "track") {
      if (!writer_track_node(r, took)) return refuse(r, h, took, "a track the reference writer does not read");
      if (keep) track(h, {took.begin(), took.end() - 1});
      return;
    }
    bool ended = false;
    until(r, {kind.end, kind.also}, b, &ended, kind.prefix);
    if (!ended) {  // cut off by the end of the file: the reference writer drops it too
      warn(h[0].at, fmt::format("{} node without {} at the end of the file: skipped", type, kind.end));
      return;
    }
    if (keep) build(type, h, b);
  }

  void refuse(Reader& r, const std::vector<Tok>& h, const std::vector<Tok>& took, std::string why) {
    ++out_.unknown_tokens;  // `node` itself
    warn(h[0].at, std::move(why) + ": read on as top-level tokens, as the writer does");
    r.quiet = true;
    std::vector<Tok> again(h.begin() + 1, h.end());
    again.insert(again.end(), took.begin(), took.end());
    unread(r, again);
  }

  // The reference writer's token-by-token reads: a token taken is kept in `took`.
  bool take(Reader& r, std::vector<Tok>& took, Tok& t) {
    if (!next(r, t)) return false;
    took.push_back(t);
    return true;
  }
  bool take_number(Reader& r, std::vector<Tok>& took, double& v) {
    Tok t;
    return take(r, took, t) && t.writer_number(v);
  }
  bool take_vec3(Reader& r, std::vector<Tok>& took, glm::dvec3& v) {
    return take_number(r, took, v.x) && take_number(r, took, v.y) && take_number(r, took, v.z);
  }
  bool next_is(Reader& r, std::string_view word) {
    const Tok* t = peek(r);
    return t && t->kind != TokenKind::number && t->text == word;
  }

  // node/model.hpp parseBody: x y z ry file skin, then in any order `lights` (numbers up to a
  // keyword or a non-number, which is taken and lost), `angles`, `lightcolors` (each a number
  // followed by any two tokens as green and blue, or a hex word; the first token that is neither
  // is taken and ends the list; only `notransition` and `scale` end it otherwise), `scale`,
  // `notransition`, anything else ignored; a later list replaces an earlier one.
  bool writer_model(Reader& r, std::vector<Tok>& took, ModelFields& f) {
    Tok t;
    if (!take_vec3(r, took, f.position) || !take_number(r, took, f.ry)) return false;
    if (!take(r, took, t)) return false;
    f.file = t;
    if (!take(r, took, t)) return false;
    f.skin = t;
    while (peek(r) && !next_is(r, "endmodel")) {
      take(r, took, t);
      if (t.is_exactly("lights")) {
        f.lights.clear();
        while (peek(r) && !next_is(r, "endmodel")) {
          if (next_is(r, "angles") || next_is(r, "lightcolors") || next_is(r, "notransition") || next_is(r, "scale")) break;
          double v = 0;
          if (!take_number(r, took, v)) break;
          f.lights.push_back(static_cast<float>(v));
        }
      } else if (t.is_exactly("angles")) {
        glm::dvec3 a;
        if (!take_vec3(r, took, a)) return false;
        f.angles = a;
      } else if (t.is_exactly("lightcolors")) {
        f.colors.clear();
        while (peek(r) && !next_is(r, "endmodel")) {
          if (next_is(r, "notransition") || next_is(r, "scale")) break;
          Tok c;
          take(r, took, c);
          double rgb[3] = {0, 0, 0};
          if (c.writer_number(rgb[0])) {
            Tok g, b;
            if (!take(r, took, g) || !take(r, took, b)) break;
            g.writer_number(rgb[1]);
            b.writer_number(rgb[2]);
          } else if (auto packed = stoi_hex(c.text)) {
            rgb[0] = (*packed >> 16) & 0xFF, rgb[1] = (*packed >> 8) & 0xFF, rgb[2] = *packed & 0xFF;
          } else {
            break;
          }
          std::uint32_t packed = 0;
          for (double v : rgb) packed = packed << 8 | static_cast<std::uint32_t>(whole(std::clamp(v, 0.0, 255.0)));
          f.colors.push_back(packed);
        }
      } else if (t.is_exactly("scale")) {
        glm::dvec3 k;
        if (!take_vec3(r, took, k)) return false;
        f.scale = k;
      } else if (t.is_exactly("notransition")) {
        f.notransition = true;
      }
    }
    return take(r, took, t);  // endmodel
  }

  // std::stoi(text, nullptr, 16) as the writer calls it on a light colour: leading white space,
  // a sign, an optional 0x, then hex digits as far as they go; nothing read or an int overflow
  // is an exception, which ends the list.
  static std::optional<std::int32_t> stoi_hex(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    if (i + 2 < text.size() + 1 && i + 1 < text.size() && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        i + 2 < text.size() && hex(text[i + 2]))
      i += 2;
    std::int64_t v = 0;
    std::size_t digits = 0;
    for (; i < text.size() && hex(text[i]); ++i, ++digits) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
      v = v * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
      if (v > std::int64_t{1} << 32) return std::nullopt;
    }
    if (digits == 0) return std::nullopt;
    if (negative) v = -v;
    if (v > std::numeric_limits<std::int32_t>::max() || v < std::numeric_limits<std::int32_t>::min()) return std::nullopt;
    return static_cast<std::int32_t>(v);
  }

  // node/triangles.hpp and node/mesh.hpp: a `triangles` node may open with a material block
  // (ambient, diffuse and specular in that order, each label with or without its colon, three
  // numbers each, then endmaterial); then the texture (any token); then vertices of eight numbers,
  // each optionally followed by `end`, up to `endtri` or the type's own end word.
  bool writer_shape(Reader& r, const std::string& type, std::vector<Tok>& took, ShapeFields& f) {
    Tok t;
    if (type == "triangles" && next_is(r, "material")) {
      take(r, took, t);
      f.material = true;
      f.lighting = Lighting{{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
      for (auto [label, rgb] : {std::pair{"ambient", &f.lighting.ambient}, std::pair{"diffuse", &f.lighting.diffuse},
                                std::pair{"specular", &f.lighting.specular}}) {
        const Tok* l = peek(r);
        if (!l || l->kind == TokenKind::number) return false;
        const std::string_view w = l->text;
        if (w != label && !(w.size() == std::strlen(label) + 1 && w.back() == ':' && w.substr(0, w.size() - 1) == label)) return false;
        take(r, took, t);
        double c[3];
        for (double& x : c)
          if (!take_number(r, took, x)) return false;
        if (rgb != &f.lighting.specular) f.raw_colours.insert(f.raw_colours.end(), c, c + 3);
        for (std::size_t k = 0; k < 3; ++k) (*rgb)[k] = static_cast<float>(c[k] / 255.0);
      }
      if (!next_is(r, "endmaterial")) return false;
      take(r, took, t);
    }
    if (!take(r, took, t)) return false;
    f.texture = t.spelled();
    const std::string own_end = type == "triangles" ? "endtriangles" : "end" + type;
    for (;;) {
      const Tok* e = peek(r);
      if (!e) return false;  // the file ended before the shape did
      if (next_is(r, "endtri") || next_is(r, own_end)) break;
      std::array<double, 8> v;
      for (double& x : v) {
        const Tok* n = peek(r);
        if (!n || !n->writer_number(x)) return false;
        take(r, took, t);
      }
      f.vertices.push_back(v);
      if (next_is(r, "end")) take(r, took, t);
    }
    return take(r, took, t);  // its end word
  }

  // node/track.hpp: the kind; numbers up to an environment word or a word that is not one (taken
  // as the environment in its place); `vis` (six texture fields follow), `unvis` or `novis` (any
  // case); then, in any order up to `endtrack`, known tail keywords with their values and paths
  // of fifteen numbers. An unknown word there refuses the track.
  bool writer_track_node(Reader& r, std::vector<Tok>& took) {
    Tok t;
    double v;
    const auto number_next = [&] {
      const Tok* n = peek(r);
      double x;
      return n && n->writer_number(x);
    };
    const auto environment = [](const Tok& e) {
      for (std::string_view w : {"flat", "mountains", "mountain", "canyon", "tunnel", "bridge", "bank"})
        if (e.is(w)) return true;
      return false;
    };
    if (!take(r, took, t)) return false;  // the kind
    while (const Tok* n = peek(r)) {
      if (environment(*n) || !number_next()) break;
      take(r, took, t);
    }
    if (!take(r, took, t)) return false;  // the environment
    if (!take(r, took, t)) return false;
    if (t.is("vis")) {
      Tok s;
      if (!take(r, took, s) || !take_number(r, took, v) || !take(r, took, s)) return false;
      for (int k = 0; k < 3; ++k)
        if (!take_number(r, took, v)) return false;
    } else if (!t.is("unvis") && !t.is("novis")) {
      return false;
    }
    static const std::map<std::string_view, int, std::less<>> kTail = {
        {"velocity", 1}, {"overhead", 1}, {"friction", 1}, {"vradius", 1}, {"angle1", 1}, {"angle2", 1},
        {"isolated", 0}, {"railprofile", 0}, {"trackbed", 0}, {"fouling1", 0}, {"fouling2", 0}, {"event0", 0},
        {"event1", 0}, {"event2", 0}, {"eventall0", 0}, {"eventall1", 0}, {"eventall2", 0}, {"sleepermodel", 2}};
    for (;;) {
      const Tok* n = peek(r);
      if (!n) return false;
      if (next_is(r, "endtrack")) break;
      const auto key = n->kind == TokenKind::number ? kTail.end() : kTail.find(n->text);
      if (key != kTail.end()) {
        take(r, took, t);
        if (key->second == 1 && !take_number(r, took, v)) return false;
        if (key->second == 0 && !take(r, took, t)) return false;
        if (key->second == 2) {  // spacing, model, skin, three offsets, bed lowering
          Tok s;
          if (!take_number(r, took, v) || !take(r, took, s) || !take(r, took, s)) return false;
          for (int k = 0; k < 4; ++k)
            if (!take_number(r, took, v)) return false;
        }
        continue;
      }
      if (!number_next()) return false;  // neither a keyword nor a path: not `endtrack` either
      for (int k = 0; k < 15; ++k)
        if (!take_number(r, took, v)) return false;
    }
    return take(r, took, t);  // endtrack
  }

  // node/lines.hpp, line_strip.hpp, line_loop.hpp: r g b width, then points (pairs of them for
  // `lines`), up to `endline` or the type's own end word.
  bool writer_line_node(Reader& r, const std::string& type, std::vector<Tok>& took) {
    double v;
    for (int k = 0; k < 4; ++k)
      if (!take_number(r, took, v)) return false;
    const std::string own_end = type == "lines" ? "endlines" : "end" + type;
    const int per = type == "lines" ? 6 : 3;
    for (;;) {
      if (!peek(r)) return false;
      if (next_is(r, "endline") || next_is(r, own_end)) break;
      for (int k = 0; k < per; ++k)
        if (!take_number(r, took, v)) return false;
    }
    Tok t;
    return take(r, took, t);
  }

  // A node of the other pass up to its terminator, as node() ends each type, keeping nothing.
  void skip_node(Reader& r, const NodeType& kind) {
    // A twin's marker holding this node alone is stepped over at once.
    if (r.source.skip_marked_node({kind.end, kind.also}, kind.prefix)) return;
    bool material = false;
    while (r.source.next(r.raw)) {
      if (r.raw.kind == TokenKind::number) continue;
      const std::string_view t = r.raw.text;
      if (kind.material && iequals(t, "material")) material = true;
      else if (kind.material && iequals(t, "endmaterial")) material = false;
      else if (!material && kind.ends(t)) return;
    }
  }

  // A shape's tokens up to `endtri`; the material block may hold anything, vertices may be
  // comma-joined (`1,0,2`: split, as the EU7B writer does, so they keep their geometry).
  void shape_body(Reader& r, bool* ended, std::vector<Tok>& b) {
    Tok t;
    *ended = false;
    bool material = false;
    while (next(r, t)) {
      if (t.is("material")) material = true;
      if (t.is("endmaterial")) material = false;
      if (!material && t.starts("endtri")) {
        *ended = true;
        break;
      }
      if (!material && t.kind == TokenKind::word && t.text.find(',') != std::string::npos) {
        std::size_t from = 0;
        for (;;) {
          const std::size_t comma = t.text.find(',', from);
          Tok part = t;
          part.text = t.text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
          double v;
          if (parse_number(part.text, v)) part.kind = TokenKind::number, part.value = v;
          if (!part.text.empty()) b.push_back(std::move(part));
          if (comma == std::string::npos) break;
          from = comma + 1;
        }
        continue;
      }
      b.push_back(std::move(t));
    }
  }

  void track(const std::vector<Tok>& h, const std::vector<Tok>& b) {
    Track tr = start(h, tracks_);
    std::size_t i = 0;
    auto word = [&]() -> const Tok* { return i < b.size() ? &b[i++] : nullptr; };
    auto num = [&]() { const Tok* t = word(); return t ? t->num() : 0.0; };
    const Tok* kind = word();
    const std::string k = kind ? kind->low() : "";
    tr.type = static_cast<std::uint8_t>(std::max(0, index_of(kTrackTypes, k == "turn" ? "table" : k)));
    tr.category = 1;
    if (k == "road") tr.type = 1, tr.category = 2;
    if (k == "river") tr.type = 0, tr.category = 4;  // as the reference writer stores it
    if (k == "cross") tr.category = 2;                 // a road crossing
    if (k == "tributary") tr.category = 4;
    tr.length = static_cast<float>(num());
    tr.width = static_cast<float>(num());
    tr.friction = static_cast<float>(num());
    tr.sound_distance = static_cast<float>(num());
    tr.quality = whole(num());
    tr.damage = whole(num());
    const Tok* env = word();
    // Stored as enum + 1; the reference writer compares the word as written (TD's `Flat` is 0).
    tr.environment = static_cast<std::uint8_t>(env ? std::max(0, index_of(kEnvironments, env->text == "mountain" ? "mountains" : env->text)) : 0);
    const Tok* vis = word();
    if (vis && vis->is("vis")) {
      tr.has_visibility = 1;
      const Tok* m1 = word();
      tr.visibility.material1 = m1 ? sid(m1->spelled()) : kNoString;
      tr.visibility.tex_length = static_cast<float>(num());
      const Tok* m2 = word();
      tr.visibility.material2 = m2 ? sid(m2->spelled()) : kNoString;
      tr.visibility.tex_height1 = static_cast<float>(num());
      tr.visibility.tex_width = static_cast<float>(num());
      tr.visibility.tex_slope = static_cast<float>(num());
    }
    const glm::dvec3 o = state_.origin();
    const int paths = tr.type == 2 || tr.type == 4 ? 2 : 1;  // switch and cross
    for (int p = 0; p < paths; ++p) {
      TrackPath path;
      path.p1 = v3(glm::dvec3{num(), num(), num()} + o);
      path.roll1 = static_cast<float>(num());
      path.cp_out = v3(glm::dvec3{num(), num(), num()});
      path.cp_in = v3(glm::dvec3{num(), num(), num()});
      path.p2 = v3(glm::dvec3{num(), num(), num()} + o);
      path.roll2 = static_cast<float>(num());
      path.radius = static_cast<float>(num());
      tr.paths.push_back(path);
    }
    while (i < b.size()) {  // tail keywords with their values
      const Tok& key = b[i++];
      TrackTail tail;
      const int code = index_of(kTails, key.low());
      tail.code = static_cast<std::uint8_t>(code > 0 ? code : 255);
      if (code <= 0) tail.custom_key = sid(key.spelled());
      std::string value = i < b.size() ? b[i++].spelled() : "";
      // Numeric tails are stored as their value's shortest spelling (`60.0` → `60`).
      if (double v; (code == 7 || code == 9 || code == 10 || code == 17 || code == 18) && parse_number(value, v)) value = fmt::format("{}", v);
      if (code == 16)  // sleepermodel: freq model skin ox oy oz ballastz
        for (int n = 0; n < 6 && i < b.size(); ++n) value += " " + b[i++].spelled();
      if (options_.reference_writer && (code == 17 || code == 18)) continue;  // angle1/angle2: the reference writer keeps neither
      tail.value = sid(value);
      tr.tails.push_back(tail);
    }
    // The reference writer stores the keywords in their code order (custom ones last).
    std::stable_sort(tr.tails.begin(), tr.tails.end(), [](const TrackTail& x, const TrackTail& y) { return x.code < y.code; });
    add(tracks_, std::move(tr), "tracks", h);
  }

  void traction(const std::vector<Tok>& h, const std::vector<Tok>& b) {
    Traction w = start(h, traction_);
    std::size_t i = 0;
    auto num = [&]() { return i < b.size() ? b[i++].num() : 0.0; };
    auto text = [&]() { return i < b.size() ? b[i++].spelled() : std::string(); };
    w.power_supply = sid(text());
    w.nominal_voltage = static_cast<float>(num());
    w.max_current = static_cast<float>(num());
    const double resistivity = num();
    w.resistivity_legacy = static_cast<float>(resistivity);
    // Compared at float precision: a twin replays 0.01 as 0.009999999776.
    w.resistivity = static_cast<float>((static_cast<float>(resistivity) == 0.01f ? 0.075 : resistivity) / 1000.0);
    const std::string material = text();
    w.material_raw = sid(material);
    // As the reference writer reads it: `al` aluminium, `none` none, anything else copper (`Al` too).
    w.material = static_cast<std::uint8_t>(material == "al" ? 2 : material == "none" ? 0 : 1);
    w.wire_thickness = static_cast<float>(num());
    w.damage = whole(num());
    const glm::dvec3 o = state_.origin();
    for (Vec3f* p : {&w.p1, &w.p2, &w.p3, &w.p4}) *p = v3(glm::dvec3{num(), num(), num()} + o);
    w.min_height = static_cast<float>(num());
    w.segment_length = static_cast<float>(num());
    w.wire_count = whole(num());
    w.wire_offset = static_cast<float>(num());
    if (i < b.size() && b[i++].is("unvis")) w.node.flags |= node_flag::not_visible;
    if (i + 1 < b.size() && b[i].is("parallel")) {
      w.has_parallel = 1;
      w.parallel = sid(b[i + 1].spelled());
    }
    add(traction_, std::move(w), "traction", h);
  }

  // The engine's reading of a model body (for viewing): lists run to the next keyword, a later
  // `angles` replaces the placement's, `scale`s multiply.
  void model(const std::vector<Tok>& h, const std::vector<Tok>& b, ModelList& into) {
    ModelFields f;
    f.angles_replace = true;
    std::size_t i = 0;
    auto num = [&]() { return i < b.size() ? b[i++].num() : 0.0; };
    f.position = {num(), num(), num()};
    f.ry = num();
    f.has_file = i < b.size();
    if (f.has_file) f.file = b[i++];
    f.has_skin = i < b.size();
    if (f.has_skin) f.skin = b[i++];  // `none` is stored as written
    static const std::vector<std::string_view> keywords = {"lights", "lightcolors", "angles", "scale", "notransition", "endmodel"};
    while (i < b.size()) {
      const std::string k = b[i++].low();
      if (k == "angles") f.angles = glm::dvec3{num(), num(), num()};
      else if (k == "scale") f.scale = f.scale.value_or(glm::dvec3(1.0)) * glm::dvec3{num(), num(), num()};
      else if (k == "notransition") f.notransition = true;
      else if (k == "lights" || k == "lightcolors") {
        while (i < b.size() && index_of(keywords, b[i].low()) < 0) {
          if (k == "lights") f.lights.push_back(static_cast<float>(b[i].num()));
          else f.colors.push_back(static_cast<std::uint32_t>(std::strtoul(b[i].spelled().c_str(), nullptr, 16)));
          ++i;
        }
      }
    }
    store_model(h, f, into);
  }

  void store_model(const std::vector<Tok>& h, const ModelFields& f, ModelList& into) {
    Model m;
    m.node = slim(h);
    // The reference writer lower-cases a name that had a parameter put in it (the engine's
    // parser does so for a consumer that wants lower case), and keeps other names as written.
    if (options_.reference_writer && h[3].substituted && (m.node.flags & node_flag::name)) m.node.name = sid(lower(h[3].text));
    place_context(m.node, into.transforms);
    m.terrain = header_number(h[2]) < 0 ? 1 : 0;
    m.transition = f.notransition ? 0 : 1;
    m.location = v3(place(f.position));
    glm::dvec3 angles = state_.rotation + glm::dvec3(0, f.ry, 0);
    if (f.angles) angles = f.angles_replace ? *f.angles : angles + *f.angles;
    m.angles = v3(angles);
    m.scale = v3(state_.scale() * f.scale.value_or(glm::dvec3(1.0)));
    m.model_file = f.has_file ? sid(f.file.spelled()) : kNoString;
    m.texture = f.has_skin ? sid(f.skin.spelled()) : kNoString;
    m.lights = {static_cast<std::uint32_t>(into.light_states.size()), static_cast<std::uint32_t>(f.lights.size())};
    into.light_states.insert(into.light_states.end(), f.lights.begin(), f.lights.end());
    m.colors = {static_cast<std::uint32_t>(into.light_colors.size()), static_cast<std::uint32_t>(f.colors.size())};
    into.light_colors.insert(into.light_colors.end(), f.colors.begin(), f.colors.end());
    into.models.push_back(m);
    located("models", h[0].at);
    if (!options_.exact) return;
    PackModel x;
    if (m.node.flags & node_flag::name) x.name = out_.module.strings[m.node.name];
    x.file = f.has_file ? f.file.spelled() : std::string();
    x.texture = f.has_skin ? f.skin.spelled() : std::string();
    x.location = place(f.position);
    x.angles = angles;
    x.scale = state_.scale() * f.scale.value_or(glm::dvec3(1.0));
    x.range_max = header_number(h[1]);
    x.range_min = header_number(h[2]);
    x.terrain = m.terrain != 0;
    x.transition = m.transition != 0;
    x.group = groups_.empty() ? 0 : groups_.back();
    x.lights = f.lights;
    x.colors = f.colors;
    out_.exact_models.push_back(std::move(x));
  }

  // A header range as the reading mode reads numbers.
  double header_number(const Tok& t) const {
    double v = 0;
    if (options_.reference_writer) return t.writer_number(v) ? v : 0.0;
    return t.num();
  }

  // The engine's reading of a shape body (for viewing): labels in any order, vertices of eight
  // fields and one separator of any spelling, leading digits of a field that is not a number.
  void shape(const std::vector<Tok>& h, const std::vector<Tok>& b, const std::string& type) {
    ShapeFields f;
    std::size_t i = 0;
    if (i < b.size() && b[i].is("material")) {
      f.material = true;
      ++i;
      while (i < b.size() && !b[i].is("endmaterial")) {
        const std::string k = b[i++].low();
        // `ambient:` or `ambient`: both spellings are in real files.
        const std::string_view label = !k.empty() && k.back() == ':' ? std::string_view(k).substr(0, k.size() - 1) : std::string_view(k);
        std::array<float, 4>* target = label == "ambient" ? &f.lighting.ambient : label == "diffuse" ? &f.lighting.diffuse
                                     : label == "specular" ? &f.lighting.specular : nullptr;
        if (!target) continue;
        for (int c = 0; c < 3 && i < b.size(); ++c) {
          const double v = b[i++].num();
          (*target)[static_cast<std::size_t>(c)] = static_cast<float>(v / 255.0);
          if (target != &f.lighting.specular) f.raw_colours.push_back(v);
        }
      }
      ++i;
    }
    f.texture = i < b.size() ? b[i++].spelled() : "";
    bool warned = false;
    while (i + 8 <= b.size()) {  // 8 numbers, then one separator of any spelling
      std::array<double, 8> v;
      for (double& x : v) {
        if (!b[i].number() && !warned) {
          warned = true;
          warn(b[i].at, fmt::format("shape vertex field '{}' is not a number: read as {}", display_text(b[i].text), b[i].num()));
        }
        x = b[i++].num();
      }
      f.vertices.push_back(v);
      if (i < b.size()) ++i;
    }
    store_shape(h, f, type);
  }

  void store_shape(const std::vector<Tok>& h, const ShapeFields& f, const std::string& type) {
    Shape s = start(h, shapes_);
    s.subtype = static_cast<std::uint8_t>(type == "triangles" ? 0 : type == "triangle_strip" ? 1 : 2);
    // The reference writer keeps a material only when an ambient or diffuse colour is not zero,
    // and stores the lighting only when it differs from the default (bake/mesh.hpp bakeTriangles,
    // codec writeLightingTagged).
    const bool counts = f.material && std::any_of(f.raw_colours.begin(), f.raw_colours.end(), [](double c) { return c != 0.0; });
    if (counts && !is_default(f.lighting)) {
      s.has_lighting = 1;
      s.lighting = f.lighting;
    }
    s.material = sid(f.texture);
    s.translucent = f.texture.find('@') != std::string::npos ? 1 : 0;
    std::vector<PackedVertex> vertices;
    std::vector<glm::dvec3> exact;  // for the bounds, before the float rounding
    const glm::dvec3 o = state_.origin();
    for (const auto& v : f.vertices) {
      glm::dvec3 p = turn({v[0], v[1], v[2]}) + o;
      // Stored as written, clamped to snorm16 (the reference writer does not normalise; legacy
      // normals like 0 2 0 are fixed when drawn).
      const glm::dvec3 n = turn({v[3], v[4], v[5]});
      PackedVertex pv;
      pv.position[0] = static_cast<float>(p.x), pv.position[1] = static_cast<float>(p.y), pv.position[2] = static_cast<float>(p.z);
      exact.push_back(p);
      pv.normal[0] = snorm(n.x), pv.normal[1] = snorm(n.y), pv.normal[2] = snorm(n.z);
      pv.uv[0] = half(static_cast<float>(v[6]));
      pv.uv[1] = half(static_cast<float>(v[7]));
      vertices.push_back(pv);
    }
    // Strips and fans become triangle lists (B4); degenerate triangles (no area to speak of) are
    // dropped, from plain triangle lists too, as the reference writer does. Tested on the
    // vertices as written, before origin and rotate (bake/geometry.hpp pushTriangle).
    auto degenerate = [&](std::size_t a, std::size_t c, std::size_t d) {
      const auto& A = f.vertices[a];
      const auto& C = f.vertices[c];
      const auto& D = f.vertices[d];
      const glm::dvec3 n = glm::cross(glm::dvec3(C[0] - A[0], C[1] - A[1], C[2] - A[2]), glm::dvec3(D[0] - A[0], D[1] - A[1], D[2] - A[2]));
      return n.x * n.x + n.y * n.y + n.z * n.z < 1e-12;
    };
    std::vector<glm::dvec3> kept;
    auto emit = [&](std::size_t a, std::size_t c, std::size_t d) {
      if (degenerate(a, c, d)) return;
      for (std::size_t k : {a, c, d}) {
        s.vertices.push_back(vertices[k]);
        kept.push_back(exact[k]);
      }
    };
    for (std::size_t k = 2; k < vertices.size(); ++k) {
      if (s.subtype == 0) {
        if (k % 3 == 2) emit(k - 2, k - 1, k);
      } else if (s.subtype == 1) {
        if (k % 2) emit(k - 1, k - 2, k);
        else emit(k - 2, k - 1, k);
      } else {
        emit(0, k - 1, k);
      }
    }
    exact = std::move(kept);
    bound(s.node, exact);
    // A lone triangle's centroid, unrounded: what sorts terrain into its section (TERR).
    centroids_.push_back(exact.size() == 3 ? (exact[0] + exact[1] + exact[2]) * (1.0 / 3.0)
                                           : glm::dvec3(std::numeric_limits<double>::quiet_NaN()));
    add(shapes_, std::move(s), "shapes", h);
  }

  void bound(SlimNode& node, const std::vector<glm::dvec3>& v) {
    // The reference writer's sphere: the vertices' mean, and the farthest vertex from it.
    if (v.empty()) return;
    glm::dvec3 sum(0.0);
    for (const glm::dvec3& p : v) sum += p;
    const glm::dvec3 centre = sum * (1.0 / static_cast<double>(v.size()));
    double radius = 0;
    for (const glm::dvec3& p : v) radius = std::max(radius, glm::length(p - centre));
    node.flags |= node_flag::bounds;
    node.bounds_center = v3(centre);
    node.bounds_radius = static_cast<float>(radius);
  }

  void line(const std::vector<Tok>& h, const std::vector<Tok>& b, const std::string& type) {
    Line l = start(h, lines_);
    l.subtype = static_cast<std::uint8_t>(type == "lines" ? 0 : type == "line_strip" ? 1 : 2);
    std::size_t i = 0;
    auto num = [&]() { return i < b.size() ? b[i++].num() : 0.0; };
    l.has_lighting = 1;
    const double r = num(), g = num(), bl = num();
    l.lighting.diffuse = {static_cast<float>(r / 255.0), static_cast<float>(g / 255.0), static_cast<float>(bl / 255.0), 1.0f};
    l.width = static_cast<float>(std::min(num(), 30.0));
    const glm::dvec3 o = state_.origin();
    std::vector<glm::dvec3> points;
    while (i + 3 <= b.size()) points.push_back(turn({num(), num(), num()}) + o);
    // Stored as segments: a strip's points joined in turn, a loop's closed back to its first.
    std::vector<glm::dvec3> segments;
    if (l.subtype == 0) {
      segments = std::move(points);
    } else {
      for (std::size_t k = 1; k < points.size(); ++k) segments.insert(segments.end(), {points[k - 1], points[k]});
      // Closed from two points on (bake/lines.hpp bakeLineLoop): two points make the segment twice.
      if (l.subtype == 2 && points.size() > 1) segments.insert(segments.end(), {points.back(), points.front()});
    }
    for (const glm::dvec3& p : segments) l.vertices.push_back(v3(p));
    bound(l.node, segments);
    add(lines_, std::move(l), "lines", h);
  }

  void memcell(const std::vector<Tok>& h, const std::vector<Tok>& b) {
    MemCell c = start(h, memcells_);
    Fields f{b, 3};  // x y z are not stored (the reference writer drops them)
    c.text = f.more() ? sid(f.text()) : kNoString;
    c.value1 = f.f32();
    c.value2 = f.f32();
    c.track = f.more() ? name_sid(f.text()) : kNoString;
    add(memcells_, std::move(c), "memcells", h);
  }

  void launcher(const std::vector<Tok>& h, const std::vector<Tok>& b) {
    EventLauncher l = start(h, launchers_);
    Fields f{b};
    l.location = v3(place(position(f)));
    const double radius = f.num();
    l.radius_sq = static_cast<float>(radius > 0 ? radius * radius : 0.0);  // unlimited as 0
    l.activation_key_raw = f.more() ? sid(f.text()) : kNoString;
    // As EvLaunch.cpp reads it: a positive time is hhmm once a day, a negative one a period.
    const double delta = f.num();
    l.hour = l.minute = -1;
    if (delta > 0) {
      l.minute = whole(delta) % 100;
      l.hour = (whole(delta) - l.minute) / 100;
    }
    l.delta_time = static_cast<float>(delta < 0 ? -delta : 0.0);
    l.event1 = f.more() ? name_sid(f.text()) : kNoString;
    l.event2 = sid("none");
    if (const Tok* t = f.peek(); t && !t->is("condition") && !t->is("traintriggered")) l.event2 = sid(f.text());
    while (f.more()) {
      const std::string k = f.next()->low();
      if (k == "traintriggered") l.train_triggered = 1;
      if (k == "condition" && f.i + 3 <= b.size()) {
        l.has_condition = 1;
        l.memcell = sid(f.text());
        const std::string text = f.text();
        l.compare_text = sid(text);
        // `*` leaves a field out of the comparison (EvLaunch.cpp: text 1, value 1 2, value 2 4).
        if (text != "*") l.check_mask |= 1;
        for (auto [bit, value] : {std::pair{2, &l.compare_value1}, std::pair{4, &l.compare_value2}})
          if (const Tok* v = f.next(); v && !v->is("*")) l.check_mask |= bit, *value = static_cast<float>(v->num());
      }
    }
    add(launchers_, std::move(l), "launchers", h);
  }

  void sound(const std::vector<Tok>& h, const std::vector<Tok>& b) {
    Sound s = start(h, sounds_);
    Fields f{b};
    s.location = v3(place(position(f)));
    s.wav = f.more() ? sid(f.text()) : kNoString;
    add(sounds_, std::move(s), "sounds", h);
  }

  void power(const std::vector<Tok>& h, const std::vector<Tok>& b) {
    PowerSource p = start(h, power_);
    Fields f{b};
    p.position = v3(place(position(f)));
    p.nominal_voltage = f.f32();
    p.frequency = f.f32();
    p.internal_resistance_legacy = f.f32();
    // The engine takes a resistance under 0.1 Ω for a mistake and uses 0.2 Ω (TractionPower.cpp).
    p.internal_resistance = p.internal_resistance_legacy < 0.1f ? 0.2f : p.internal_resistance_legacy;
    p.max_output_current = f.f32();
    p.fast_fuse_timeout = f.f32();
    p.fast_fuse_repetition = f.f32();
    p.slow_fuse_timeout = f.f32();
    while (const Tok* t = f.next()) {
      if (t->is("recuperation")) p.modifier = 1;
      if (t->is("section")) p.modifier = 2;
    }
    add(power_, std::move(p), "power", h);
  }

  void dynamic(const std::vector<Tok>& h, const std::vector<Tok>& b, Trainset* in) {
    Dynamic d = start(h, dynamics_);
    std::size_t i = 0;
    auto text = [&]() { return i < b.size() ? b[i++].spelled() : std::string(); };
    auto num = [&]() { return i < b.size() ? b[i++].num() : 0.0; };
    d.data_folder = sid(text());
    d.skin = sid(text());
    d.mmd = sid(text());
    if (!in) d.track = sid(text());
    d.offset = static_cast<float>(num());
    d.driver_type = sid(text());
    if (in) {
      const std::string coupling = text();
      d.coupling_raw = sid(coupling);
      d.coupling = whole(leading_number(coupling));
      if (auto dot = coupling.find('.'); dot != std::string::npos) d.coupling_params = sid(coupling.substr(dot + 1));
      d.track = in->track;
      d.velocity = in->velocity;  // a trainset's vehicles run at its speed
    } else {
      d.velocity = static_cast<float>(num());
      d.coupling = 3;  // a loose vehicle: both couplers free
      d.coupling_raw = sid("3");
    }
    d.load_count = whole(num());
    if (d.load_count > 0 && i < b.size()) d.load_type = sid(text());
    if (i + 1 < b.size() && (b[i].is("destination") || b[i].is("dest"))) {
      ++i;
      d.has_destination = 1;
      d.destination = sid(text());
    }
    if (in) {
      d.has_trainset_index = 1;
      d.trainset_index = static_cast<std::uint32_t>(trainsets_.size());
      in->vehicles.push_back(static_cast<std::uint32_t>(dynamics_.records.size()));
      in->couplings.push_back(d.coupling);
    }
    add(dynamics_, std::move(d), "dynamics", h);
  }

  void trainset(Reader& r, const Tok& at) {
    Trainset ts;
    Tok t;
    std::vector<Tok> head;
    while (head.size() < 4 && next(r, t)) head.push_back(t);
    head.resize(4);
    ts.name = sid(head[0].spelled());
    ts.track = sid(head[1].spelled());
    ts.offset = static_cast<float>(head[2].num());
    ts.velocity = static_cast<float>(head[3].num());
    while (next(r, t)) {
      if (t.is("endtrainset")) break;
      if (!t.is("node")) continue;
      std::vector<Tok> h{t};
      while (h.size() < 5 && next(r, t)) h.push_back(t);
      if (h.size() < 5) break;
      ++out_.nodes;
      bool ended = false;
      const auto b = until(r, {"enddynamic"}, &ended);
      if (h[4].is("dynamic")) dynamic(h, b, &ts);
    }
    if (ts.vehicles.empty()) ts.driver_index = UINT32_MAX;  // nobody to drive
    trainsets_.push_back(std::move(ts));
    located("trainsets", at.at);
  }

  void event(Reader& r, const Tok& at) {
    bool ended = false;
    const auto b = until(r, {"endevent"}, &ended);
    if (!ended) warn(at.at, "event without endevent");
    Event e;
    std::size_t i = 0;
    e.name = i < b.size() ? sid(b[i++].spelled()) : kNoString;
    const std::string type = i < b.size() ? b[i++].low() : "";
    const int t = index_of(kEventTypes, type);
    e.type = static_cast<std::uint8_t>(t >= 0 ? t : 18);
    e.delay = i < b.size() ? static_cast<float>(b[i++].num()) : 0.0f;
    if (i < b.size()) {
      const std::string targets = b[i++].spelled();
      std::size_t from = 0;
      while (from <= targets.size()) {
        const std::size_t cut = targets.find_first_of("|,", from);
        const std::string one = targets.substr(from, cut == std::string::npos ? std::string::npos : cut - from);
        if (!one.empty() && !iequals(one, "none")) e.targets.push_back(sid(one));
        if (cut == std::string::npos) break;
        from = cut + 1;
      }
    }
    while (i < b.size()) {
      const std::string k = b[i].low();
      if (k == "randomdelay" && i + 1 < b.size()) e.delay_random = static_cast<float>(b[i + 1].num()), i += 2;
      else if (k == "departuredelay" && i + 1 < b.size()) e.delay_departure = static_cast<float>(b[i + 1].num()), i += 2;
      else if (k == "passive") e.passive = 1, ++i;
      else e.payload.push_back({sid(b[i++].spelled()), kNoString});
    }
    // An event cut off before its name (`event` at the end of the file) has none to test.
    if (e.name != kNoString && istarts_with(lower(out_.module.strings[e.name]), "none_")) e.ignored = 1;
    events_.push_back(std::move(e));
    located("events", at.at);
  }

  Interpreted& out_;
  const InterpretOptions& options_;
  LoadPass pass_;
  std::vector<Tok> head_, body_;  // node()'s, kept for their capacity
  std::uint64_t files_opened_ = 1;  // [0] is the scenery itself
  State state_;
  std::unordered_map<std::string_view, Sid, ShortStringHash> ids_;
  std::deque<std::string> id_text_;
  std::vector<Include> includes_;
  RecordList<Track> tracks_;
  RecordList<Shape> shapes_;
  std::vector<glm::dvec3> centroids_;  // per shape: its triangle's centroid, NaN unless one triangle
  RecordList<Line> lines_;
  ModelList models_;
  ModelList pack_models_;  // root compile: the models of .inc files, for PACK
  std::vector<std::size_t> pack_order_;  // their indices in PIDX order
  std::vector<ConvertOptions::Exact> pack_exact_;  // per pack model: unrounded location and ranges
  RecordList<Traction> traction_;
  RecordList<PowerSource> power_;
  RecordList<MemCell> memcells_;
  RecordList<EventLauncher> launchers_;
  RecordList<Dynamic> dynamics_;
  RecordList<Sound> sounds_;
  std::vector<Trainset> trainsets_;
  std::vector<Event> events_;
  std::uint32_t first_init_ = 0;
  Placement placement_;
  glm::dvec3 turned_by_{std::numeric_limits<double>::quiet_NaN()};  // the rotate turn_ was made for
  glm::dmat4 turn_{1.0};
  std::vector<std::uint32_t> groups_;  // the open groups' numbers (their count is the depth)
  std::uint32_t last_group_ = 0;
  bool seen_origin_ = false, seen_rotate_ = false;
};

}  // namespace

namespace {

// A big text read whole with no includes to follow (what a compile to EU7B reads) is cut into
// one part per thread at lines that start a node, each part read by an interpreter of its own
// from the grammar's first state, side by side; the parts are then joined in order. A part is
// kept only if the one before it ended exactly at its start with nothing open, the state it
// assumed; otherwise that one had read on to the end, and the parts after it are dropped. So the
// result is the one-pass result, whatever the text: the same records, strings, order, warnings.
std::optional<Interpreted> interpret_in_parts(TokenSource& source, const std::string& file_name, const InterpretOptions& options) {
  auto* text = dynamic_cast<TextTokenSource*>(&source);
  if (options.threads < 2 || !text || !text->untouched() || options.assets || options.root || options.pass != LoadPass::all)
    return std::nullopt;
  const std::span<const std::uint8_t> bytes = text->bytes();
  const std::vector<std::size_t> starts = text_part_starts(bytes, options.threads);
  const std::size_t n = starts.size();
  if (n < 2) return std::nullopt;

  struct Part {
    Interpreted out;
    InterpretOptions options;
    std::unique_ptr<Interpreter> in;
    Interpreter::Cut cut;
  };
  std::vector<Part> parts(n);
  for (std::size_t k = 0; k < n; ++k) {
    Part& p = parts[k];
    p.out.files.push_back(file_name);
    p.options = options;
    p.options.progress = {};
    p.cut.at = k + 1 < n ? starts[k + 1] : UINT64_MAX;
    p.cut.from = starts[k];
    p.cut.room_for = (k == 0 ? bytes.size() : (k + 1 < n ? starts[k + 1] : bytes.size())) - starts[k];
  }
  // The first part tells the progress, as a share of its own length.
  if (options.progress)
    parts[0].options.progress = [&](double done) {
      options.progress(std::min(1.0, done * static_cast<double>(bytes.size()) / static_cast<double>(starts[1])));
    };
  for (Part& p : parts) p.in = std::make_unique<Interpreter>(p.out, p.options);
  run_shares(static_cast<unsigned>(n), [&](unsigned k) {
    Part& p = parts[k];
    TextTokenSource part(bytes, text->options(), starts[k], 1);
    p.in->run(part, 0, {}, 0, &p.cut);
  });
  std::size_t used = 1;
  while (used < n && parts[used - 1].cut.met) ++used;
  std::uint32_t lines = 0;  // before part k
  for (std::size_t k = 1; k < used; ++k) {
    lines += parts[k - 1].cut.line - 1;
    parts[0].in->absorb(*parts[k].in, k + 1 == used, std::min(2u, options.threads), lines);
  }
  parts[0].in->finish();
  parts[0].out.parts = static_cast<std::uint32_t>(used);
  return std::move(parts[0].out);
}

}  // namespace

Interpreted interpret(TokenSource& source, std::string file_name, const InterpretOptions& options) {
  if (auto parts = interpret_in_parts(source, file_name, options)) return std::move(*parts);
  Interpreted out;
  out.files.push_back(std::move(file_name));
  Interpreter in(out, options);
  in.run(source, 0, {}, 0);
  in.finish();
  return out;
}

void interpret_visuals(TokenSource& source, Interpreted& into, const InterpretOptions& options) {
  InterpretOptions visual = options;
  visual.pass = LoadPass::visual;
  visual.assets = into.kept_files.get();
  visual.root = false;
  visual.keep_files = false;
  const std::size_t warned = into.warnings.size();
  Interpreter in(into, visual);
  in.run(source, 0, {}, 0);
  in.finish_visuals();
  into.visual_nodes_left = 0;
  // What both passes read (directives, includes) warns once.
  auto& w = into.warnings;
  w.erase(std::remove_if(w.begin() + static_cast<std::ptrdiff_t>(warned), w.end(),
                         [&](const Warning& x) {
                           return std::any_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(warned), [&](const Warning& y) {
                             return x.file == y.file && x.offset == y.offset && x.line == y.line && x.message == y.message;
                           });
                         }),
          w.end());
}

}  // namespace sceneria::scenery
