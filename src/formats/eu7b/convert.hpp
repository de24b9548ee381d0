#pragma once
// Re-encoding a module at another file version and PACK section format, building UMES, UTEX,
// sub-chunks, prototypes and cell ids the way the reference writer does (notes §6). What a target
// cannot hold is an error, never a silent loss.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "io/byte_sink.hpp"

namespace sceneria::eu7b {

struct ConvertOptions {
  std::uint32_t version = 0;                  // 0 = keep
  SectionFormat pack_format = SectionFormat::flat;
  bool keep_pack_format = true;               // false: use pack_format
  // The reference writer silently drops what format 6 cannot hold (a solo model's filtered skin
  // such as "*text" or "a#b.tga", an unloadable mesh path), and versions 4-5 have no INCL site
  // transform. By default such a loss is an error; with allow_lossy the conversion does what the
  // reference does and lists each loss here.
  bool allow_lossy = false;
  std::vector<std::string>* losses = nullptr;
  // What a compile knew of each PACK placement before the f32 rounding, per PIDX section in the
  // source's order and per model in the section's order: the writer sorts and cuts sections by
  // the unrounded location, and keys and bakes prototypes by the unrounded squared ranges.
  struct Exact {
    double x = 0, z = 0;
    double range_sq_min = 0, range_sq_max = 0;  // the max is DBL_MAX when unlimited
  };
  const std::vector<std::vector<Exact>>* exact = nullptr;
};

// The natural section format of a version: 7 -> flat, 8 -> 5, 9 -> 6.
SectionFormat default_section_format(std::uint32_t version);

// Needs PACK decoded. Returns a new module whose PIDX/PROT/PACK are rebuilt.
Result<Module> convert_module(const Module& module, const ConvertOptions& options);

// The same written to `sink` a section at a time, from a module whose PACK is loaded but not
// decoded (a mapped file's): the sections are walked three times (prototypes, layout, writing),
// each decoded, rebuilt and let go, so a module of millions of models converts in a few MB. The
// bytes are convert_module's written by write_module.
Error write_converted(const Module& module, const ConvertOptions& options, ByteSink& sink);

}  // namespace sceneria::eu7b
