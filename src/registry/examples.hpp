#pragma once
// The gallery: a small example of every kind of file the core reads, each made by the core on
// demand (nothing from the shared samples), opened by the page exactly as the same files dropped
// as a folder. The first is the demo the page starts on.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/example.hpp"

namespace sceneria {

struct Example {
  std::string_view id, title, what;
  std::vector<ExampleFile> (*files)();  // the document first, then what it refers to
  std::optional<std::array<double, 6>> view = std::nullopt;  // an orbit to start from: target xyz, distance, yaw, pitch
};

std::span<const Example> examples();
// [{"id","title","what","view"}] for hosts.
nlohmann::ordered_json examples_json();
// The files of example `id`, made now; an error for an id that is not there.
Result<std::vector<ExampleFile>> example_files(std::string_view id);

}  // namespace sceneria
