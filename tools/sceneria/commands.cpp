#include "commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "export/export.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "io/json_io.hpp"
#include "registry/bench_scene.hpp"
#include "registry/examples.hpp"
#include "registry/registry.hpp"

namespace sceneria::cli {

namespace {

using ojson = nlohmann::ordered_json;

std::string dump_json(const ojson& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string location(const std::string& path, const Warning& w) {
  const std::string& file = w.file.empty() ? path : w.file;
  if (w.line) return fmt::format("{}:{}:{}", file, w.line, w.column);
  return fmt::format("{}: {}", file, hex_offset(w.offset));
}

void print_info_text(const ojson& s, const std::string& path, std::ostream& out) {
  auto number = [](const ojson& v) { return v.is_number() ? v.get<std::uint64_t>() : 0; };
  out << fmt::format("file     {}\n", path);
  const ojson version = s.value("version", ojson());
  out << fmt::format("format   {} version {}\n", s.value("format", "?"), version.is_string() ? version.get<std::string>() : fmt::format("{}", number(version)));
  out << fmt::format("size     {} bytes\n", number(s.value("size", ojson())));
  if (s.contains("structure")) {
    out << fmt::format("{:<8} {}\n", s.value("structureName", "parts"), s["structure"].size());
    out << fmt::format("  {:<8} {:>12} {:>12}  {}\n", "name", "offset", "size", "records");
    for (const auto& c : s["structure"])
      out << fmt::format("  {:<8} {:>12} {:>12}  {}{}\n", c.value("name", ""), number(c.value("offset", ojson())),
                         number(c.value("size", ojson())), c.contains("count") ? std::to_string(number(c["count"])) : "",
                         c.contains("note") ? "  (" + c["note"].get<std::string>() + ")" : "");
  }
  if (s.contains("lists") && !s["lists"].empty()) {
    out << "lists\n";
    for (const auto& l : s["lists"]) out << fmt::format("  {:<24} {}\n", l.value("label", ""), number(l.value("count", ojson())));
  }
  if (s.contains("sections") && s["sections"].is_array() && !s["sections"].empty()) {
    out << fmt::format("sections {}\n  {:>5} {:>5} {:>8} {:>6}\n", s["sections"].size(), "row", "col", "models", "format");
    for (const auto& r : s["sections"])
      out << fmt::format("  {:>5} {:>5} {:>8} {:>6}\n", r.value("row", 0), r.value("col", 0), number(r.value("models", ojson())),
                         r.value("format", "?"));
  }
  if (s.contains("missingFiles") && !s["missingFiles"].empty()) {
    out << fmt::format("missing files {}\n", s["missingFiles"].size());
    for (const auto& m : s["missingFiles"]) out << "  " << m.get<std::string>() << '\n';
  }
  for (const auto& w : s.value("warnings", ojson::array())) out << "warning: " << w.value("message", "") << '\n';
}

// A file of a folder being written (an example, the benchmark scene), its folders made as needed.
bool write_into(const std::string& folder, const std::string& relative, std::span<const std::uint8_t> bytes, std::ostream& out,
                std::ostream& err) {
  const std::filesystem::path path = std::filesystem::path(folder) / relative;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!file) {
    err << "error: cannot write " << path.string() << '\n';
    return false;
  }
  out << "wrote  " << path.string() << '\n';
  return true;
}

bool write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes, std::ostream& err) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    err << "error: " << path << ": cannot write\n";
    return false;
  }
  return true;
}

// What the CLI decodes and writes on at once: every core.
unsigned cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// Standard output as a sink (the commands write to a stream their tests can capture).
class OstreamSink final : public ByteSink {
 public:
  explicit OstreamSink(std::ostream& out) : out_(out) {}
  Error put(std::span<const std::uint8_t> bytes) override {
    out_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    written_ += bytes.size();
    return out_ ? Error{} : Error{Errc::io, written_, "cannot write to standard output"};
  }
  using ByteSink::put;

 private:
  std::ostream& out_;
};

int fail(std::ostream& err, const std::string& path, const Error& e) {
  err << "error: " << path << ": " << e.describe() << '\n';
  return 1;
}

// `path` named as it lies under `folder` ("models/a.e3d"), links resolved; nothing when it lies
// outside. Referenced files are looked up by a name's folder, so a file opened from the command
// line is given this name wherever its references are resolved.
std::optional<std::string> name_under(const std::string& path, const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path under = fs::weakly_canonical(path, ec).lexically_relative(fs::weakly_canonical(folder, ec));
  if (ec || under.empty() || *under.begin() == "..") return std::nullopt;
  return under.generic_string();
}

