#include "formats/scenery/bake.hpp"

#include <string>
#include <unordered_map>

#include "formats/registry.hpp"
#include "formats/scenery/tokens.hpp"

#include <atomic>
#include <cstring>
#include <deque>
#include <set>
#include <thread>

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
  Baker(TwinKind kind, std::size_t text_size) : kind_(kind) {
    main_.reserve(text_size / 2 + text_size / 8 + 64);
    lookup_.reserve(1024);
  }

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

  // The whole twin: header, string table, entries.
  std::vector<std::uint8_t> finish() {
    if (in_node_) close();
    std::vector<std::uint8_t> head;
    put_twin_header(head, kTwinVersion, kind_, flags_);
    append_varint(head, strings_.size());
    for (const std::string& s : strings_) put_twin_string(head, s);
    // In front of the entries, in place where the reserve allows: no second twin-sized buffer.
    main_.insert(main_.begin(), head.begin(), head.end());
    return std::move(main_);
  }

  // The first file name of every include, in order (what a tree bake follows).
  const std::vector<std::string>& includes() const { return includes_; }

 private:
  std::vector<std::uint8_t>& sink() { return in_node_ ? body_ : main_; }

  std::uint32_t intern(std::string_view s) {
    if (auto it = lookup_.find(s); it != lookup_.end()) return it->second;
    const auto index = static_cast<std::uint32_t>(strings_.size());
    strings_.emplace_back(s);  // a deque: the views in lookup_ stay valid
    lookup_.emplace(strings_.back(), index);
    return index;
  }

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
    if (i == 1) range_ = number ? static_cast<float>(v) : -1.0f;
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
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, std::uint32_t, ShortStringHash> lookup_;
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
  std::uint32_t flags_ = 0;
};

}  // namespace

TwinKind kind_for(std::string_view name) {
  if (iends_with(name, ".inc")) return TwinKind::inc;
  if (iends_with(name, ".scm")) return TwinKind::scm;
  return TwinKind::scn;
}

std::string twin_name(std::string_view name) { return std::string(name) + "b"; }

std::vector<std::uint8_t> bake_bytes(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options,
                                     std::vector<std::string>* includes) {
  Baker b(kind, text.size());
  TextTokenSource source(text, options);
  Token t;
  std::vector<std::string> include;
  while (source.next(t)) {
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
  if (includes) *includes = b.includes();
  return b.finish();
}

Twin bake(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options) {
  auto twin = read_twin(bake_bytes(text, kind, options));
  return twin ? std::move(twin).value() : Twin{};  // what the baker writes always reads back
}

Result<BakeReport> bake_tree(const std::string& path, BakeIo& io, bool force) {
  BakeReport report;
  std::set<std::string> seen{lower(path)};
  std::vector<std::string> level{path};
  while (!level.empty()) {
    // Read this level, bake it on worker threads, write it; its includes form the next level.
    struct Job {
      std::string path;
      std::vector<std::uint8_t> text;
      std::vector<std::uint8_t> twin;
      std::vector<std::string> includes;
    };
    std::vector<Job> jobs;
    std::vector<std::string> kept;  // includes named by fresh twins
    for (const std::string& p : level) {
      // A fresh twin stays, and is read (not baked again) for the includes it names.
      if (!force && io.fresh(p, twin_name(p)))
        if (auto bytes = io.read(twin_name(p)); bytes)
          if (auto twin = read_twin(*bytes); twin) {
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
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t i; (i = next++) < jobs.size();) jobs[i].twin = bake_bytes(jobs[i].text, kind_for(jobs[i].path), {}, &jobs[i].includes);
    };
    const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(jobs.size())));
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();

    level.clear();
    auto follow = [&](const std::vector<std::string>& includes) {
      for (const std::string& file : includes) {
        if (file.empty() || file == "[" || file == "]") continue;
        if (seen.insert(lower(file)).second) level.push_back(file);
      }
    };
    for (Job& job : jobs) {
      const std::string target = twin_name(job.path);
      report.bytes_in += job.text.size();
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
