// The scenery grammar (notes part B): tokens as the statements read them (`(pN)` substituted, the
// writer's commas), top-level statements and directives, includes followed through the resolver.
#include "formats/scenery/interpreter.hpp"

namespace sceneria::scenery::detail {

void Interpreter::run(TokenSource& source, std::uint32_t file, const std::vector<std::string>& params, std::uint32_t depth, Cut* cut) {
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

bool Interpreter::next(Reader& r, Tok& t) {
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
const Tok* Interpreter::peek(Reader& r) {
  if (!r.has_ahead) {
    if (!next(r, r.ahead)) return nullptr;
    r.has_ahead = true;
  }
  return &r.ahead;
}

// `tokens` to be read again, before anything else (a peeked token after them). Their text is
// copied: it may have been in the statement's arena.
void Interpreter::unread(Reader& r, std::span<const Tok> tokens, bool again) {
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
void Interpreter::settle(Reader& r) {
  if (r.has_ahead) unread(r, {});
  if (r.pending.empty()) r.kept.clear();
}

// Where a record came from, kept beside its list (InterpretOptions::sources).
void Interpreter::located(const char* list, const SourceRef& at) {
  if (options_.sources) out_.where[list].push_back(at);
}

void Interpreter::warn(const SourceRef& at, std::string message) {
  Warning w;
  w.file = out_.files[at.file];
  w.offset = at.offset;
  w.line = at.line;
  w.column = at.column;
  w.message = std::move(message);
  if (out_.warnings.size() < 1000) out_.warnings.push_back(std::move(w));
}

Sid Interpreter::sid(std::string_view s) { return ids_.intern(out_.module.strings, s); }

// Tokens up to (and with) one of the terminators, or the end of the file.
// `prefix`: a token starting with a terminator ends it too (`endline_strip`, `endlines`).
std::vector<Tok> Interpreter::until(Reader& r, std::initializer_list<std::string_view> ends, bool* ended, bool prefix) {
  std::vector<Tok> body;
  until(r, ends, body, ended, prefix);
  return body;
}

// The same into `body` (a buffer node() reuses, so a node costs no allocation).
void Interpreter::until(Reader& r, std::initializer_list<std::string_view> ends, std::vector<Tok>& body, bool* ended, bool prefix) {
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

void Interpreter::statement(Reader& r, Tok& t, std::uint32_t depth) {
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
bool Interpreter::skip_in_inc(Reader& r, const std::string& k) {
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

void Interpreter::directive(const Tok& t, const std::vector<Tok>& values) {
  Directive d;
  d.keyword = t.text;
  d.at = t.at;
  for (const Tok& v : values) d.values.push_back(v.spelled());
  out_.directives.push_back(std::move(d));
}

std::vector<double> Interpreter::take(Reader& r, int n, std::vector<Tok>* tokens) {
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
std::uint8_t Interpreter::param_number(const Tok& t) {
  if (t.kind == TokenKind::number || t.text.size() < 4 || t.text.compare(0, 2, "(p") != 0 || t.text.back() != ')') return 0;
  int n = 0;
  for (std::size_t i = 2; i + 1 < t.text.size(); ++i) {
    if (t.text[i] < '0' || t.text[i] > '9' || n > 25) return 0;
    n = n * 10 + (t.text[i] - '0');
  }
  return static_cast<std::uint8_t>(n <= 255 ? n : 0);
}

void Interpreter::include(Reader& r, const Tok& at, std::uint32_t depth) {
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
std::string Interpreter::binary_path(const std::string& written) {
  const std::size_t slash = written.rfind('/');
  const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
  const std::string_view file = std::string_view(written).substr(name);
  const std::size_t dot = file.rfind('.');
  const bool extension = dot != std::string_view::npos && dot > 0 && file != "..";
  return (extension ? written.substr(0, name + dot) : written) + ".eu7";
}

void Interpreter::follow(const Tok& at, const std::string& file, const std::vector<std::string>& params, std::uint32_t depth) {
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

}  // namespace sceneria::scenery::detail
