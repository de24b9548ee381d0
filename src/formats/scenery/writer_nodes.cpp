// The reference EU7B writer's own node grammar (compiling to EU7B): where its parsers read a node
// otherwise than the engine, and the nodes it refuses, whose tokens it reads again.
#include "formats/scenery/interpreter.hpp"

namespace sceneria::scenery::detail {

// A node as the reference EU7B writer's grammar reads it (scene/node.hpp parseInto): its
// header's ranges must be numbers and its type one of the fourteen, spelled in lower case;
// models and shapes are read token by token as its parsers do (a model's light list may run
// on past `endmodel`), the other kinds up to their terminator. A node it refuses is not
// skipped: it reads on from the token after `node`, as top-level statements.
void Interpreter::writer_node(Reader& r, const std::vector<Tok>& h) {
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

void Interpreter::refuse(Reader& r, const std::vector<Tok>& h, const std::vector<Tok>& took, std::string why) {
  ++out_.unknown_tokens;  // `node` itself
  warn(h[0].at, std::move(why) + ": read on as top-level tokens, as the writer does");
  r.quiet = true;
  std::vector<Tok> again(h.begin() + 1, h.end());
  again.insert(again.end(), took.begin(), took.end());
  unread(r, again);
}

// The reference writer's token-by-token reads: a token taken is kept in `took`.
bool Interpreter::take(Reader& r, std::vector<Tok>& took, Tok& t) {
  if (!next(r, t)) return false;
  took.push_back(t);
  return true;
}

bool Interpreter::take_number(Reader& r, std::vector<Tok>& took, double& v) {
  Tok t;
  return take(r, took, t) && t.writer_number(v);
}

bool Interpreter::take_vec3(Reader& r, std::vector<Tok>& took, glm::dvec3& v) {
  return take_number(r, took, v.x) && take_number(r, took, v.y) && take_number(r, took, v.z);
}

bool Interpreter::next_is(Reader& r, std::string_view word) {
  const Tok* t = peek(r);
  return t && t->kind != TokenKind::number && t->text == word;
}

// node/model.hpp parseBody: x y z ry file skin, then in any order `lights` (numbers up to a
// keyword or a non-number, which is taken and lost), `angles`, `lightcolors` (each a number
// followed by any two tokens as green and blue, or a hex word; the first token that is neither
// is taken and ends the list; only `notransition` and `scale` end it otherwise), `scale`,
// `notransition`, anything else ignored; a later list replaces an earlier one.
bool Interpreter::writer_model(Reader& r, std::vector<Tok>& took, ModelFields& f) {
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
std::optional<std::int32_t> Interpreter::stoi_hex(std::string_view text) {
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
bool Interpreter::writer_shape(Reader& r, const std::string& type, std::vector<Tok>& took, ShapeFields& f) {
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
bool Interpreter::writer_track_node(Reader& r, std::vector<Tok>& took) {
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
bool Interpreter::writer_line_node(Reader& r, const std::string& type, std::vector<Tok>& took) {
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

}  // namespace sceneria::scenery::detail
