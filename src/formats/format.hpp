#pragma once
// What a format is to the rest of the core: its registry entry (`Format`: how to recognise, open,
// stream, write, bake and generate its files, and what may be chosen when one is opened) and the
// options those take. Each format fills one in its folder; formats/catalog.cpp lists them (one
// line per format), registry/registry.cpp adds the scene exports every drawable format has.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/document.hpp"
#include "formats/remote_document.hpp"
#include "io/assets.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

namespace sceneria {

// What a writer tells its caller beyond its bytes: the texture images an export holds (a model
// whose textures were not found exports without any), whether copies are instances, and what the
// writer advises about reading its output (empty: nothing), in its own options' terms.
struct WriteSummary {
  std::uint32_t images = 0;
  bool instanced = false;
  std::string advice;
};

// A file written beside the main output (a .gltf's .bin and images, an .obj's .mtl).
struct WrittenFile {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

// How many leading bytes a probe sees (text formats sniff further than a magic number).
constexpr std::size_t kProbeBytes = 4096;

struct OpenOptions {
  AssetResolver* assets = nullptr;  // files the document refers to; nullptr: none available
  // For a viewer: a format that can opens what draws first and loads the rest in stages
  // (Document::next_stage), keeping what it needs of `assets` for that.
  bool staged = false;
  // For a conversion only: a format may put off reading what viewing and inspecting need until
  // something asks for it (a scenery is then read once, by the writer). `assets` must then live
  // as long as the document.
  bool deferred = false;
  // For a model placed by a scenery: the folder its textures are looked for from first
  // (`textures/<the model's sub-folder>/`, as the engine does) instead of the model's own; no skin
  // set is looked for, and only what every model hides (Light_On*) stays hidden. Empty: a model
  // opened on its own. Set by the host that places models (stream::ModelLoader), not by a user.
  std::string texture_base;
  // Threads a format may decode on at once, the caller's included (the CLI gives its cores; the
  // browser's worker keeps 1, as its pthread pool is the streamer's).
  unsigned threads = 1;
  // The format's open choices (Format::choices) by param: {"skin-set": "dynamic/eu160/eu160-001"}.
  // open_document refuses a param its format does not declare, or a value outside a declared list.
  std::map<std::string, std::string> params = {};

