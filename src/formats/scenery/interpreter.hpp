#pragma once
// The scenery interpreter's insides, shared by its files and included by no one else:
//   interpret.cpp     a pass: its records joined into a module, and a big text's parts, read side by side, joined
//   grammar.cpp       tokens, statements, directives, includes
//   nodes.cpp         the node builders (track, model, shape, line, ..., trainsets and events)
//   writer_nodes.cpp  the reference EU7B writer's own node grammar, where it reads otherwise
//   placement.cpp     origin, rotate and scale applied to what the nodes place
// How the EU7B writer lays out what a compile reads (record and string order, a root's PACK) is
// eu7b's: formats/eu7b/compile_layout.hpp.
#include "formats/scenery/interpret.hpp"

#include "formats/eu7b/compile_layout.hpp"
#include "formats/maszyna/section_grid.hpp"
#include "core/string_index.hpp"

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

namespace sceneria::scenery::detail {

using namespace eu7b;
using maszyna::kSectionGrid;

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
inline std::int32_t whole(double v) {
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

using maszyna::substitute;

inline const std::vector<std::string_view> kTrackTypes = {"", "normal", "switch", "table", "cross", "tributary"};
inline const std::vector<std::string_view> kEnvironments = {"", "flat", "mountains", "canyon", "tunnel", "bridge", "bank"};
inline const std::vector<std::string_view> kTails = {"",         "event0",   "eventall0",   "event1",  "eventall1", "event2", "eventall2",
                                              "velocity", "isolated", "overhead",    "vradius", "railprofile", "trackbed",
                                              "friction", "fouling1", "fouling2", "sleepermodel", "angle1", "angle2"};
inline const std::vector<std::string_view> kEventTypes = {"addvalues", "updatevalues", "copyvalues", "getvalues", "putvalues", "whois",
                                                   "logvalues", "multiple",     "switch",     "trackvel",  "sound",     "texture",
                                                   "animation", "lights",       "voltage",    "visible",   "friction",  "message"};

// Top-level blocks kept as directives, with what ends each.
inline const std::map<std::string, std::string_view, std::less<>> kBlocks = {
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
inline const std::map<std::string, NodeType, std::less<>> kNodeTypes = {
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
inline constexpr NodeType kUnknownNode{"endnode", "endnode"};

inline int index_of(const std::vector<std::string_view>& names, std::string_view word) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!names[i].empty() && names[i] == word) return static_cast<int>(i);
  return -1;
}

// In float, as the reference writer rounds (0.9691 gives 31755).
inline std::int16_t snorm(double v) { return static_cast<std::int16_t>(std::lround(std::clamp(static_cast<float>(v), -1.0f, 1.0f) * 32767.0f)); }

// The reference EU7B writer's float → half: the rounding carry is OR-ed into the exponent's low
// bit, not added, so a value rounding up to the next power of two may come out half as big.
// Kept as it is: linia053-misja5.v6.eu7 holds such UVs. (eu7b/generator.cpp's to_half rounds
// correctly; the generated files do not claim to be the reference writer's.)
inline std::uint16_t half(float f) {
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
inline constexpr float kLightingEpsilon = 1e-4f;
inline bool is_default(const Lighting& l) {
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
  Interpreter(Interpreted& out, const InterpretOptions& options);

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

  void run(TokenSource& source, std::uint32_t file, const std::vector<std::string>& params, std::uint32_t depth, Cut* cut = nullptr);

  // A part of a big text gives its lists room for all it will hold once it has read this much of
  // it, at the rate of records per byte seen so far and a margin. Otherwise they grow by
  // doubling, and each step copies into fresh memory, which the system zeroes page by page: on
  // the machines measured, that was a sixth of a compile's time. Room not used is address space
  // only, never touched.
  static constexpr std::uint64_t kRoomSample = std::uint64_t{1} << 20;

  void make_room(double scale);
  void finish();
  void finish_visuals();
  void absorb(Interpreter& b, bool last, unsigned threads, std::uint32_t lines);

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

  // ---- interpret.cpp: the records as a module ----
  std::optional<Terrain> as_terrain() const;
  void order_records();

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

  // Every string id the records hold (a part's, when absorb() renumbers them).
  template <class F>
  void each_sid(F&& fix) {
    const auto in = [&](auto&... lists) { (eu7b::each_sid(lists, fix), ...); };
    in(includes_, tracks_, shapes_, lines_, models_, traction_, power_, memcells_, launchers_, dynamics_, sounds_, trainsets_, events_);
  }

  // ---- grammar.cpp: tokens, statements, directives, includes ----
  bool next(Reader& r, Tok& t);
  const Tok* peek(Reader& r);
  void unread(Reader& r, std::span<const Tok> tokens, bool again = true);
  void settle(Reader& r);
  void located(const char* list, const SourceRef& at);
  void warn(const SourceRef& at, std::string message);
  Sid sid(std::string_view s);
  Sid name_sid(const std::string& s) { return iequals(s, "none") ? kNoString : sid(s); }
  std::vector<Tok> until(Reader& r, std::initializer_list<std::string_view> ends, bool* ended = nullptr, bool prefix = false);
  void until(Reader& r, std::initializer_list<std::string_view> ends, std::vector<Tok>& body, bool* ended, bool prefix);
  void statement(Reader& r, Tok& t, std::uint32_t depth);
  bool skip_in_inc(Reader& r, const std::string& k);
  void directive(const Tok& t, const std::vector<Tok>& values);
  std::vector<double> take(Reader& r, int n, std::vector<Tok>* tokens = nullptr);
  static std::uint8_t param_number(const Tok& t);
  void include(Reader& r, const Tok& at, std::uint32_t depth);
  static std::string binary_path(const std::string& written);
  void follow(const Tok& at, const std::string& file, const std::vector<std::string>& params, std::uint32_t depth);

  // ---- placement.cpp: where nodes stand ----

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

  SlimNode slim(const std::vector<Tok>& h);
  TransformContext context() const;
  void place_context(SlimNode& n, std::vector<TransformContext>& pool) const;
  glm::dvec3 place(const glm::dvec3& p) const;
  glm::dvec3 turn(const glm::dvec3& p);

  // ---- nodes.cpp: the node builders, as the engine reads nodes ----
  void node(Reader& r, const Tok& at);
  void build(const std::string& type, const std::vector<Tok>& h, const std::vector<Tok>& b);
  void skip_node(Reader& r, const NodeType& kind);
  void shape_body(Reader& r, bool* ended, std::vector<Tok>& b);
  void track(const std::vector<Tok>& h, const std::vector<Tok>& b);
  void traction(const std::vector<Tok>& h, const std::vector<Tok>& b);
  void model(const std::vector<Tok>& h, const std::vector<Tok>& b, ModelList& into);
  void store_model(const std::vector<Tok>& h, const ModelFields& f, ModelList& into);
  double header_number(const Tok& t) const;
  void shape(const std::vector<Tok>& h, const std::vector<Tok>& b, const std::string& type);
  void store_shape(const std::vector<Tok>& h, const ShapeFields& f, const std::string& type);
  void bound(SlimNode& node, const std::vector<glm::dvec3>& v);
  void line(const std::vector<Tok>& h, const std::vector<Tok>& b, const std::string& type);
  void memcell(const std::vector<Tok>& h, const std::vector<Tok>& b);
  void launcher(const std::vector<Tok>& h, const std::vector<Tok>& b);
  void sound(const std::vector<Tok>& h, const std::vector<Tok>& b);
  void power(const std::vector<Tok>& h, const std::vector<Tok>& b);
  void dynamic(const std::vector<Tok>& h, const std::vector<Tok>& b, Trainset* in);
  void trainset(Reader& r, const Tok& at);
  void event(Reader& r, const Tok& at);

  // ---- writer_nodes.cpp: the reference EU7B writer's node grammar ----
  void writer_node(Reader& r, const std::vector<Tok>& h);
  void refuse(Reader& r, const std::vector<Tok>& h, const std::vector<Tok>& took, std::string why);
  bool take(Reader& r, std::vector<Tok>& took, Tok& t);
  bool take_number(Reader& r, std::vector<Tok>& took, double& v);
  bool take_vec3(Reader& r, std::vector<Tok>& took, glm::dvec3& v);
  bool next_is(Reader& r, std::string_view word);
  bool writer_model(Reader& r, std::vector<Tok>& took, ModelFields& f);
  static std::optional<std::int32_t> stoi_hex(std::string_view text);
  bool writer_shape(Reader& r, const std::string& type, std::vector<Tok>& took, ShapeFields& f);
  bool writer_track_node(Reader& r, std::vector<Tok>& took);
  bool writer_line_node(Reader& r, const std::string& type, std::vector<Tok>& took);

  // ---- the state of a pass ----
  Interpreted& out_;
  const InterpretOptions& options_;
  LoadPass pass_;
  std::vector<Tok> head_, body_;  // node()'s, kept for their capacity
  std::uint64_t files_opened_ = 1;  // [0] is the scenery itself
  State state_;
  StringIndex ids_;  // over out_.module.strings
  std::vector<Include> includes_;
  RecordList<Track> tracks_;
  RecordList<Shape> shapes_;
  std::vector<glm::dvec3> centroids_;  // per shape: its triangle's centroid, NaN unless one triangle
  RecordList<Line> lines_;
  ModelList models_;
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

}  // namespace sceneria::scenery::detail