// Whether `format` declares the open choice `param` (Format::choices).
bool declares(const Format& format, const std::string& param) {
  return std::any_of(format.choices.begin(), format.choices.end(), [&param](const Choice& c) { return c.param == param; });
}

// Any registered format, through the registry; referenced files from `assets` when given.
// `params`: its format's open choices (an undeclared one is refused by open_document); with
// `writer_params_too` (a conversion's --param) those the format does not declare are left to the
// writer instead.
// `for_conversion`: opened only to be written as something else, so a format may leave reading
// what viewing needs until asked (OpenOptions::deferred); the resolver, which the document then
// uses later, is handed out there to be kept as long as the document.
Result<std::unique_ptr<Document>> open_file(const std::string& path, const std::string& assets, std::map<std::string, std::string> params = {},
                                            bool writer_params_too = false, std::unique_ptr<DirectoryAssets>* for_conversion = nullptr) {
  auto source = FileSource::open(path);
  if (!source) return source.error();
  if (writer_params_too) {
    auto format = detect(**source);
    std::erase_if(params, [&format](const auto& given) { return !format || !declares(**format, given.first); });  // no format: open_document says why
  }
  std::unique_ptr<DirectoryAssets> resolver;
  if (!assets.empty()) {
    resolver = std::make_unique<DirectoryAssets>(assets);
    // Formats look beside a file by its name's folder: named as it lies under the folder.
    if (auto under = name_under(path, assets)) (*source)->rename(*under);
  }
  auto document = open_document(**source, {.assets = resolver.get(), .deferred = for_conversion != nullptr, .texture_base = {}, .threads = cores(), .params = std::move(params)});
  if (for_conversion) *for_conversion = std::move(resolver);
  return document;
}

int formats_command(bool json, std::ostream& out) {
  const ojson all = formats_json();
  if (json) {
    out << dump_json(all, 1) << '\n';
    return 0;
  }
  for (const auto& f : all) {
    std::string exts, writes;
    for (const auto& e : f["extensions"]) exts += (exts.empty() ? "" : " ") + e.get<std::string>();
    for (const auto& w : f["writes"]) writes += (writes.empty() ? "" : ", ") + w["id"].get<std::string>() + " (" + w["extension"].get<std::string>() + ")";
    out << fmt::format("{:<8} {}\n", f["id"].get<std::string>(), f["name"].get<std::string>());
    out << fmt::format("         extensions {}\n", exts);
    out << fmt::format("         reads {}  streams {}  writes {}\n", f["reads"].get<bool>() ? "yes" : "no",
                       f["streams"].get<bool>() ? "yes" : "no", writes.empty() ? "nothing" : writes);
    // Open choices (--param on info, validate, convert): "smoothing=automatic|soc|cop", or a
    // param whose values each file gives ("skin-set").
    std::string choices;
    for (const auto& c : f["choices"]) {
      std::string values;
      if (c["toggle"].get<bool>()) values = "false|true";
      for (const auto& v : c["values"]) values += (values.empty() ? "" : "|") + v["value"].get<std::string>();
      choices += fmt::format("{}{}{}", choices.empty() ? "" : "  ", c["param"].get<std::string>(), values.empty() ? "" : "=" + values);
    }
    if (!choices.empty()) out << fmt::format("         open choices {}\n", choices);
  }
  return 0;
}

// Files a document names are looked up from the folder its format names nearest above it (a
// scenery's `scenery`, where includes name "scenery/..." paths; an X-Ray object's `gamedata`) or
// the nearest that holds the path its format names (a Hard Truck game's root, which holds
// COMMON/COMMON.RES), else from its own folder.
std::filesystem::path default_root(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file = fs::absolute(path);
  const Format* format = format_for_name(path);
  if (!format) return file.parent_path();
  for (fs::path p = file.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (!format->assets_folder.empty() && iequals(p.filename().string(), format->assets_folder)) return p;
    // Matched without case by the resolver the conversion itself will use.
    if (!format->assets_root_holds.empty() && DirectoryAssets(p.string()).exists_any({std::string(format->assets_root_holds)})) return p;
  }
  return file.parent_path();
}