  // The value given for `param`, else `fallback`.
  std::string param(std::string_view key, std::string_view fallback = {}) const;
};

// Named options of a writer ("version" = "8", "pack-format" = "5"); each writer says which it takes.
struct WriteOptions {
  std::map<std::string, std::string> params;
  bool lossy = false;                         // allow what the target cannot hold to be dropped
  std::vector<std::string>* losses = nullptr;  // and list each drop here
  // Called now and then with the share done, 0 to 1, by writers that take long (a compile).
  std::function<void(double)> progress = {};
  // Threads a writer may keep busy at once, the caller's included (the CLI gives the machine's
  // cores; in the browser's worker it stays 1, as its pthread pool is the streamer's).
  unsigned threads = 1;
  // The output's file name: writers that make files beside it name them after it ("x.gltf" ->
  // "x.bin", "x_0.png"). Empty: "scene".
  std::string name = {};
  // Where those files go; nullptr: the writer keeps everything in its one output where its
  // format can (a .gltf's buffer and images as data: URIs), else leaves them out (an OBJ's .mtl).
  std::vector<WrittenFile>* sidecars = nullptr;
  // Where a streaming writer's big file beside its output (a .gltf's .bin) is written as it is
  // made (the CLI: a file beside the output); unset: into `sidecars`.
  std::function<Result<std::unique_ptr<ByteSink>>(const std::string& name)> sidecar_sink = {};
  // Scene exports: where the scene's models (Mesh::files of proxies) and their textures are
  // read from, each replacing its proxy box; nullptr: proxies stay boxes.
  AssetResolver* assets = nullptr;
  // The document's path under the folder `assets` stands for ("sub/a.scn"), where a writer
  // resolves what the document names relative to it; empty: its own name.
  std::string relative_name = {};
  // Scene exports: filled with what the output holds (texture images, instances).
  WriteSummary* written = nullptr;
};

struct Writer {
  std::string_view id;         // "eu7b", "json"
  std::string_view extension;  // ".eu7"
  std::string_view description;
  std::string_view params;  // for `sceneria formats`: "version=4..9 pack-format=flat|1..6"
  Result<std::vector<std::uint8_t>> (*write)(const Document& document, const WriteOptions& options);
  std::vector<std::string_view> more_extensions = {};  // the same writer for other names (".incb")
  // Whether it makes files beside its output that cannot go inside it (an OBJ's .mtl and images):
  // a caller with one download asks for them (WriteOptions::sidecars) and bundles them.
  bool makes_files = false;
  // The same output written in pieces as it is made, so it is never held whole (a JSON dump of a
  // module bigger than memory); nullptr: only `write`. Both give the same bytes.
  Error (*stream)(const Document& document, const WriteOptions& options, ByteSink& sink) = nullptr;
  // Whether its output takes in the files the document references (models, textures): a caller
  // then lists those that were not found, which would otherwise be missing without a word.
  bool uses_references = false;
};

// A format's "json" writer: its Document::dump_to, compact, ending with a newline.
Writer dump_writer(std::string_view description);

// A streaming writer's output gathered in memory: the `write` of a Writer that has `stream`.
template <Error (*Stream)(const Document&, const WriteOptions&, ByteSink&)>
Result<std::vector<std::uint8_t>> gathered(const Document& document, const WriteOptions& options) {
  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  if (Error e = Stream(document, options, sink)) return e;
  return out;
}

struct GenerateOptions {
  std::uint64_t models = 1000;
  std::uint64_t seed = 1;
  std::map<std::string, std::string> params;
};

// Compiling a file and everything it includes into binary companions beside them (scenery text →
// twins). The caller does the I/O; paths are relative to the root the includes name files from.
struct BakeIo {
  virtual ~BakeIo() = default;
  virtual Result<SharedBytes> read(const std::string& path) = 0;  // not found: an error
  virtual Error write(const std::string& path, std::span<const std::uint8_t> bytes) = 0;
  // Whether `target` exists and is at least as new as `source` (it is then not rewritten).
  virtual bool fresh(const std::string& source, const std::string& target) = 0;
};
struct BakeReport {
  std::vector<std::string> written, fresh, missing;  // relative paths
  std::vector<Warning> warnings;
  std::uint64_t bytes_in = 0, bytes_out = 0;
};

struct Format {
  std::string_view id;    // "eu7b"
  std::string_view name;  // "EU7B compiled MaSzyna scenery module"
  std::vector<std::string_view> extensions;  // with the dot, lower case
  // Whether the bytes are this format: `head` is up to kProbeBytes from the start, `name` the
  // file name (a sniff may use both; magic numbers alone decide where a format has them).
  bool (*probe)(std::span<const std::uint8_t> head, std::string_view name) = nullptr;
  Result<std::unique_ptr<Document>> (*open)(ByteSource& source, const OpenOptions& options) = nullptr;
  // Streams: opened from ranges of a file that stays remote. nullptr: read whole.
  std::unique_ptr<stream::RemoteDocument> (*open_remote)(std::uint64_t size, std::string name) = nullptr;
  std::vector<Writer> writers;
  // A picture (a texture), not a scene or model: batch conversions of folders pass it by.
  bool picture = false;
  // What to open with a file of it, for a host's hint ("with its .res"); empty: it opens alone.
  std::string_view companions = {};
  // The kinds of file opened with it to complete it (its textures and material files, a .b3d's
  // .res, a vehicle's models and .fiz): a host's file picker offers them, and among files opened
  // together they are this file's companions rather than documents to choose from.
  std::vector<std::string_view> companion_extensions = {};
  Result<std::vector<std::uint8_t>> (*generate)(const GenerateOptions& options) = nullptr;  // synthetic samples
  // `path` and, recursively, what it includes (each once) → binary companions, on up to
  // `threads` threads; `force` rewrites fresh ones too.
  Result<BakeReport> (*bake)(const std::string& path, BakeIo& io, bool force, unsigned threads) = nullptr;
  // Where a host looks for what a file of this format names when told nowhere: the nearest folder
  // of this name above the file ("scenery": a game's scenery root; "gamedata": an SDK's), else the
  // file's own folder (also when this is empty: a .res or textures lie beside the file).
  std::string_view assets_folder = {};
  // Or, where a game's root has no name of its own: the nearest folder above the file that holds
  // this path, matched without case (a Hard Truck game holds COMMON/COMMON.RES beside the ENV/
  // folder of its modules).
  std::string_view assets_root_holds = {};
  // What may be chosen when a file of it is opened (OpenOptions::params), each with its default.
  std::vector<Choice> choices = {};
  // Whether its files (not their JSON forms) convert a piece at a time, never held whole (a
  // module's sections): the CLI leaves the allocator's huge pages off for them (docs/performance.md).
  bool converts_in_pieces = false;
  // Whether its files draw (a scene): the registry then adds the scene exports (glTF, OBJ) to its
  // writers. A Hard Truck .res holds resources and draws nothing.
  bool draws = true;

  const Writer* writer_for(std::string_view path_or_id) const;  // by id or by the output's extension
};

}  // namespace sceneria
