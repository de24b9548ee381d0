#pragma once
// The one place that names every format, as each declares itself in its folder: adding a format is
// its folder plus one line in catalog.cpp (docs/architecture.md, "How to add a format"). Reading
// only: what tells a file's format and opens it. The registry (registry/registry.hpp) is the same
// list with the scene exports added to the writers of every format that draws.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "formats/format.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "scene/scene.hpp"

namespace sceneria {

// Every format with its own writers, in probe order.
std::span<const Format> readers();
// The first of `list` (in its order) whose extensions end `name`, ignoring case; nullptr if none.
const Format* format_named_in(std::span<const Format> list, std::string_view name);
// The format of these bytes among `list`: a probe match first, else a file named like a format
// (so its reader gives the precise complaint); else an unknown_format error that lists what was
// tried.
Result<const Format*> detect_in(std::span<const Format> list, std::span<const std::uint8_t> head, std::string_view name, std::uint64_t size);
Result<const Format*> detect_in(std::span<const Format> list, ByteSource& source);
// detect + open. Errors carry the source's name in Error::file; a param the format does not
// declare, or a value outside a declared list, is a bad_value error before anything is read.
[[nodiscard]] Result<std::unique_ptr<Document>> open_document(ByteSource& source, const OpenOptions& options = {});
// A model file placed by a scenery, opened by the format its name says (never what its bytes may
// sniff as: a server answering every path with the scenery itself must not have it opened again
// as a model), its textures looked for from `texture_base` among `assets`: its scene. What
// stream::ModelLoader is given to open models with.
// `params` are the open choices the scene gives it (a vehicle's skin set), checked as a user's are.
[[nodiscard]] Result<scene::Scene> open_model_scene(ByteSource& file, AssetResolver& assets, const std::string& texture_base,
                                                    const std::vector<std::pair<std::string, std::string>>& params = {});

}  // namespace sceneria
