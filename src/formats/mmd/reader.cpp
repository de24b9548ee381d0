#include <algorithm>
#include <cstdlib>
#include <limits>

#include "formats/maszyna/tokenizer.hpp"
#include "formats/mmd/mmd.hpp"

namespace sceneria::mmd {
namespace {

bool is_key(std::string_view word, bool quoted) {
  if (quoted) return false;
  if (word.size() > 1 && word.back() == ':') return true;
  const std::string w = maszyna::lower(word);
  return w == "include" || w == "endmodels" || w == "endsounds" || w == "endlocations";
}

// The block a top-level key opens, and the word that closes it ("" : the end of the file).
std::string_view block_of(std::string_view key) {
  if (key == "models:") return "models";
  if (key == "sounds:") return "sounds";
  if (key == "locations:") return "locations";
  if (key == "internaldata:") return "internaldata";
  return {};
}
std::string_view end_of(std::string_view block) {
  if (block == "models") return "endmodels";
  if (block == "sounds") return "endsounds";
  if (block == "locations") return "endlocations";
  return {};
}

// A location as the engine reads one: std::atof ("nan", "inf" and hex included).
double atof_of(const std::string& word) { return std::strtod(word.c_str(), nullptr); }

std::string engine_name(std::string name) {
  std::replace(name.begin(), name.end(), '\\', '/');
  name.erase(0, std::min(name.find_first_not_of('/'), name.size()));
  return name;
}

// The words the engine's parser gives, lower-cased, (pN) replaced, includes read in place.
struct Words {
  const IncludeLoader& load;
  std::vector<std::string> out;
  std::vector<std::string> includes, missing;
  std::size_t budget = 1u << 22;  // words in all: includes that include each other stop here