// What a file names (textures, a .res, includes) is looked for as a conversion looks for it, so
// info and validate say what a conversion would find and miss.
std::string assets_for(const std::string& path, const std::string& assets) {
  if (!assets.empty()) return assets;
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? default_root(path).string() : std::string();
}

int info(const std::string& path, const std::string& assets, const std::map<std::string, std::string>& choices, bool json, std::ostream& out,
         std::ostream& err) {
  auto document = open_file(path, assets_for(path, assets), choices);
  if (!document) {
    if (document.error().code == Errc::io && document.error().offset == 0 && document.error().file.empty()) {
      err << "error: " << document.error().message << '\n';
      return 1;
    }
    return fail(err, path, document.error());
  }
  const ojson summary = describe(**document);
  if (json) out << dump_json(summary) << '\n';
  else print_info_text(summary, path, out);
  return 0;
}

int validate(const std::string& path, const std::string& assets, const std::map<std::string, std::string>& choices, std::ostream& out,
             std::ostream& err) {
  auto document = open_file(path, assets_for(path, assets), choices);
  if (!document) return fail(err, path, document.error());
  const auto problems = (*document)->validate();
  for (const auto& p : problems) out << fmt::format("{}: {}\n", location(path, p), p.message);
  for (const auto& m : (*document)->missing_assets()) out << fmt::format("{}: missing file {}\n", path, m);
  if (problems.empty()) {
    out << fmt::format("{}: ok ({})\n", path, (*document)->headline());
    return 0;
  }
  out << fmt::format("{}: {} problem{}\n", path, problems.size(), problems.size() == 1 ? "" : "s");
  return 1;
}

int dump(const std::string& path, const std::string& output, bool pretty, std::ostream& out, std::ostream& err) {
  std::unique_ptr<DirectoryAssets> resolver;
  auto document = open_file(path, {}, {}, false, &resolver);  // for a conversion: nothing decoded that the dump does not need
  if (!document) return fail(err, path, document.error());
  const int indent = pretty ? 1 : -1;
  if (output.empty() || output == "-") {
    OstreamSink sink(out);
    Error e = (*document)->dump_to(sink, indent);
    if (!e) e = sink.put(std::string_view("\n"));
    return e ? fail(err, path, e) : 0;
  }
  auto sink = FileByteSink::create(output);
  if (!sink) return fail(err, output, sink.error());
  Error e = (*document)->dump_to(**sink, indent);
  if (!e) e = (*sink)->put(std::string_view("\n"));
  if (Error closed = (*sink)->close(); !e) e = closed;
  if (e) {
    std::filesystem::remove(output);
    return fail(err, output, e);
  }
  return 0;
}

// The summary line of a file just written, from the file as read back, not from our intentions
// (opened as for a conversion: nothing decoded that the line does not need).
int describe_written(const std::string& out_path, std::uint64_t size, std::ostream& out, std::ostream& err) {
  std::unique_ptr<DirectoryAssets> none;
  auto check = open_file(out_path, {}, {}, false, &none);
  if (!check) return fail(err, out_path, check.error());
  out << fmt::format("{}: {}, {} bytes\n", out_path, (*check)->headline(), size);
  return 0;
}

int write_and_describe(const std::string& out_path, const std::vector<std::uint8_t>& bytes, std::ostream& out, std::ostream& err) {
  if (!write_bytes(out_path, bytes, err)) return 1;
  return describe_written(out_path, bytes.size(), out, err);
}

// A bar for what takes long, on standard error: when that is a terminal, or when asked for
// (`--progress`); never in logs by default.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, std::string label, bool forced)
      : err_(err), label_(std::move(label)), on_(forced || (&err == &std::cerr && isatty(STDERR_FILENO))) {}
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() {
    if (on_ && shown_ >= 0) err_ << '\n' << std::flush;
  }
  void operator()(double done) {
    const int percent = std::clamp(static_cast<int>(done * 100.0), 0, 100);
    if (!on_ || percent == shown_) return;
    shown_ = percent;
    const int filled = percent * kWidth / 100;
    err_ << '\r' << label_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
         << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] " << percent << '%' << std::flush;
  }

 private:
  static constexpr int kWidth = 30;
  std::ostream& err_;
  std::string label_;
  bool on_;
  int shown_ = -1;
};

