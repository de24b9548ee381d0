#include "formats/t3d/format.hpp"

#include <map>

#include <fmt/format.h>

#include "formats/textures.hpp"
#include "core/text.hpp"
#include "formats/e3d/document.hpp"
#include "formats/e3d/format.hpp"
#include "formats/open_file.hpp"
#include "formats/maszyna/tokenizer.hpp"
#include "formats/t3d/t3d.hpp"

namespace sceneria::t3d {
namespace {

using ojson = nlohmann::ordered_json;

// A T3D opens as the E3D the engine would make of it (the tree, records and scene are the
// converted model's, so a viewer shows what the simulator shows), with the text's own summary
// and warnings; records also say where in the text each submodel is.
class T3dDocument final : public e3d::ModelDocument {
 public:
  T3dDocument(Model text, e3d::Model converted, std::uint64_t size)
      : ModelDocument(std::move(converted), size), warnings_(std::move(text.warnings)), includes_(std::move(text.includes)) {
    for (const Submodel& s : text.submodels) {
      vertices_in_file_ += s.vertices_in_file;
      if (!s.name.empty()) lines_.emplace(s.name, s.line);
    }
    file_submodels_ = text.submodels.size();
  }

  std::string_view format_id() const override { return "t3d"; }

  std::string headline() const override {
    return fmt::format("T3D model, {} submodels, {} vertices ({} as written), {} indices, {} textures", m_.submodels.size(), vertices(), vertices_in_file_,
                       indices(), texture_count());
  }

  ojson summary(std::size_t n) const override {
    ojson j = ModelDocument::summary(n);
    j["format"] = "t3d";
    j["version"] = 0;  // the text has no version
    j["layout"] = fmt::format("converted: SUB0 VNT{} IDX{} TRA0", m_.vertex_variant, m_.index_size);
    j["vertices_in_file"] = vertices_in_file_;
    j["submodels_in_file"] = file_submodels_;
    auto inc = ojson::array();
    for (const std::string& s : includes_) inc.push_back(display_text(s));
    j["includes"] = std::move(inc);
    // The structure is the E3D it converts to (what `convert` writes), named as such.
    j["structureName"] = "chunks of the converted E3D";
    return j;
  }

  ojson record(std::string_view list, std::uint64_t index) const override {
    ojson r = ModelDocument::record(list, index);
    if (list == "submodels" && r.is_object()) {
      const std::string name(m_.name_of(m_.submodels[static_cast<std::size_t>(index)]));
      if (auto it = lines_.find(name); it != lines_.end()) r["line"] = it->second;
    }
    return r;
  }

  std::vector<Warning> warnings() const override { return warnings_; }

 private:
  std::vector<Warning> warnings_;
  std::vector<std::string> includes_;
  std::multimap<std::string, std::uint32_t> lines_;
  std::uint64_t vertices_in_file_ = 0, file_submodels_ = 0;
};

// A T3D starts with `Parent:` (comments aside); the extension alone also says so.
bool probe(std::span<const std::uint8_t> head, std::string_view name) {
  if (iends_with(name, ".t3d")) return true;
  for (std::uint8_t c : head)
    if (c == 0) return false;
  maszyna::TextTokenizer tok(head);
  maszyna::TextToken t;
  return tok.next(t) && iequals(t.text, "parent:");
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  auto bytes = read_whole(source, "model");
  if (!bytes) return bytes.error();
  auto model = read_model(bytes->view);
  if (!model) return model.error();
  if (model->root < 0) return Error{Errc::bad_value, 0, "no submodel in the text (a T3D starts with Parent:)"};
  e3d::Model converted = to_e3d(*model);
  auto doc = std::make_unique<T3dDocument>(std::move(model).value(), std::move(converted), bytes->view.size());
  doc->apply(options, source.name());
  return std::unique_ptr<Document>(std::move(doc));
}

}  // namespace

const Format& format() {
  static const Format f{
      .id = "t3d",
      .name = "MaSzyna text model (.t3d)",
      .extensions = {".t3d"},
      .probe = probe,
      .open = open,
      .writers = {{"e3d", ".e3d", "E3D model as the engine's converter writes it (float vertices, the banana root)", "", e3d::write_e3d},
                  dump_writer("lossless JSON of the E3D it converts to (docs/json-forms.md)")},
      .companions = "with its textures (and skin sets) beside it or in the game's textures/ folder",
      .companion_extensions = texture_file_extensions(),
      .choices = e3d::model_choices(),
  };
  return f;
}

}  // namespace sceneria::t3d
