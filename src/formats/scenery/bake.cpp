#include "formats/scenery/bake.hpp"

#include <string>

#include "core/parallel.hpp"
#include "core/string_index.hpp"
#include "formats/format.hpp"
#include "formats/scenery/tokens.hpp"

#include <cstring>
#include <set>

namespace sceneria::scenery {
namespace {

struct NodeRule {
  std::string_view type, terminator;
  bool visual;
  bool shape;  // position from the first three numbers after the texture (or material block)
};
constexpr NodeRule kRules[] = {
    {"model", "endmodel", true, false},
    {"triangles", "endtri", true, true},
    {"triangle_strip", "endtri", true, true},
    {"triangle_fan", "endtri", true, true},
    {"lines", "endline", true, true},
    {"line_strip", "endline", true, true},
    {"line_loop", "endline", true, true},
    {"track", "endtrack", false, false},
    {"traction", "endtraction", false, false},
    {"tractionpowersource", "end", false, false},
    {"memcell", "endmemcell", false, false},
    {"eventlauncher", "end", false, false},
    {"sound", "endsound", false, false},
    {"dynamic", "enddynamic", false, false},
};

// A number's stored bits (std::bit_cast is missing from Emscripten 3.1.6's libc++).
template <class Bits, class Value>
Bits bits(Value v) {
  static_assert(sizeof(Bits) == sizeof(Value));
  Bits out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

// Writes the twin's bytes as the tokens come: entries outside nodes straight into the entry
// stream, a node's entries into its body until the node closes (its marker needs the body's
// length first). Strings are interned once, looked up without allocating.
class Baker {
 public:
  // `text_size`: a twin is about half its text, so the entry stream is sized once for that.
  // `continued`: a part of a text after its start (bake_bytes in parts), which cannot know the
  // position and range the node before it left (see stale()).
  Baker(TwinKind kind, std::size_t text_size, bool continued = false) : kind_(kind), known_(continued ? 0 : kAllKnown) {
    main_.reserve(text_size / 2 + text_size / 8 + 64);
    lookup_.reserve(1024);
  }

  // Whether the word `node` at `t` opens a node as it would in one pass from the start: no node
  // of a known type is open. Where a part ends (bake_bytes in parts).
  bool opens_node(const Token& t) const { return t.kind != TokenKind::number && iequals(t.text, "node") && (!in_node_ || !rule_); }
  // A part ends: the open node closes, as the next part's first `node` would close it.
  void stop() {
    if (in_node_) close();
  }
  // A later part wrote a marker with a position or range it never read itself (the previous
  // node's, which the part before it holds): it cannot be joined, only read again in one pass.
  bool stale() const { return stale_; }

  void token(const Token& t) {
    // A node starts a marker, and ends the open one only while that one's end is unknown (type
    // unrecognised, or not read yet): a known node runs to its terminator, which counts only
    // once its position is in (the reference's quirk: a shape without plain numbers swallows
    // the nodes and directives after it). Quoted words count too: the reference compares them
    // lower-cased like the rest.
    if (t.kind != TokenKind::number && iequals(t.text, "node") && (!in_node_ || !rule_)) {
      if (in_node_) close();
      open();
    }
    put(t);
    if (in_node_) classify(t);
  }

  // include, file expression, parameters, end. One file name (a headless bake captures no random
  // sets: `[` is the name, the rest parameters); the terminating `end` is not stored. Strings
  // are interned name first, then parameters.
  void include(std::span<const std::string> parts) {
    flags_ |= 1;
    std::size_t n = parts.size();
    if (n > 2 && parts[n - 1] == "end") --n;
    indices_.clear();
    if (n <= 1) indices_.push_back(intern(""));  // `include` at the end of the file: an empty name
    for (std::size_t i = 1; i < n; ++i) indices_.push_back(intern(parts[i]));
    if (n > 1) includes_.emplace_back(parts[1]);
    else includes_.emplace_back();
    const std::span<const std::uint32_t> strings(indices_);
    put_twin_include(sink(), strings.first(1), strings.subspan(1));
  }

  // The whole twin of a text baked in parts: this, the first part, then `rest` in order, each
  // ended (stop()) and not stale. Their strings take the number they have here or, where new,
  // the next ones in their order, so the table is the one-pass table; their entries are
  // renumbered onto this one's, which has room for the whole text's.
  Result<std::vector<std::uint8_t>> finish_joined(std::span<const std::unique_ptr<Baker>> rest) {
    std::vector<std::vector<std::uint32_t>> ids(rest.size());
    std::vector<std::string_view> added;  // the last part's new strings, numbered after strings_
    for (std::size_t k = 0; k < rest.size(); ++k) {
      const Baker& part = *rest[k];
      flags_ |= part.flags_;
      includes_.insert(includes_.end(), part.includes_.begin(), part.includes_.end());
      std::vector<std::uint32_t>& id = ids[k];
      id.resize(part.strings_.size());
      if (k + 1 < rest.size()) {  // parts after it look its strings up here
        for (std::size_t i = 0; i < id.size(); ++i) id[i] = intern(part.strings_[i]);
        continue;
      }
      // The last part's strings are only looked up (nothing looks them up later), on two threads
      // at once: reading the table is safe, and this is a serial step.
      constexpr std::uint32_t kNew = UINT32_MAX;
      run_shares(2, [&](unsigned half) {
        for (std::size_t i = id.size() * half / 2, end = id.size() * (half + 1) / 2; i < end; ++i) {
          id[i] = lookup_.find(strings_, part.strings_[i]);
          static_assert(kNew == StringIndex::kMissing);
        }
      });
      for (std::size_t i = 0; i < id.size(); ++i)
        if (id[i] == kNew) {
          id[i] = static_cast<std::uint32_t>(strings_.size() + added.size());
          added.push_back(part.strings_[i]);
        }
    }
    for (std::size_t k = 0; k < rest.size(); ++k) {
      if (Error e = renumber_twin_entries(main_, rest[k]->main_, ids[k])) return e;
      rest[k]->main_ = {};
    }
    std::vector<std::uint8_t> front;
    head(front, added);
    main_.insert(main_.begin(), front.begin(), front.end());
    return std::move(main_);
  }

  // The whole twin: header, string table, entries.
  std::vector<std::uint8_t> finish() {
    if (in_node_) close();
    std::vector<std::uint8_t> front;
    head(front);
    // In front of the entries, in place where the reserve allows: no second twin-sized buffer.
    main_.insert(main_.begin(), front.begin(), front.end());
    return std::move(main_);
  }

  // The first file name of every include, in order (what a tree bake follows).
  const std::vector<std::string>& includes() const { return includes_; }

 private:
  std::vector<std::uint8_t>& sink() { return in_node_ ? body_ : main_; }

  // Header and string table: strings_, then `added`.
  void head(std::vector<std::uint8_t>& out, std::span<const std::string_view> added = {}) const {
    put_twin_header(out, kTwinVersion, kind_, flags_);
    append_varint(out, strings_.size() + added.size());
    for (std::size_t i = 0; i < strings_.size(); ++i) put_twin_string(out, strings_[i]);
    for (std::string_view s : added) put_twin_string(out, s);
  }

  std::uint32_t intern(std::string_view s) { return lookup_.intern(strings_, s); }

  void put(const Token& t) {
    std::vector<std::uint8_t>& out = sink();
    if (t.kind != TokenKind::number) return put_twin_token(out, intern(t.text), t.kind == TokenKind::quoted);
    switch (t.encoding) {
      case EntryTag::int_number: return put_twin_int(out, static_cast<std::int64_t>(t.value));
      case EntryTag::f32: return put_twin_f32(out, bits<std::uint32_t>(static_cast<float>(t.value)));
      default: return put_twin_f64(out, bits<std::uint64_t>(t.value));
    }
  }

  void open() {
    in_node_ = true;
    entry_ = 0;
    rule_ = nullptr;
    stage_ = Stage::body;
    body_.clear();
  }
  void close() {
    in_node_ = false;
    const bool visual = rule_ && rule_->visual;
    if (!visual) flags_ |= 1;
    if (visual && known_ != kAllKnown) stale_ = true;
    put_twin_marker(main_, kTwinVersion, visual ? NodeClass::visual_pos : NodeClass::infra, body_.size(), pos_, range_);
    main_.insert(main_.end(), body_.begin(), body_.end());
  }

  // The number test of the marker's position and range: a number, or a quoted word that
  // would be one (the reference checks the spelling without the quote).
  static bool numeric(const Token& t, double& v) {
    if (t.kind == TokenKind::number) return v = t.value, true;
    return t.kind == TokenKind::quoted && parse_number(t.text, v);
  }

  // Follows one token of the open node: its type, the visual position and range, the end.
  void classify(const Token& t) {
    const std::size_t i = entry_++;
    double v = 0;
    const bool number = numeric(t, v);
    const bool text = t.kind != TokenKind::number;
    if (i == 1) range_ = number ? static_cast<float>(v) : -1.0f, known_ |= kRangeKnown;
    if (i == 4) {
      rule_ = nullptr;
      for (const NodeRule& r : kRules)
        if (text && iequals(t.text, r.type)) rule_ = &r;
      numbers_ = 0;
      stage_ = !rule_ || !rule_->visual ? Stage::body : rule_->shape ? Stage::shape_head : Stage::model_position;
      return;
    }
    if (i < 5) return;
    switch (stage_) {
      case Stage::model_position:  // entries 5..7; anything but an unquoted number is 0
        pos_[i - 5] = t.kind == TokenKind::number ? static_cast<float>(t.value) : 0.0f;
        known_ |= 1u << (i - 5);
        if (i == 7) stage_ = Stage::body;
        return;
      case Stage::shape_head:  // a material block, or the texture (even if numeric)
        stage_ = text && iequals(t.text, "material") ? Stage::material : Stage::shape_position;
        return;
      case Stage::material:
        if (text && iequals(t.text, "endmaterial")) stage_ = Stage::shape_position;
        return;
      case Stage::shape_position:
        if (!number) return;
        known_ |= 1u << numbers_;
        pos_[numbers_++] = static_cast<float>(v);
        if (numbers_ == 3) stage_ = Stage::body;
        return;
      case Stage::body:
        if (rule_ && text && iequals(t.text, rule_->terminator)) close();
        return;
    }
  }

  enum class Stage : std::uint8_t { model_position, shape_head, material, shape_position, body };
  TwinKind kind_;
  std::vector<std::uint8_t> main_, body_;
  StringTable strings_;
  StringIndex lookup_;  // over strings_
  std::vector<std::uint32_t> indices_;
  std::vector<std::string> includes_;
  bool in_node_ = false;
  std::size_t entry_ = 0;
  const NodeRule* rule_ = nullptr;
  int numbers_ = 0;
  Stage stage_ = Stage::body;
  // Not reset when a node opens (the reference keeps them): a node closed at the end of the file
  // before its position is complete carries the previous node's values.
  float pos_[3] = {0, 0, 0};
  float range_ = -1.0f;
  // Which of pos_ (bits 0-2) and range_ (bit 3) this baker has set itself.
  static constexpr std::uint32_t kRangeKnown = 8, kAllKnown = 15;
  std::uint32_t known_;
  bool stale_ = false;
  std::uint32_t flags_ = 0;
};

// The tokens of `source` into `b`, up to the first at or past `cut`: true when that one starts
// exactly there and opens a node as it would in one pass (`b` then stopped), the state the part
// after the cut started in; otherwise on to the end.
bool feed(Baker& b, TextTokenSource& source, std::uint64_t cut) {
  Token t;
  std::vector<std::string> include;
  while (source.next(t)) {
    if (t.offset >= cut) {
      if (t.offset == cut && !t.in_include && include.empty() && b.opens_node(t)) {
        b.stop();
        return true;
      }
      cut = UINT64_MAX;  // the next part started in the wrong state: this one reads on instead
    }
    if (t.in_include) {
      include.emplace_back(t.text);
      if (t.ends_include) {
        b.include(include);
        include.clear();
      }
      continue;
    }
    b.token(t);
  }
  if (!include.empty()) b.include(include);
  return false;
}

// A big text baked in parts side by side, cut where text_part_starts() guesses, each part with a
// string table of its own, then joined in order (Baker::finish_joined). A part is kept only
// where the one before it ended exactly at its start; so the twin is the one-pass twin, byte for
// byte, whatever the text. Nothing when the text is too small to cut, or a kept part is stale.
std::optional<std::vector<std::uint8_t>> bake_in_parts(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options,
                                                       std::vector<std::string>* includes, unsigned threads, std::uint32_t* joined) {
  const std::vector<std::size_t> starts = text_part_starts(text, threads);
  const std::size_t n = starts.size();
  if (n < 2) return std::nullopt;
  std::vector<std::unique_ptr<Baker>> parts(n);
  std::vector<char> met(n, 0);
  run_shares(static_cast<unsigned>(n), [&](unsigned k) {
    // The first part's entry stream takes the others' too: sized for the whole text.
    parts[k] = std::make_unique<Baker>(kind, k == 0 ? text.size() : (k + 1 < n ? starts[k + 1] : text.size()) - starts[k], k > 0);
    TextTokenSource source(text, options, starts[k], 1);
    met[k] = feed(*parts[k], source, k + 1 < n ? starts[k + 1] : UINT64_MAX);
  });
  std::size_t used = 1;
  while (used < n && met[used - 1]) ++used;
  parts[used - 1]->stop();  // it read to the end of the text
  for (std::size_t k = 1; k < used; ++k)
    if (parts[k]->stale()) return std::nullopt;
  auto twin = parts[0]->finish_joined(std::span<const std::unique_ptr<Baker>>(parts).subspan(1, used - 1));
  if (!twin) return std::nullopt;  // what the bakers wrote always renumbers
  if (includes) *includes = parts[0]->includes();
  if (joined) *joined = static_cast<std::uint32_t>(used);
  return std::move(twin).value();
}

}  // namespace

TwinKind kind_for(std::string_view name) {
  if (iends_with(name, ".inc")) return TwinKind::inc;
  if (iends_with(name, ".scm")) return TwinKind::scm;
  return TwinKind::scn;
}

std::string twin_name(std::string_view name) { return std::string(name) + "b"; }

std::vector<std::uint8_t> bake_bytes(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options,
                                     std::vector<std::string>* includes, unsigned threads, std::uint32_t* parts) {
  if (parts) *parts = 1;
  if (threads > 1)
    if (auto twin = bake_in_parts(text, kind, options, includes, threads, parts)) return std::move(*twin);
  Baker b(kind, text.size());
  TextTokenSource source(text, options);
  feed(b, source, UINT64_MAX);
  if (includes) *includes = b.includes();
  return b.finish();
}

Twin bake(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options) {
  auto twin = read_twin(bake_bytes(text, kind, options));
  return twin ? std::move(twin).value() : Twin{};  // what the baker writes always reads back
}

Result<BakeReport> bake_tree(const std::string& path, BakeIo& io, bool force, unsigned threads) {
  BakeReport report;
  std::set<std::string> seen{lower(path)};
  std::vector<std::string> level{path};
  while (!level.empty()) {
    // Read this level, bake it on worker threads, write it; its includes form the next level.
    struct Job {
      std::string path;
      SharedBytes text;
      std::vector<std::uint8_t> twin;
      std::vector<std::string> includes;
    };
    std::vector<Job> jobs;
    std::vector<std::string> kept;  // includes named by fresh twins
    for (const std::string& p : level) {
      // A fresh twin stays, and is read (not baked again) for the includes it names.
      if (!force && io.fresh(p, twin_name(p)))
        if (auto bytes = io.read(twin_name(p)); bytes)
          if (auto twin = read_twin(bytes->view); twin) {
            report.fresh.push_back(twin_name(p));
            for (const TwinEntry& e : twin->entries)
              if (e.tag == EntryTag::include && e.files > 0) kept.emplace_back(twin->include_string(e, 0));
            continue;
          }
      auto bytes = io.read(p);
      if (!bytes) {
        if (p == path) return bytes.error();
        report.missing.push_back(p);
        continue;
      }
      jobs.push_back({p, std::move(bytes).value(), {}, {}});
    }
    // Files side by side; a file alone in its level (a big scenery) in parts side by side.
    const unsigned each = jobs.size() == 1 ? threads : 1;
    for_each_claimed(threads, jobs.size(), [&](std::size_t i) {
      jobs[i].twin = bake_bytes(jobs[i].text.view, kind_for(jobs[i].path), {}, &jobs[i].includes, each);
    });

    level.clear();
    auto follow = [&](const std::vector<std::string>& includes) {
      for (const std::string& file : includes) {
        if (file.empty() || file == "[" || file == "]") continue;
        if (seen.insert(lower(file)).second) level.push_back(file);
      }
    };
    for (Job& job : jobs) {
      const std::string target = twin_name(job.path);
      report.bytes_in += job.text.view.size();
      if (Error e = io.write(target, job.twin)) return e;
      report.bytes_out += job.twin.size();
      report.written.push_back(target);
      follow(job.includes);
    }
    follow(kept);
  }
  return report;
}

}  // namespace sceneria::scenery
