#include "formats/scenery/bake.hpp"

#include <string>
#include <unordered_map>

#include "formats/registry.hpp"
#include "formats/scenery/tokens.hpp"

#include <atomic>
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

class Baker {
 public:
  Twin twin;

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

  void include(std::span<const Token> parts) {  // include, file expression, parameters, end
    flags_ |= 1;
    TwinEntry e;
    e.tag = EntryTag::include;
    e.index = static_cast<std::uint32_t>(twin.include_strings.size());
    // One file name (a headless bake captures no random sets: `[` is the name, the rest
    // parameters), then the parameters; the terminating `end` is not stored.
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const std::string_view s = parts[i].text;
      if (i > 1 && i + 1 == parts.size() && s == "end") break;
      twin.include_strings.push_back(intern(s));
      ++(i == 1 ? e.files : e.params);
    }
    if (parts.size() == 1) {  // `include` at the end of the file: an empty name
      twin.include_strings.push_back(intern(""));
      e.files = 1;
    }
    add(e);
  }

  void finish() {
    if (in_node_) close();
    twin.flags = flags_;
  }

 private:
  std::uint32_t intern(std::string_view s) {
    auto [it, inserted] = lookup_.try_emplace(std::string(s), static_cast<std::uint32_t>(twin.strings.size()));
    if (inserted) twin.strings.emplace_back(s);
    return it->second;
  }
  void add(TwinEntry e) {
    if (in_node_) {
      e.marker = static_cast<std::uint32_t>(twin.markers.size() - 1);
      ++twin.markers.back().entry_count;
    }
    twin.entries.push_back(e);
  }
  void put(const Token& t) {
    TwinEntry e;
    if (t.kind == TokenKind::number) {
      if (t.encoding == EntryTag::f32) e = TwinEntry::f32_entry(static_cast<float>(t.value));
      else if (t.encoding == EntryTag::f64) e = TwinEntry::f64_entry(t.value);
      e.tag = t.encoding;
      e.number = stored_value(t.value, t.encoding);
      e.integer = t.encoding == EntryTag::int_number ? static_cast<std::int64_t>(t.value) : 0;
    } else {
      e.tag = t.kind == TokenKind::quoted ? EntryTag::qtoken : EntryTag::token;
      e.index = intern(t.text);
    }
    add(e);
  }

  void open() {
    in_node_ = true;
    entry_ = 0;
    rule_ = nullptr;
    stage_ = Stage::body;
    TwinMarker m;
    m.first_entry = static_cast<std::uint32_t>(twin.entries.size());
    twin.markers.push_back(m);
  }
  void close() {
    in_node_ = false;
    TwinMarker& m = twin.markers.back();
    if (rule_ && rule_->visual) {
      m.cls = NodeClass::visual_pos;
      m.has_position = true;
      for (int k = 0; k < 3; ++k) m.position[k] = pos_[k];
      m.range = range_;
    } else {
      m.cls = NodeClass::infra;
      flags_ |= 1;
    }
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
  std::unordered_map<std::string, std::uint32_t> lookup_;
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

Twin bake(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options) {
  Baker b;
  b.twin.kind = kind;
  TextTokenSource source(text, options);
  Token t;
  std::vector<Token> include;
  std::vector<std::string> include_text;
  while (source.next(t)) {
    if (t.in_include) {
      include.push_back(t);
      include_text.emplace_back(t.text);
      if (t.ends_include) {
        for (std::size_t i = 0; i < include.size(); ++i) include[i].text = include_text[i];
        b.include(include);
        include.clear();
        include_text.clear();
      }
      continue;
    }
    b.token(t);
  }
  if (!include.empty()) {
    for (std::size_t i = 0; i < include.size(); ++i) include[i].text = include_text[i];
    b.include(include);
  }
  b.finish();
  return std::move(b.twin);
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
      Twin twin;
    };
    std::vector<Job> jobs;
    for (const std::string& p : level) {
      auto bytes = io.read(p);
      if (!bytes) {
        if (p == path) return bytes.error();
        report.missing.push_back(p);
        continue;
      }
      jobs.push_back({p, std::move(bytes).value(), {}});
    }
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t i; (i = next++) < jobs.size();) jobs[i].twin = bake(jobs[i].text, kind_for(jobs[i].path));
    };
    const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(jobs.size())));
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();

    level.clear();
    for (Job& job : jobs) {
      const std::string target = twin_name(job.path);
      report.bytes_in += job.text.size();
      if (!force && io.fresh(job.path, target)) {
        report.fresh.push_back(target);
      } else {
        const auto bytes = write_twin(job.twin);
        if (Error e = io.write(target, bytes)) return e;
        report.bytes_out += bytes.size();
        report.written.push_back(target);
      }
      for (const TwinEntry& e : job.twin.entries) {
        if (e.tag != EntryTag::include || e.files == 0) continue;
        const std::string file(job.twin.include_string(e, 0));
        if (file.empty() || file == "[" || file == "]") continue;
        if (seen.insert(lower(file)).second) level.push_back(file);
      }
    }
  }
  return report;
}

}  // namespace sceneria::scenery
