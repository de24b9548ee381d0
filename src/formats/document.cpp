#include "formats/document.hpp"

#include "core/text.hpp"

namespace sceneria {

namespace {

// scene() whole as the one piece; fields from the document's records.
class WholeScene final : public scene::Pieces {
 public:
  explicit WholeScene(const Document& document) : document_(document) {}
  Result<scene::Scene> base() override { return document_.scene(); }
  nlohmann::ordered_json fields(const scene::Object& object, const std::string& kind) override {
    return document_.record(kind, object.index);
  }

 private:
  const Document& document_;
};

}  // namespace

std::unique_ptr<scene::Pieces> Document::scene_pieces() const { return std::make_unique<WholeScene>(*this); }

nlohmann::ordered_json lists_json(const Document& document) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& l : document.lists()) {
    out.push_back({{"id", l.id}, {"label", l.label}, {"count", l.count}});
    if (!l.browsable) out.back()["browsable"] = false;
    if (!l.groups.empty()) {
      auto groups = nlohmann::ordered_json::array();
      for (const ListGroup& g : l.groups) groups.push_back({{"id", g.id}, {"label", display_text(g.label)}, {"count", g.count}});
      out.back()["groups"] = std::move(groups);
      out.back()["allGroups"] = l.all_groups;
    }
  }
  return out;
}

nlohmann::ordered_json choices_json(const std::vector<Choice>& choices) {
  auto out = nlohmann::ordered_json::array();
  for (const Choice& c : choices) {
    auto values = nlohmann::ordered_json::array();
    // Values may be names from the file (skin sets): kept as text, whatever their bytes.
    for (const ChoiceValue& v : c.values) values.push_back({{"value", display_text(v.value)}, {"label", display_text(v.label)}});
    out.push_back({{"param", c.param}, {"label", c.label}, {"help", c.help}, {"toggle", c.toggle}, {"values", std::move(values)}, {"value", display_text(c.value)}});
  }
  return out;
}

}  // namespace sceneria
