#pragma once
// What every format's reader opens into, and all that callers (the CLI, the bindings, the page)
// ever see of a format: a summary, record lists with rows and full records, the scene to draw,
// warnings with their locations, what it can be written as. A format is one folder under
// src/formats/ implementing this, plus one line in formats/catalog.cpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/byte_sink.hpp"
#include "scene/pieces.hpp"
#include "scene/scene.hpp"

namespace sceneria {

// One list of records. The document owns ids, labels and numbering: a scene object (kind, index)
// names a list id and a row in it, and rows/record answer for exactly that numbering.
// Some of a list's records: those that came from one file of a scenery with includes.
struct ListGroup {
  std::uint64_t id = 0;
  std::string label;
  std::uint64_t count = 0;
};

struct ListInfo {
  std::string id;     // "tracks", "pack_models", ...
  std::string label;  // "Tracks", "PACK models", ...
  std::uint64_t count = 0;
  // False for a list whose items come and go (a streamed file's parts as they load): its records
  // are reached from the view, not browsed as rows.
  bool browsable = true;
  // The records in groups (rows_in_group): by the file they came from, or another way the
  // format has (a scenery's vehicles by trainset); `all_groups` names the choice of all of them.
  std::vector<ListGroup> groups = {};
  std::string all_groups = "All files";
};

// A choice a format offers when a file is opened (a model's skin set, a B3D module's LOD group).
// A format declares the ones it takes (Format::choices) as it declares its writers' params; an
// open document gives those that apply to it, with the values it offers and the one in use
// (Document::choices). Hosts render and pass them (OpenOptions::params) without knowing the format.
struct ChoiceValue {
  std::string value;  // what OpenOptions::params carries ("soc")
  std::string label;  // what a host shows ("SoC: equal groups are smooth")
};
struct Choice {
  std::string param;    // the OpenOptions::params key ("skin-set"), also the CLI's --param key
  std::string label;    // "Skin set"
  std::string help;     // one sentence: what it changes
  bool toggle = false;  // values "false" and "true": a check box
  // Declared: the values every file takes (empty: each file offers its own, given by its
  // document). From a document: those it offers.
  std::vector<ChoiceValue> values = {};
  std::string value = {};  // declared: the default; from a document: the one in use
};

class Document {
 public:
  virtual ~Document() = default;

  virtual std::string_view format_id() const = 0;  // the registry's id
  // One line for titles and `validate`: format, version and what it holds.
  virtual std::string headline() const = 0;
  // {"format", "version", "size", "counts": {...}, "structure": [{"name","offset","size","detail"}],
  // format-specific extras...}; "stringSample" holds the first `string_sample` strings as text.
  virtual nlohmann::ordered_json summary(std::size_t string_sample) const = 0;
  virtual std::vector<ListInfo> lists() const = 0;
  // [{"i": index, "name": ..., "detail": ...}, ...]
  virtual nlohmann::ordered_json rows(std::string_view list, std::uint64_t first, std::uint64_t count) const = 0;
  // Rows of the records in one of the list's groups (ListInfo::groups), `first` counted in it.
  virtual nlohmann::ordered_json rows_in_group(std::string_view, std::uint64_t, std::uint64_t, std::uint64_t) const {
    return nlohmann::ordered_json::array();
  }
  // Rows whose name or detail contains `query` (case-insensitive), at most `limit`.
  virtual nlohmann::ordered_json search(std::string_view list, std::string_view query, std::uint64_t limit) const = 0;
  // Every field of one record, strings as text; null if there is none (or it is not loaded).
  virtual nlohmann::ordered_json record(std::string_view list, std::uint64_t index) const = 0;
  // What to draw; object kinds are list ids. A format with nothing to draw returns an empty scene.
  virtual Result<scene::Scene> scene() const = 0;
  // The same scene in pieces (scene::Pieces), each let go when the next comes: what exports take,
  // so that memory holds one piece of a big scene at a time. By default scene() is the one piece.
  virtual std::unique_ptr<scene::Pieces> scene_pieces() const;
  // A document opened in stages (OpenOptions::staged; a scenery: its infrastructure first) has
  // more to load after its first view. Each call gives the next piece of the scene, nearest
  // `camera` first, as a delta continuing the scene the viewer holds (scene() as it was when
  // opened, then every delta given before; scene::merge_delta). The first call reads the rest,
  // whose records then join the lists. nullopt: nothing more to give.
  virtual std::optional<scene::Scene> next_stage(const glm::dvec3& /*camera*/) { return std::nullopt; }
  virtual bool staging() const { return false; }  // whether next_stage has more to give
  // Non-fatal findings from reading (with locations), and deeper checks (`sceneria validate`).
  virtual std::vector<Warning> warnings() const { return {}; }
  virtual std::vector<Warning> validate() const { return warnings(); }
  // Files the document refers to that the asset resolver could not find.
  virtual std::vector<std::string> missing_assets() const { return {}; }
  // The open choices (Format::choices) that apply to this file: the values it offers and the one
  // it was opened with. A choice that changes nothing for it (no skin sets, one LOD group) is left out.
  virtual std::vector<Choice> choices() const { return {}; }
  // The document losslessly as JSON (`sceneria dump`; docs/json-forms.md), written to `sink` as
  // text (`indent` < 0: compact, else nlohmann's dump(indent) layout) as it is walked, never built
  // as a tree. An error if the format has no JSON form.
  virtual Error dump_to(ByteSink& /*sink*/, int /*indent*/) const { return Error{Errc::bad_value, 0, "this format has no JSON form"}; }
};

// Lists as JSON for the page and `info --json`: [{"id","label","count"}].
nlohmann::ordered_json lists_json(const Document& document);
// Choices as JSON: [{"param","label","help","toggle","values":[{"value","label"}],"value"}].
nlohmann::ordered_json choices_json(const std::vector<Choice>& choices);

}  // namespace sceneria
