#pragma once
// A realistic synthetic scenery for tests, end-to-end runs and benchmarks: a double-track main
// line with curves and a station with switches, catenary, terrain tiles, shapes, lines and the
// simulation records, and `models` placements over 1 km sections. Deterministic for a seed on
// every platform (own RNG, no std::*_distribution).
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

struct GeneratorOptions {
  std::uint64_t models = 1000;
  std::uint64_t seed = 1;
  std::uint32_t version = 9;
  SectionFormat pack_format = SectionFormat::v13;
  bool keep_default_format = true;  // true: the version's natural format (7 flat, 8 "5", 9 "6")
  double track_km = 6.0;
  std::uint32_t models_per_section = 2000;  // average; sections vary around it
  // The files the PACK models place, each as likely, untextured, unnamed; empty: the generator's
  // own mix of trees, masts, buildings and signals (with named and lit ones among them).
  std::vector<std::string> model_files;
};

Result<Module> generate_module(const GeneratorOptions& options);

}  // namespace sceneria::eu7b
