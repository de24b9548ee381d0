#pragma once
// The scenery grammar (notes part B) over a token stream, text or twin alike: directives, the
// origin/rotate/scale state, every node type, trainsets, events, includes. What it reads becomes
// EU7B records (the same records a compiled module holds, so one scene builder and one record
// browser serve both), each with where it came from (file, line and column, or a twin's entry
// offset). Includes are followed through the asset resolver, with `(pN)` substituted; missing
// ones are listed, never fatal.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/error.hpp"
#include "formats/eu7b/compile_layout.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/scenery/tokens.hpp"
#include "io/assets.hpp"

namespace sceneria::scenery {

struct SourceRef {
  std::uint32_t file = 0;  // into Interpreted::files
  std::uint64_t offset = 0;
  std::uint32_t line = 0, column = 0;  // 0: a twin (offset is its entry's)
};

// A top-level directive kept as a record (atmo, time, camera, config, sky, lua, FirstInit, ...).
struct Directive {
  std::string keyword;
  std::vector<std::string> values;
  SourceRef at;
};

// A root's PACK models as the compile composes them (root_pack.hpp), unrounded.
using eu7b::PackModel;
using eu7b::PackModels;

// Where an include stands, unrounded (InterpretOptions::exact): what the writer's compose
// places an `.inc`'s models by.
struct IncludeSite {
  std::string file;                 // the file token as written
  std::vector<std::string> params;  // as written, `(pN)` left alone
  glm::dvec3 origin{0.0}, scale{1.0}, rotation{0.0};  // the stacks' tops and the rotate
  bool empty = true;  // no origin, scale, rotate or group around it
};

struct Interpreted {
  eu7b::Module module;  // version 6 records: TRAK, MESH, LINE, MODL, TRAC, PWRS, MEMC, LAUN, DYNM, SOND, TRSE, EVNT, INCL, FINT
  std::map<std::string, std::vector<SourceRef>> where;  // eu7b list id → one entry per record
  std::vector<Directive> directives;
  std::vector<std::string> files;  // [0] the document, then every include opened
  std::vector<Warning> warnings;
  std::vector<std::string> missing;  // includes not found
  std::uint64_t nodes = 0;
  // The included files read (InterpretOptions::keep_files), under the name they were asked for:
  // what a later pass, or compiling the scenery as a root, reads again once the dropped files
  // are gone.
  std::shared_ptr<MemoryAssets> kept_files;
  // Visual nodes (models, shapes, lines) an infrastructure pass read past: what a visual pass
  // (interpret_visuals) would add.
  std::uint64_t visual_nodes_left = 0;
  // Parts of the text read side by side and joined (InterpretOptions::threads); 1: one pass.
  std::uint32_t parts = 1;
  // InterpretOptions::exact: every model read and every include, unrounded, in file order; the
  // tokens no statement took (a refused node's among them), and the first `origin`/`rotate`'s
  // parameter numbers (the PLAC chunk's, 0 where not `(pN)`; empty without an origin).
  std::vector<PackModel> exact_models;
  std::vector<IncludeSite> include_sites;
  std::uint64_t unknown_tokens = 0;
  std::array<std::uint8_t, 4> placement{};
};

struct InterpretOptions {
  AssetResolver* assets = nullptr;  // includes are followed when given
  std::uint32_t max_depth = 16;     // include nesting (a file including itself stops here)
  std::uint64_t max_files = 20000;
  // Read as the reference EU7B writer does where it differs from the engine (compiling to EU7B):
  // keywords case-sensitive.
  bool reference_writer = false;
  // Compile as the root of a tree bake (EU7B version 9; notes eu7b §10): INCL records for its
  // includes, no MODL (its own models go to PACK only when compose_root_pack keeps them), and
  // PIDX/PROT/PACK of `pack_models`. Needs reference_writer.
  bool root = false;
  bool keep_files = false;
  // The engine's load passes (twin spec §7), for viewing: `infrastructure` reads everything but
  // the visual nodes (models, shapes, lines), so a scenery's track and wires can be drawn before
  // its scenery is read; interpret_visuals() then adds those. Nodes are told apart by their type,
  // not by a twin's markers, which may also span the directives between nodes (notes A5).
  LoadPass pass = LoadPass::all;
  // Called every few thousand tokens with how far into the scenery's own file the reading is.
  std::function<void(double)> progress = {};
  // Threads the reading may use at once, the caller's included: a big text read in one pass is
  // cut at statements into that many parts read side by side (see interpret()).
  unsigned threads = 1;
  // Each record's source in Interpreted::where: what viewing and inspecting show; a compile,
  // which writes records only, leaves them out.
  bool sources = true;
  // Keep Interpreted::exact_models and include_sites (the root compile's compose reads files so).
  bool exact = false;
  // A root's PACK models, composed beforehand (compose_root_pack); with `root`. Taken: the
  // layout lets go of them once it has made its own records of them (a million models' worth).
  PackModels* pack_models = nullptr;
};

// `open_tokens` makes a token source for an included file's bytes (text or twin by its name).
Interpreted interpret(TokenSource& source, std::string file_name, const InterpretOptions& options = {});
// The visual pass after an infrastructure pass of the same scenery (`source` read again from its
// start): its models, shapes and lines join `into`: their strings the same table, their records
// the lists the infrastructure pass left empty, their sources the same file indices. Includes are
// read from `into.kept_files` (the first pass needs keep_files); `options.pass` is ignored.
void interpret_visuals(TokenSource& source, Interpreted& into, const InterpretOptions& options = {});

}  // namespace sceneria::scenery