// What an export wanted and did not find (textures, models), each named: an export without its
// textures is otherwise only flat colours. A long list is cut; `validate` gives it whole.
void warn_missing(const Document& document, AssetResolver* resolver, const std::string& prefix, std::ostream& err) {
  std::vector<std::string> missing = document.missing_assets();
  if (resolver)
    for (const std::string& m : resolver->missing())
      if (std::find(missing.begin(), missing.end(), m) == missing.end()) missing.push_back(m);
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < missing.size() && i < kShown; ++i) err << "warning: " << prefix << "not found: " << missing[i] << '\n';
  if (missing.size() > kShown)
    err << fmt::format("warning: {}{} more not found (sceneria validate lists them all)\n", prefix, missing.size() - kShown);
}

// One file converted: the writer chosen by `target` (a writer id or an output name: "glb",
// "x.eu7"), files a writer makes beside its output (a .gltf's .bin, an .obj's .mtl and images)
// written beside it, and the output described by reading it back where the core reads its format.
int convert_file(const std::string& in_path, const std::string& out_path, const std::string& target, const std::string& assets,
                 const WriteOptions& base, ProgressBar* bar, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  std::unique_ptr<DirectoryAssets> resolver;  // outlives the document, which may read through it later
  const std::string root = assets.empty() ? default_root(in_path).string() : assets;
  // --param gives both: the input format's open choices (a model's skin set), the writer's options.
  auto document = open_file(in_path, root, base.params, true, &resolver);
  if (!document) return fail(err, in_path, document.error());
  const Format* format = find_format((*document)->format_id());
  const Writer* writer = format ? format->writer_for(target) : nullptr;
  if (!writer) {
    std::string targets;
    for (const Writer& w : format->writers) targets += (targets.empty() ? "" : ", ") + std::string(w.extension);
    err << fmt::format("error: {}: a {} document can be written as {}, not as '{}'\n", in_path, format->id,
                       targets.empty() ? "nothing" : targets, target);
    return 2;
  }
  std::vector<std::string> losses;
  std::vector<exports::File> sidecars;
  WriteOptions options = base;
  std::erase_if(options.params, [format](const auto& given) { return declares(*format, given.first); });  // the reader's, not the writer's
  options.losses = &losses;
  options.name = fs::path(out_path).filename().string();
  options.sidecars = &sidecars;
  const fs::path folder = fs::path(out_path).parent_path();
  // The big file beside the output (a .gltf's .bin) is written as it is made.
  options.sidecar_sink = [folder](const std::string& name) -> Result<std::unique_ptr<ByteSink>> {
    auto sink = FileByteSink::create((folder / name).string());
    if (!sink) return sink.error();
    return std::unique_ptr<ByteSink>(std::move(sink).value());
  };
  options.assets = resolver.get();
  exports::Written held;
  options.written = &held;
  options.relative_name = name_under(in_path, root).value_or(fs::path(in_path).filename().string());
  if (bar) options.progress = [bar](double done) { (*bar)(done); };
  // A streaming writer writes the file as it goes; the others give bytes, written here.
  std::uint64_t written = 0;
  std::vector<std::uint8_t> bytes;
  if (writer->stream) {
    auto sink = FileByteSink::create(out_path);
    if (!sink) return fail(err, out_path, sink.error());
    Error e = writer->stream(**document, options, **sink);
    if (Error closed = (*sink)->close(); !e) e = closed;
    if (e) {
      std::filesystem::remove(out_path);
      return fail(err, in_path, e);
    }
    written = (*sink)->written();
  } else {
    auto made = writer->write(**document, options);
    if (!made) return fail(err, in_path, made.error());
    bytes = std::move(made).value();
    written = bytes.size();
  }
  if (bar) (*bar)(1.0);
  // In a batch, a warning names its file; alone, the file is the one asked for.
  for (const auto& loss : losses) err << "warning: " << (bar ? "" : in_path + ": ") << loss << '\n';
  for (const exports::File& f : sidecars)
    if (!write_bytes((folder / f.name).string(), f.bytes, err)) return 1;
  if (!writer->stream) {
    if (!write_bytes(out_path, bytes, err)) return 1;
    bytes = {};
  }
  if (writer->uses_references) warn_missing(**document, resolver.get(), bar ? "" : in_path + ": ", err);
  (*document).reset();  // before the output is read back: the two are never held at once
  if (format_for_name(out_path)) return describe_written(out_path, written, out, err);
  std::string holds;
  if (writer->uses_references) {
    holds = fmt::format(", {} texture image{}", held.images, held.images == 1 ? "" : "s");
  }
  // The writer's advice names its option (key=value), which --param takes.
  if (!held.advice.empty()) holds += " (" + held.advice + ")";
  out << fmt::format("{}: {}{}, {} bytes{}\n", out_path, writer->description, holds, written,
                     sidecars.empty() ? "" : fmt::format(" (+{} beside it)", sidecars.size()));
  return 0;
}

