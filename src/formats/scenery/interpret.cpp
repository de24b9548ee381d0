// A pass over a scenery: the interpreter set up, its records joined into the module (in the order
// the reference writer writes them when compiling), and a big text read in parts side by side.
#include "formats/scenery/interpreter.hpp"

#include "core/parallel.hpp"
#include "formats/eu7b/compile_layout.hpp"

namespace sceneria::scenery::detail {

Interpreter::Interpreter(Interpreted& out, const InterpretOptions& options) : out_(out), options_(options), pass_(options.pass) {
  // A visual pass continues the infrastructure pass's string table.
  if (pass_ == LoadPass::visual) ids_.index_all(out_.module.strings);
}

void Interpreter::make_room(double scale) {
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

void Interpreter::finish() {
  Module& m = out_.module;
  m.container.version = options_.root ? 9 : 6;
  order_records();
  // A root's PACK models, laid out as the writer lays them out (their strings join the table).
  eu7b::RootPack pack;
  if (options_.root) {
    pack = lay_out_root_pack(options_.pack_models ? std::move(*options_.pack_models) : PackModels(), m.strings, ids_);
    for (std::string& w : pack.warnings) warn(SourceRef{}, std::move(w));
  }
  if (seen_origin_) out_.placement = {placement_.origin_x, placement_.origin_y, placement_.origin_z, placement_.rotation_y};
  auto add = [&](std::uint32_t id, ChunkData data) { m.chunks.push_back(Chunk{id, 0, std::move(data), {}, false}); };
  // The reference writer's chunk order; STRS, INCL, TRAK and MESH always, the rest when used.
  add(chunk::STRS, StringsChunk{});
  add(chunk::INCL, std::move(includes_));
  // Only a file with an `origin` is placed, by its first one's `(pN)` tokens and its first
  // rotate's second (include_placement.hpp extractIncludePlacement).
  if (seen_origin_ && (placement_.origin_x || placement_.origin_y || placement_.origin_z || placement_.rotation_y))
    add(chunk::PLAC, placement_);
  add(chunk::TRAK, std::move(tracks_));
  if (auto terrain = options_.reference_writer ? as_terrain() : std::nullopt) add(chunk::TERR, std::move(*terrain));
  else add(chunk::MESH, std::move(shapes_));
  if (!lines_.records.empty()) add(chunk::LINE, std::move(lines_));
  for (Chunk& c : pack.run) m.chunks.push_back(std::move(c));
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
  // Strings numbered as the writer meets them (parsing interned them on the way).
  renumber_as_written(m, pack.sections);
  ids_.clear();  // its ids are the old ones (nothing is interned after this)
  m.container.chunks.clear();
}

// TERR instead of MESH when every shape is plain terrain: a `triangles` node of one triangle,
// unnamed, without ranges, group or origin/rotate/scale around it, all with the first one's
// texture, translucency and lighting (runtime_codec.hpp canUseTerrEncoding). Its triangles are
// batched by the section of their centroid, sections in (z, x) order, file order inside
// (groupTerrShapesBySection); the section indices are not clamped.
std::optional<Terrain> Interpreter::as_terrain() const {
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
void Interpreter::finish_visuals() {
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
void Interpreter::absorb(Interpreter& b, bool last, unsigned threads, std::uint32_t lines) {
  // Its strings take the id they have here, or a new one. The last part's new strings need no
  // interning (nothing looks them up again), which spares a hash map its growth.
  std::vector<Sid> ids(b.out_.module.strings.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string_view text = b.out_.module.strings[i];
    if (!last) {
      ids[i] = sid(text);
    } else if (const std::uint32_t id = ids_.find(out_.module.strings, text); id != StringIndex::kMissing) {
      ids[i] = id;
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

// Records in the reference writer's order within their chunks (eu7b::written_group), their
// source locations following them. Viewed, tracks are ordered so too (the lists read as a
// compiled module's do); shapes and lines stay in file order.
void Interpreter::order_records() {
  order_by("tracks", tracks_.records, [](const Track& t) { return written_group(t); });
  if (!options_.reference_writer) return;  // viewed, shapes and lines stay in file order
  order_by("shapes", shapes_.records, [](const Shape& s) { return written_group(s); });
  order_by("lines", lines_.records, [](const Line& l) { return written_group(l); });
}

}  // namespace sceneria::scenery::detail

namespace sceneria::scenery {
namespace {

using detail::Interpreter;

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

