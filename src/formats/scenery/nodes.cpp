// The node builders: each node type's fields read as the engine reads them into its EU7B record
// (track, traction, power, model, shape, line, memcell, launcher, sound, dynamic), and the
// trainset and event blocks.
#include "formats/scenery/interpreter.hpp"

namespace sceneria::scenery::detail {

void Interpreter::node(Reader& r, const Tok& at) {
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
void Interpreter::build(const std::string& type, const std::vector<Tok>& h, const std::vector<Tok>& b) {
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

// A node of the other pass up to its terminator, as node() ends each type, keeping nothing.
void Interpreter::skip_node(Reader& r, const NodeType& kind) {
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
void Interpreter::shape_body(Reader& r, bool* ended, std::vector<Tok>& b) {
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

void Interpreter::track(const std::vector<Tok>& h, const std::vector<Tok>& b) {
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

void Interpreter::traction(const std::vector<Tok>& h, const std::vector<Tok>& b) {
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
void Interpreter::model(const std::vector<Tok>& h, const std::vector<Tok>& b, ModelList& into) {
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

void Interpreter::store_model(const std::vector<Tok>& h, const ModelFields& f, ModelList& into) {
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
double Interpreter::header_number(const Tok& t) const {
  double v = 0;
  if (options_.reference_writer) return t.writer_number(v) ? v : 0.0;
  return t.num();
}

// The engine's reading of a shape body (for viewing): labels in any order, vertices of eight
// fields and one separator of any spelling, leading digits of a field that is not a number.
void Interpreter::shape(const std::vector<Tok>& h, const std::vector<Tok>& b, const std::string& type) {
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

void Interpreter::store_shape(const std::vector<Tok>& h, const ShapeFields& f, const std::string& type) {
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

void Interpreter::bound(SlimNode& node, const std::vector<glm::dvec3>& v) {
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

void Interpreter::line(const std::vector<Tok>& h, const std::vector<Tok>& b, const std::string& type) {
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

void Interpreter::memcell(const std::vector<Tok>& h, const std::vector<Tok>& b) {
  MemCell c = start(h, memcells_);
  Fields f{b, 3};  // x y z are not stored (the reference writer drops them)
  c.text = f.more() ? sid(f.text()) : kNoString;
  c.value1 = f.f32();
  c.value2 = f.f32();
  c.track = f.more() ? name_sid(f.text()) : kNoString;
  add(memcells_, std::move(c), "memcells", h);
}

void Interpreter::launcher(const std::vector<Tok>& h, const std::vector<Tok>& b) {
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

void Interpreter::sound(const std::vector<Tok>& h, const std::vector<Tok>& b) {
  Sound s = start(h, sounds_);
  Fields f{b};
  s.location = v3(place(position(f)));
  s.wav = f.more() ? sid(f.text()) : kNoString;
  add(sounds_, std::move(s), "sounds", h);
}

void Interpreter::power(const std::vector<Tok>& h, const std::vector<Tok>& b) {
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

void Interpreter::dynamic(const std::vector<Tok>& h, const std::vector<Tok>& b, Trainset* in) {
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

void Interpreter::trainset(Reader& r, const Tok& at) {
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

void Interpreter::event(Reader& r, const Tok& at) {
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

}  // namespace sceneria::scenery::detail