int convert(const std::string& in_path, const std::string& out_path, const std::string& to, const std::string& assets, const WriteOptions& base,
            bool progress, std::ostream& out, std::ostream& err) {
  WriteOptions options = base;
  options.threads = cores();
  auto bar = std::make_unique<ProgressBar>(err, fmt::format("writing {}", std::filesystem::path(out_path).filename().string()), progress);
  std::ostringstream messages;  // after the bar's line ends
  const int rc = convert_file(in_path, out_path, to.empty() ? out_path : to, assets, options, bar.get(), out, messages);
  bar.reset();
  err << messages.str();
  return rc;
}

// Every file under `in_dir` whose format can be written as `to` (pictures passed by: a texture is
// not a scene to convert), converted into the same place under `out_dir`, a file per core at a time.
int convert_tree(const std::string& in_dir, const std::string& out_dir, const std::string& to, const std::string& assets, const WriteOptions& base,
                 bool progress, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(in_dir, ec)) {
    err << "error: " << in_dir << ": --recursive takes a folder\n";
    return 2;
  }
  if (to.empty()) {
    err << "error: --recursive needs --to (a writer id or extension: glb, gltf, obj, json, ...)\n";
    return 2;
  }
  struct Job {
    fs::path in, out;
  };
  std::vector<Job> jobs;
  for (auto it = fs::recursive_directory_iterator(in_dir, fs::directory_options::skip_permission_denied, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const Format* f = format_for_name(it->path().filename().string());
    if (!f || f->picture || !f->open) continue;
    const Writer* w = f->writer_for(to);
    if (!w) continue;
    fs::path rel = fs::relative(it->path(), in_dir, ec);
    rel.replace_extension(std::string(w->extension));
    jobs.push_back({it->path(), fs::path(out_dir) / rel});
  }
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.in < b.in; });
  // Files that would land on one output (a model as .e3d and .t3d) keep their own extension in
  // its name ("x.e3d.glb", "x.t3d.glb") rather than overwrite each other.
  std::map<fs::path, int> landing;
  for (const Job& j : jobs) ++landing[j.out];
  for (Job& j : jobs)
    if (landing[j.out] > 1) j.out.replace_filename(j.in.filename().string() + j.out.extension().string());
  if (jobs.empty()) {
    err << fmt::format("error: {}: no file there can be written as '{}'\n", in_dir, to);
    return 2;
  }
  std::vector<std::string> outs(jobs.size()), errs(jobs.size());
  std::vector<int> rcs(jobs.size(), 0);
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex bar_mutex;
  auto bar = std::make_unique<ProgressBar>(err, fmt::format("converting {} files", jobs.size()), progress);
  const auto work = [&] {
    for (std::size_t i; (i = next++) < jobs.size();) {
      std::ostringstream o, e;
      fs::create_directories(jobs[i].out.parent_path(), ec);
      WriteOptions options = base;
      options.threads = 1;  // the files are the parallel work
      rcs[i] = convert_file(jobs[i].in.string(), jobs[i].out.string(), to, assets, options, nullptr, o, e);
      outs[i] = o.str(), errs[i] = e.str();
      const std::lock_guard lock(bar_mutex);
      (*bar)(static_cast<double>(++done) / static_cast<double>(jobs.size()));
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<std::size_t>(cores(), jobs.size()); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  bar.reset();
  std::size_t failed = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    out << outs[i];
    err << errs[i];
    failed += rcs[i] != 0;
  }
  out << fmt::format("{} converted, {} failed\n", jobs.size() - failed, failed);
  return failed ? 1 : 0;
}