  void file(std::span<const std::uint8_t> bytes, const std::vector<std::string>& params, int depth) {
    // The parser replaces (pN) only in a file given parameters (parser.cpp readToken).
    const auto sub = [&params](std::string_view token) { return params.empty() ? std::string(token) : maszyna::substitute(token, params); };
    maszyna::TextTokenizer t(bytes);
    maszyna::TextToken token;
    while (out.size() < budget && t.next(token)) {
      std::string word = maszyna::lower(sub(token.text));
      if (word != "include") {
        out.push_back(std::move(word));
        continue;
      }
      std::string name;
      std::vector<std::string> inner;
      if (t.next(token)) name = engine_name(maszyna::lower(sub(token.text)));
      while (t.next(token)) {  // parameters keep their case (parser.cpp readParameters)
        std::string p = sub(token.text);
        if (p == "end") break;
        inner.push_back(std::move(p));
      }
      if (name.empty()) continue;
      std::optional<std::vector<std::uint8_t>> included;
      if (depth < 16 && load) included = load(name);
      if (!included) {
        missing.push_back(name);
        continue;
      }
      includes.push_back(name);
      file(*included, inner, depth + 1);
    }
  }
};

}  // namespace

Result<File> read_file(std::span<const std::uint8_t> bytes) {
  File f;
  maszyna::TextTokenizer t(bytes);
  maszyna::TextToken token;
  std::string block;
  bool in_include = false;  // an include's words up to its `end` are its values
  const auto text_of = [&](std::size_t from, std::size_t to) { return std::string(reinterpret_cast<const char*>(bytes.data()) + from, to - from); };
  while (t.next(token)) {
    const std::string word = maszyna::lower(token.text);
    if (in_include || !is_key(token.text, token.quoted)) {
      if (f.entries.empty()) continue;  // words before any key stay in the lead
      f.entries.back().values.emplace_back(token.text);
      if (in_include && word == "end") in_include = false;
      continue;
    }
    Entry e;
    e.key = std::string(token.text);
    e.line = token.line;
    e.offset = token.offset;
    if (!block.empty() && word == end_of(block)) {
      e.block = block;
      block.clear();
    } else if (block.empty() && !block_of(word).empty()) {
      block = std::string(block_of(word));
      e.block = block;
    } else {
      e.block = block;
    }
    in_include = word == "include";
    f.entries.push_back(std::move(e));
  }
  // Each entry's bytes run to the next one's key; the first's lead is the file's.
  const std::size_t first = f.entries.empty() ? bytes.size() : static_cast<std::size_t>(f.entries.front().offset);
  f.lead = text_of(0, first);
  for (std::size_t i = 0; i < f.entries.size(); ++i) {
    const std::size_t from = static_cast<std::size_t>(f.entries[i].offset);
    const std::size_t to = i + 1 < f.entries.size() ? static_cast<std::size_t>(f.entries[i + 1].offset) : bytes.size();
    f.entries[i].text = text_of(from, to);
  }
  return f;
}

std::vector<std::uint8_t> write_file(const File& file) {
  std::vector<std::uint8_t> out(file.lead.begin(), file.lead.end());
  for (const Entry& e : file.entries) out.insert(out.end(), e.text.begin(), e.text.end());
  return out;
}

Definition read_definition(std::span<const std::uint8_t> bytes, const Params& params, const IncludeLoader& load) {
  Words words{load, {}, {}, {}};
  words.file(bytes, {params.name, params.type, params.skin}, 0);
  Definition d;
  d.includes = std::move(words.includes);
  d.missing = std::move(words.missing);
  const std::vector<std::string>& w = words.out;
  std::size_t i = 0;
  const auto next = [&]() -> std::string { return i < w.size() ? w[i++] : std::string(); };
  const auto list_until_end = [&](auto&& each) {
    for (std::string v = next(); !v.empty() && v != "end"; v = next()) each(v);
  };
  while (i < w.size()) {
    const std::string key = next();
    if (key == "models:") {
      std::string model = engine_name(next());
      if (!model.empty() && model.back() == '#') {
        d.multi_textures = true;
        model.pop_back();
      }
      d.model = engine_name(std::move(model));
      for (std::string k = next(); !k.empty() && k != "endmodels"; k = next()) {
        if (k == "animations:" && d.animations.empty()) {
          for (int n = 0; n < 10; ++n) {  // DynObj.h ANIM_TYPES
            const std::string v = next();
            const double number = maszyna::leading_number(v);
            // The engine's atoi has no value for a count beyond int (undefined in C): such a
            // count ends the list as a negative one does.
            if (v.empty() || !(number >= 0) || number > std::numeric_limits<int>::max()) break;
            d.animations.push_back(static_cast<int>(number));
          }
        } else if (k == "lowpolyinterior:") {
          d.lowpoly_interior = engine_name(next());
        } else if (k == "coupleradapter:") {
          d.coupler_adapter = engine_name(next());
          next(), next();  // its position
        } else if (k == "attachments:") {
          for (std::string v = next(); !v.empty() && v != "}"; v = next())
            if (v != "{") d.attachments.push_back(engine_name(v));
        }
      }
    } else if (key == "sounds:") {
      for (std::string k = next(); !k.empty() && k != "endsounds"; k = next()) {
      }
    } else if (key == "locations:") {
      for (std::string k = next(); !k.empty() && k != "endlocations"; k = next()) {
        if (k == "doors:") {
          list_until_end([&](const std::string& v) { d.doors.emplace_back(-atof_of(v), next()); });
        } else if (k == "tractionmotors:") {
          list_until_end([&](const std::string& v) { d.motors.push_back(-atof_of(v)); });
        } else if (k == "bogies:") {
          list_until_end([&](const std::string& v) { d.bogies.push_back(-atof_of(v)); });
        }
      }
    } else if (key == "internaldata:") {
      for (std::string k = next(); !k.empty(); k = next()) {
        for (int cab = 0; cab < 3; ++cab)
          if (k == "cab" + std::to_string(cab) + "model:") {
            const std::string v = next();
            d.cabs[static_cast<std::size_t>(cab)] = v == "none" ? std::string() : engine_name(v);
          }
      }
    }
  }
  return d;
}

}  // namespace sceneria::mmd
