#include "formats/fiz/format.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/fiz/fiz.hpp"
#include "formats/maszyna/definition_file.hpp"
#include "formats/row_lists.hpp"
#include "formats/textures.hpp"
#include "formats/typed_writer.hpp"
#include "io/json_io.hpp"

namespace sceneria::fiz {
namespace {

using ojson = nlohmann::ordered_json;

// A vehicle's physics file: its lines (what is written back), what the engine reads of them with
// includes followed (the records), and the box its dimensions make.
class FizDocument final : public RowsByIndex {
 public:
  FizDocument(File file, std::uint64_t size, const IncludeLoader& load) : file_(std::move(file)), size_(size) {
    const auto bytes = write_file(file_);
    fiz_ = read_entries(bytes, load);
    dims_ = dimensions(fiz_);
    for (std::size_t i = 0; i < fiz_.entries.size(); ++i)
      if (fiz_.entries[i].kind == Entry::Kind::section) sections_.push_back(i);
  }
  const File& file() const { return file_; }

  std::string_view format_id() const override { return "fiz"; }
  std::string headline() const override {
    return fmt::format("MaSzyna vehicle physics, {} lines, {} sections{}", file_.lines.size(), sections_.size(), size_text());
  }

  ojson summary(std::size_t) const override {
    ojson j;
    j["format"] = "fiz";
    j["version"] = 0;
    j["size"] = size_;
    std::uint64_t rows = 0;
    for (const Entry& e : fiz_.entries) rows += e.kind == Entry::Kind::row;
    j["counts"] = {{"lines", file_.lines.size()}, {"entries", fiz_.entries.size()}, {"sections", sections_.size()}, {"table_rows", rows}};
    ojson dims = ojson::object();
    if (dims_.length) dims["L"] = *dims_.length;
    if (dims_.height) dims["H"] = *dims_.height;
    if (dims_.width) dims["W"] = *dims_.width;
    j["dimensions"] = std::move(dims);
    auto files = ojson::array();
    for (std::size_t i = 1; i < fiz_.files.size(); ++i) files.push_back(display_text(fiz_.files[i]));
    j["included"] = std::move(files);
    auto structure = ojson::array();
    for (std::size_t i : sections_) {
      const Entry& e = fiz_.entries[i];
      if (e.file != 0) continue;
      structure.push_back({{"name", e.name}, {"offset", e.offset}, {"size", e.text.size()}, {"detail", fmt::format("line {}, {} values", e.line, e.fields.size())}});
    }
    j["structure"] = std::move(structure);
    j["structureName"] = "sections";
    return j;
  }

  std::vector<ListInfo> lists() const override {
    std::vector<ListInfo> out;
    if (!sections_.empty()) out.push_back({"sections", "Sections", sections_.size()});
    if (!fiz_.entries.empty()) out.push_back({"entries", "Lines the engine reads", fiz_.entries.size()});
    return out;
  }
  ojson record(std::string_view list, std::uint64_t index) const override {
    const Entry* e = entry(list, index);
    if (!e) return nullptr;
    ojson j;
    j["kind"] = kind_name(e->kind);
    if (!e->name.empty()) j["name"] = display_text(e->name);
    j["file"] = e->file == 0 ? std::string("(this file)") : display_text(fiz_.files[e->file]);
    j["line"] = e->line;
    j["offset"] = e->offset;
    j["text"] = display_text(e->text);
    if (!e->fields.empty()) {
      ojson fields = ojson::object();
      for (const Field& f : e->fields)
        if (!f.repeated) fields[display_text(f.key)] = display_text(f.value);
      j["values"] = std::move(fields);
      auto repeated = ojson::array();
      for (const Field& f : e->fields)
        if (f.repeated) repeated.push_back(display_text(f.key));
      if (!repeated.empty()) j["given_again"] = std::move(repeated);  // the engine reads the first
    }
    if (!e->cells.empty()) {
      auto cells = ojson::array();
      for (const std::string& c : e->cells) cells.push_back(display_text(c));
      j[e->kind == Entry::Kind::include ? "params" : "cells"] = std::move(cells);
    }
    return j;
  }

  // The vehicle's body as a box (L long along Z, W wide, H high, standing on the ground): what a
  // scenery draws for it until its model loads.
  Result<scene::Scene> scene() const override {
    scene::Scene s;
    s.grid = {.cell = 1000.0, .centre = 250, .cells = 500};
    const std::uint32_t kind = s.add_kind("sections");
    s.add_material({});
    if (!dims_.length || !dims_.width || !dims_.height) {
      s.finish();
      return s;
    }
    const float l = static_cast<float>(*dims_.length), w = static_cast<float>(*dims_.width), h = static_cast<float>(*dims_.height);
    scene::Material look;
    look.name = "body";
    look.color = scene::rgba(0.55f, 0.62f, 0.70f);
    s.meshes.push_back(scene::box_mesh("body", {-w / 2, 0, -l / 2}, {w / 2, h, l / 2}, s.add_material(look)));
    scene::Section& sec = s.section_at(glm::dvec3(0));
    scene::Instance inst;
    inst.offset = glm::vec3(-sec.origin);
    std::uint64_t dims_index = 0;
    for (std::size_t k = 0; k < sections_.size(); ++k)
      if (fiz_.entries[sections_[k]].name == "Dimensions") dims_index = k;
    inst.object = s.add_object(kind, dims_index, glm::dvec3(0, h / 2, 0), l / 2);
    sec.instances.push_back(inst);
    s.finish();
    return s;
  }