// The file system side of a bake: paths relative to the scenery root, matched without case (as
// the simulator's Windows folders are), twins written beside their texts.
class FileBakeIo final : public BakeIo {
 public:
  explicit FileBakeIo(std::filesystem::path root) : root_(std::move(root)), assets_(root_.string()) {}
  Result<SharedBytes> read(const std::string& path) override {
    auto source = assets_.open(path);
    if (!source) return Error{Errc::io, 0, fmt::format("{}: not found under {}", path, root_.string())};
    real_[path] = source->name();
    return read_shared(*source);  // a mapped file: no copy of a 100 MB scenery
  }
  Error write(const std::string& target, std::span<const std::uint8_t> bytes) override {
    std::ofstream f(real(target), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return f ? Error{} : Error{Errc::io, 0, fmt::format("{}: could not be written", real(target))};
  }
  bool fresh(const std::string& source, const std::string& target) override {
    if (!real_.count(source))
      if (auto found = assets_.open(source)) real_[source] = found->name();
    if (!real_.count(source)) return false;
    std::error_code e1, e2;
    const auto s = std::filesystem::last_write_time(real_[source], e1);
    const auto t = std::filesystem::last_write_time(real(target), e2);
    return !e1 && !e2 && t >= s;
  }

 private:
  // A twin sits beside its text, under the text's real (case-kept) name.
  std::string real(const std::string& target) {
    const std::string source = target.substr(0, target.size() - 1);
    auto it = real_.find(source);
    return it != real_.end() ? it->second + target.back() : (root_ / target).string();
  }
  std::filesystem::path root_;
  DirectoryAssets assets_;
  std::map<std::string, std::string> real_;  // relative path -> path on disk
};

// `sceneria example [ID FOLDER]`: the gallery's examples listed, or one written as its files.
int example(const std::string& id, const std::string& folder, std::ostream& out, std::ostream& err) {
  if (id.empty()) {
    for (const Example& e : examples()) out << fmt::format("{:<10} {}: {}\n", e.id, e.title, e.what);
    return 0;
  }
  if (folder.empty()) {
    err << "error: example " << id << ": give the folder to write it into\n";
    return 2;
  }
  auto files = example_files(id);
  if (!files) {
    err << "error: " << files.error().describe() << '\n';
    return 1;
  }
  for (const ExampleFile& f : *files)
    if (!write_into(folder, f.path, f.bytes, out, err)) return 1;
  return 0;
}

int bench_scene(const demo::BenchSceneOptions& options, const std::string& folder, std::ostream& out, std::ostream& err) {
  std::uint64_t files = 0, bytes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const Error e = demo::write_bench_scene(options, [&](const demo::BenchSceneFile& f) -> Error {
    std::ostringstream quiet;
    if (!write_into(folder, f.path, f.bytes, quiet, err)) return Error{Errc::io, 0, "cannot write " + f.path};
    ++files;
    bytes += f.bytes.size();
    return {};
  });
  if (e) {
    err << "error: " << e.describe() << '\n';
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out << fmt::format("{} files, {:.1f} MB in {}: scenery/bench.eu7 ({} instances), {} models, {} textures; {:.1f} s\n", files,
                     static_cast<double>(bytes) / 1e6, folder, options.instances, options.models,
                     std::min<std::uint64_t>(options.textures, std::uint64_t{2} * options.models), seconds);
  return 0;
}

int bake(const std::string& in_path, bool force, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  std::vector<std::uint8_t> head(kProbeBytes);
  {
    std::ifstream f(in_path, std::ios::binary);
    if (!f) return fail(err, in_path, Error{Errc::io, 0, "cannot be opened"});
    f.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(f.gcount()));
  }
  auto format = detect(head, fs::path(in_path).filename().string(), head.size());
  if (!format) return fail(err, in_path, format.error());
  if (!(*format)->bake) {
    err << fmt::format("error: {}: {} files have nothing to bake\n", in_path, (*format)->id);
    return 2;
  }
  const fs::path file = fs::absolute(in_path);
  const fs::path root = default_root(in_path);
  FileBakeIo io(root);
  const auto started = std::chrono::steady_clock::now();
  auto report = (*format)->bake(fs::relative(file, root).generic_string(), io, force, cores());
  if (!report) return fail(err, in_path, report.error());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const auto& w : report->written) out << "baked  " << w << '\n';
  for (const auto& w : report->fresh) out << "fresh  " << w << '\n';
  for (const auto& m : report->missing) err << "warning: include not found: " << m << '\n';
  out << fmt::format("{} written, {} fresh, {} missing; {:.1f} MB of text in {:.2f} s\n", report->written.size(),
                     report->fresh.size(), report->missing.size(), static_cast<double>(report->bytes_in) / 1e6, seconds);
  return 0;
}

int generate(const std::string& format_id, const GenerateOptions& options, const std::string& out_path, std::ostream& out,
             std::ostream& err) {
  const Format* format = nullptr;
  for (const Format& f : formats())
    if (f.generate && (format_id.empty() || f.id == format_id) && !format) format = &f;
  if (!format) {
    err << fmt::format("error: no format '{}' with a generator\n", format_id);
    return 2;
  }
  auto bytes = format->generate(options);
  if (!bytes) return fail(err, out_path, bytes.error());
  return write_and_describe(out_path, *bytes, out, err);
}

}  // namespace

bool converts_in_pieces(const std::string& path) {
  auto source = FileSource::open(path);
  if (!source) return false;
  std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<std::uint64_t>(kProbeBytes, (*source)->size())));
  if ((*source)->read(0, head)) return false;
  auto format = detect(head, path, (*source)->size());
  return format && (*format)->converts_in_pieces && !json_form_is(head, path, (*format)->id);
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"sceneria: open, inspect and convert MaSzyna, Hard Truck and X-Ray scenery files"};
  app.name("sceneria");
  app.require_subcommand(1);

  std::string path, output, pack_format, assets;
  bool json = false, pretty = false;
  std::uint32_t version = 0;
  std::vector<std::string> params;

  CLI::App* formats_cmd = app.add_subcommand("formats", "the formats this build reads, writes and streams");
  formats_cmd->add_flag("--json", json, "print JSON");

  CLI::App* info_cmd = app.add_subcommand("info", "format, version, size, structure, lists and sections");
  info_cmd->add_option("file", path, "input file")->required();
  info_cmd->add_flag("--json", json, "print JSON instead of a table");
  info_cmd->add_option("--assets", assets, "folder the file's references (models, textures, includes) are looked up in");
  info_cmd->add_option("--param", params, "an open choice of the file's format as key=value (see `sceneria formats`)");

  CLI::App* validate_cmd = app.add_subcommand("validate", "decode everything and check consistency (exit 0 only if clean)");
  validate_cmd->add_option("file", path, "input file")->required();
  validate_cmd->add_option("--assets", assets, "folder the file's references are looked up in (missing ones are listed)");
  validate_cmd->add_option("--param", params, "an open choice of the file's format as key=value (see `sceneria formats`)");

  CLI::App* dump_cmd = app.add_subcommand("dump", "a file as lossless JSON, where its format has such a form (docs/json-forms.md)");
  dump_cmd->add_option("file", path, "input file")->required();
  dump_cmd->add_option("-o,--output", output, "output file (default: standard output)");
  dump_cmd->add_flag("--pretty", pretty, "indent the JSON");

  std::string out_path, to, area;
  bool recursive = false, no_instancing = false;
  CLI::App* convert_cmd = app.add_subcommand("convert", "write a file as another of its format's targets (by the output's extension, or --to); `formats` lists them");
  convert_cmd->add_option("input", path, "input file (with --recursive: folder)")->required();
  convert_cmd->add_option("output", out_path, "output file (with --recursive: folder)")->required();
  convert_cmd->add_option("--to", to, "the target: a writer id or extension (glb, gltf, obj, json, eu7, scnb, ...) instead of the output's extension");
  convert_cmd->add_flag("-r,--recursive", recursive, "convert every file under the input folder that can be written as --to, into the output folder, on all cores");
  convert_cmd->add_option("--area", area, "scene exports: only the sections within x,z,radius or the box x0,y0,z0,x1,y1,z1 (metres)");
  convert_cmd->add_flag("--no-instancing", no_instancing, "glTF: a plain node per model instead of EXT_mesh_gpu_instancing");
  convert_cmd->add_option("--version", version, "the writer's version option (see `sceneria formats`)");
  convert_cmd->add_option("--pack-format", pack_format, "the writer's pack-format option (see `sceneria formats`)");
  convert_cmd->add_option("--param", params, "a writer option or an open choice of the input's format as key=value (see `sceneria formats`)");
  bool lossy = false, progress = false;
  convert_cmd->add_flag("--progress", progress, "show a progress bar even when standard error is not a terminal");
  convert_cmd->add_option("--assets", assets, "folder the file's references (includes, models) are looked up in (default: the nearest `scenery` folder above it, else its own)");
  convert_cmd->add_flag("--lossy", lossy, "drop what the target cannot hold, as the reference writer does (each loss is listed)");

  bool force = false;
  CLI::App* bake_cmd = app.add_subcommand("bake", "compile a file and everything it includes into binary companions beside them (scenery text -> .scnb/.incb/.scmb twins)");
  bake_cmd->add_option("file", path, "input file")->required();
  bake_cmd->add_flag("--force", force, "rewrite twins that are newer than their text too");

  GenerateOptions gen;
  std::string gen_format, gen_format_id;
  std::uint32_t gen_version = 0;
  double track_km = 0;
  CLI::App* gen_cmd = app.add_subcommand("generate", "write a realistic synthetic scenery (deterministic per seed)");
  gen_cmd->add_option("output", out_path, "output file")->required();
  gen_cmd->add_option("--format", gen_format_id, "format id (default: the first with a generator)");
  gen_cmd->add_option("--models", gen.models, "model placements")->required();
  gen_cmd->add_option("--seed", gen.seed, "random seed");
  gen_cmd->add_option("--version", gen_version, "the generator's version option");
  gen_cmd->add_option("--pack-format", gen_format, "the generator's pack-format option");
  gen_cmd->add_option("--track-km", track_km, "kilometres of main line");
  gen_cmd->add_option("--param", params, "a generator option as key=value");

  demo::BenchSceneOptions bench;
  CLI::App* bench_cmd = app.add_subcommand("bench-scene", "write the benchmark game folder: one scenery placing real models at scale "
                                                          "(docs/performance.md)");
  bench_cmd->add_option("folder", out_path, "where to write it (made if missing)")->required();
  bench_cmd->add_option("--instances", bench.instances, "model placements (default 1,000,000)");
  bench_cmd->add_option("--models", bench.models, "distinct model files, 2,000-20,000 triangles each (default 200)");
  bench_cmd->add_option("--textures", bench.textures, "distinct textures, two per model at most (default 400)");
  bench_cmd->add_option("--sections", bench.sections, "square kilometres the instances cover (default 400)");
  bench_cmd->add_option("--seed", bench.seed, "random seed");

  std::string example_id;
  CLI::App* example_cmd = app.add_subcommand("example", "write one of the page's examples into a folder as its files; without an id, list them");
  example_cmd->add_option("id", example_id, "the example (as `sceneria example` lists them)");
  example_cmd->add_option("folder", out_path, "where to write its files (made if missing)");

  // CLI11 parses argv in reverse order from a vector.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      out << app.help();
      return 0;
    }
    err << "error: " << e.what() << "\n" << app.help();
    return 2;
  }
  auto parse_params = [&](std::map<std::string, std::string>& into) -> bool {
    for (const std::string& p : params) {
      const auto eq = p.find('=');
      if (eq == std::string::npos || eq == 0) {
        err << "error: --param takes key=value, not '" << p << "'\n";
        return false;
      }
      into[p.substr(0, eq)] = p.substr(eq + 1);
    }
    return true;
  };
  if (formats_cmd->parsed()) return formats_command(json, out);
  std::map<std::string, std::string> choices;
  if ((info_cmd->parsed() || validate_cmd->parsed()) && !parse_params(choices)) return 2;
  if (info_cmd->parsed()) return info(path, assets, choices, json, out, err);
  if (validate_cmd->parsed()) return validate(path, assets, choices, out, err);
  if (dump_cmd->parsed()) return dump(path, output, pretty, out, err);
  if (convert_cmd->parsed()) {
    WriteOptions options;
    options.lossy = lossy;
    if (!parse_params(options.params)) return 2;
    if (version != 0) options.params["version"] = std::to_string(version);
    if (!pack_format.empty()) options.params["pack-format"] = pack_format;
    if (!area.empty()) options.params["area"] = area;
    if (no_instancing) options.params["instancing"] = "false";
    if (recursive) return convert_tree(path, out_path, to, assets, options, progress, out, err);
    return convert(path, out_path, to, assets, options, progress, out, err);
  }
  if (bake_cmd->parsed()) return bake(path, force, out, err);
  if (example_cmd->parsed()) return example(example_id, out_path, out, err);
  if (bench_cmd->parsed()) return bench_scene(bench, out_path, out, err);
  if (gen_cmd->parsed()) {
    if (!parse_params(gen.params)) return 2;
    if (gen_version != 0) gen.params["version"] = std::to_string(gen_version);
    if (!gen_format.empty()) gen.params["pack-format"] = gen_format;
    if (track_km > 0) gen.params["track-km"] = fmt::format("{}", track_km);
    return generate(gen_format_id, gen, out_path, out, err);
  }
  return 2;
}

}  // namespace sceneria::cli