  std::vector<Warning> warnings() const override {
    std::vector<Warning> out;
    for (const std::string& m : fiz_.missing) out.push_back(note(fmt::format("include {} not found", display_text(m))));
    if (!dims_.length) out.push_back(note("no Dimensions: L= (the engine gives the vehicle no length, and does not place it)"));
    return out;
  }
  std::vector<std::string> missing_assets() const override { return fiz_.missing; }

  Error dump_to(ByteSink& sink, int indent) const override {
    JsonText t(sink, indent);
    t.open_form("fiz", 1);
    t.key("lines");
    t.open_array();
    for (const Line& l : file_.lines) string_text(t, l.text + l.eol);
    t.close();
    // What the engine reads of them, for tools; not read back (the lines are the file).
    t.key("entries");
    t.open_array();
    for (const Entry& e : fiz_.entries) {
      t.open_object();
      t.key("kind");
      t.string(kind_name(e.kind));
      if (!e.name.empty()) {
        t.key("name");
        string_text(t, e.name);
      }
      t.key("file");
      t.number(std::uint64_t{e.file});
      t.key("line");
      t.number(std::uint64_t{e.line});
      if (!e.fields.empty()) {
        t.key("values");
        t.open_array();
        for (const Field& f : e.fields) {
          t.open_array();
          string_text(t, f.key);
          string_text(t, f.value);
          t.close();
        }
        t.close();
      }
      if (!e.cells.empty()) {
        t.key("cells");
        t.open_array();
        for (const std::string& c : e.cells) string_text(t, c);
        t.close();
      }
      t.close();
    }
    t.close();
    t.close();
    return t.flush();
  }

 private:
  std::string size_text() const {
    if (!dims_.length) return "";
    return fmt::format(", {:g} x {:g} x {:g} m", *dims_.length, dims_.width.value_or(0), dims_.height.value_or(0));
  }
  std::uint64_t list_size(std::string_view list) const override {
    return list == "sections" ? sections_.size() : list == "entries" ? fiz_.entries.size() : 0;
  }
  const Entry* entry(std::string_view list, std::uint64_t i) const {
    if (i >= list_size(list)) return nullptr;
    return &fiz_.entries[list == "sections" ? sections_[static_cast<std::size_t>(i)] : static_cast<std::size_t>(i)];
  }
  ojson row(std::string_view list, std::uint64_t i) const override {
    const Entry& e = *entry(list, i);
    std::string detail;
    if (e.kind == Entry::Kind::section) {
      for (const Field& f : e.fields)
        if (!f.repeated) detail += (detail.empty() ? "" : " ") + f.key + "=" + f.value;
    } else {
      detail = std::string(kind_name(e.kind)) + ": " + e.text;
    }
    return ojson{{"i", i}, {"name", display_text(e.name.empty() ? std::string(kind_name(e.kind)) : e.name)}, {"detail", display_text(detail)}, {"line", e.line}};
  }

  File file_;
  std::uint64_t size_ = 0;
  Effective fiz_;
  Dimensions dims_;
  std::vector<std::size_t> sections_;
};

bool probe(std::span<const std::uint8_t> head, std::string_view name) { return iends_with(name, ".fiz") || json_form_is(head, name, "fiz"); }

// The JSON form read back: its lines are the file.
Result<File> read_json(std::span<const std::uint8_t> bytes) {
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "fiz") return Error{Errc::bad_value, 0, "not a .fiz JSON document (\"format\": \"fiz\" missing)"};
  if (!j.contains("schema") || j["schema"] != 1) return Error{Errc::bad_value, 0, "unsupported .fiz JSON schema (this build reads schema 1)"};
  if (!j.contains("lines") || !j["lines"].is_array()) return Error{Errc::bad_value, 0, "\"lines\": missing or not a list"};
  std::vector<std::uint8_t> text;
  for (std::size_t i = 0; i < j["lines"].size(); ++i) {
    std::string line;
    if (!string_from_json(j["lines"][i], line)) return Error{Errc::bad_value, 0, fmt::format("lines[{}]: not a string", i)};
    text.insert(text.end(), line.begin(), line.end());
  }
  return read_file(text);
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  auto opened = maszyna::open_definition(source, "fiz");
  if (!opened) return opened.error();
  auto file = opened->json ? read_json(opened->bytes.view) : read_file(opened->bytes.view);
  if (!file) return file.error();
  // Includes name files in the vehicle's folder (the engine's parser path), not the includer's.
  const std::string folder = folder_of(source.name());
  IncludeLoader load;
  if (options.assets) load = [&options, folder](const std::string& name) { return maszyna::read_definition(*options.assets, folder + name); };
  return std::unique_ptr<Document>(new FizDocument(std::move(file).value(), source.size(), load));
}

Result<std::vector<std::uint8_t>> write(const FizDocument& doc, const WriteOptions&) { return write_file(doc.file()); }

}  // namespace

const Format& format() {
  static const Format f{
      .id = "fiz",
      .name = "MaSzyna vehicle physics (.fiz)",
      .extensions = {".fiz"},
      .probe = probe,
      .open = open,
      .writers = {{"fiz", ".fiz", "the vehicle physics file, line by line as read", "", typed<FizDocument, write>},
                  dump_writer("lossless JSON: its lines, and the entries the engine reads (docs/json-forms.md#fiz)")},
      .companions = "with the files it includes",
  };
  return f;
}

}  // namespace sceneria::fiz
