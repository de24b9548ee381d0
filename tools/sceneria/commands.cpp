#include "commands.hpp"

#include <fstream>
#include <iterator>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "formats/inspect.hpp"
#include "io/byte_source.hpp"

namespace sceneria::cli {

namespace {

using ojson = nlohmann::ordered_json;

std::string dump_json(const ojson& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void print_info_text(const ojson& s, const std::string& path, std::ostream& out) {
  out << fmt::format("file     {}\n", path);
  out << fmt::format("format   {} version {}\n", s["format"].get<std::string>(), s["version"].get<int>());
  out << fmt::format("size     {} bytes\n", s["size"].get<std::uint64_t>());
  out << fmt::format("strings  {}\n", s["strings"].get<std::uint64_t>());
  out << fmt::format("chunks   {}\n", s["chunks"].size());
  out << fmt::format("  {:<8} {:>12} {:>12} {:>10}\n", "id", "offset", "size", "records");
  for (const auto& c : s["chunks"]) {
    out << fmt::format("  {:<8} {:>12} {:>12} {:>10}{}\n", c["id"].get<std::string>(), c["offset"].get<std::uint64_t>(),
                       c["size"].get<std::uint64_t>(), c.contains("records") ? std::to_string(c["records"].get<std::uint64_t>()) : "",
                       c.contains("known") ? "  (unknown, skipped)" : "");
  }
  if (s.contains("counts")) {
    out << "counts\n";
    for (auto it = s["counts"].begin(); it != s["counts"].end(); ++it)
      if (it.value().get<std::uint64_t>() != 0) out << fmt::format("  {:<16} {}\n", it.key(), it.value().get<std::uint64_t>());
  }
  if (s.contains("sections") && !s["sections"].empty()) {
    out << fmt::format("sections {}\n  {:>5} {:>5} {:>8} {:>6}\n", s["sections"].size(), "row", "col", "models", "format");
    for (const auto& r : s["sections"])
      out << fmt::format("  {:>5} {:>5} {:>8} {:>6}\n", r["row"].get<int>(), r["col"].get<int>(), r["models"].get<std::uint64_t>(),
                         r.value("format", "?"));
  }
}

Result<eu7b::Module> load_eu7b(const std::string& path, std::ostream& err) {
  auto source = FileSource::open(path);
  if (!source) return source.error();
  auto m = eu7b::read_module(**source, {.load_pack = true, .decode_pack = true});
  (void)err;
  return m;
}

// An EU7B module from a .eu7 file or from its JSON form.
Result<eu7b::Module> load_any(const std::string& path, std::ostream& err) {
  if (!iends_with(path, ".json")) return load_eu7b(path, err);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{Errc::io, 0, fmt::format("{}: cannot open", path)};
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return Error{Errc::bad_value, 0, fmt::format("{}: not valid JSON", path)};
  return eu7b::module_from_json(j);
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

int fail(std::ostream& err, const std::string& path, const Error& e) {
  err << "error: " << path << ": " << e.describe() << '\n';
  return 1;
}

int info(const std::string& path, bool json, std::ostream& out, std::ostream& err) {
  auto source = FileSource::open(path);
  if (!source) {
    err << "error: " << source.error().message << '\n';
    return 1;
  }
  auto summary = inspect(**source);
  if (!summary) return fail(err, path, summary.error());
  if (json) out << dump_json(*summary) << '\n';
  else print_info_text(*summary, path, out);
  return 0;
}

int validate(const std::string& path, std::ostream& out, std::ostream& err) {
  auto m = load_eu7b(path, err);
  if (!m) return fail(err, path, m.error());
  const auto problems = eu7b::validate(*m);
  for (const auto& p : problems) out << fmt::format("{}: {}: {}\n", path, hex_offset(p.offset), p.message);
  std::uint64_t models = 0;
  if (const auto* pack = m->pack())
    for (const auto& s : pack->sections) models += s.model_count();
  if (problems.empty()) {
    out << fmt::format("{}: ok (EU7B v{}, {} chunks, {} PACK models)\n", path, m->version(), m->chunks.size(), models);
    return 0;
  }
  out << fmt::format("{}: {} problem{}\n", path, problems.size(), problems.size() == 1 ? "" : "s");
  return 1;
}

int dump(const std::string& path, const std::string& output, bool pretty, std::ostream& out, std::ostream& err) {
  auto m = load_eu7b(path, err);
  if (!m) return fail(err, path, m.error());
  auto j = eu7b::module_to_json(*m);
  if (!j) return fail(err, path, j.error());
  const std::string text = dump_json(*j, pretty ? 1 : -1) + "\n";
  if (output.empty() || output == "-") {
    out << text;
    return 0;
  }
  return write_bytes(output, {text.begin(), text.end()}, err) ? 0 : 1;
}

int convert(const std::string& in_path, const std::string& out_path, std::uint32_t version,
            const std::string& pack_format, bool lossy, std::ostream& out, std::ostream& err) {
  auto m = load_any(in_path, err);
  if (!m) return fail(err, in_path, m.error());
  eu7b::ConvertOptions options;
  options.version = version;
  std::vector<std::string> losses;
  options.allow_lossy = lossy;
  options.losses = &losses;
  if (!pack_format.empty()) {
    if (!eu7b::parse_section_format(pack_format, options.pack_format)) {
      err << "error: --pack-format must be flat, 1, 2, 3, 4, 5 or 6\n";
      return 2;
    }
    options.keep_pack_format = false;
  }
  eu7b::Module result = std::move(m).value();
  if (version != 0 || !pack_format.empty()) {
    auto converted = eu7b::convert_module(result, options);
    if (!converted) return fail(err, in_path, converted.error());
    result = std::move(converted).value();
    for (const auto& loss : losses) err << "warning: " << loss << '\n';
  }
  if (iends_with(out_path, ".json")) {
    auto j = eu7b::module_to_json(result);
    if (!j) return fail(err, in_path, j.error());
    const std::string text = dump_json(*j) + "\n";
    return write_bytes(out_path, {text.begin(), text.end()}, err) ? 0 : 1;
  }
  auto bytes = eu7b::write_module(result);
  if (!bytes) return fail(err, in_path, bytes.error());
  if (!write_bytes(out_path, *bytes, err)) return 1;
  out << fmt::format("{}: EU7B v{}, {} bytes\n", out_path, result.version(), bytes->size());
  return 0;
}

int generate(const eu7b::GeneratorOptions& options, const std::string& out_path, std::ostream& out, std::ostream& err) {
  auto m = eu7b::generate_module(options);
  if (!m) return fail(err, out_path, m.error());
  auto bytes = eu7b::write_module(*m);
  if (!bytes) return fail(err, out_path, bytes.error());
  if (!write_bytes(out_path, *bytes, err)) return 1;
  out << fmt::format("{}: EU7B v{}, {} models, {} bytes\n", out_path, m->version(), options.models, bytes->size());
  return 0;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"sceneria: open, inspect and convert MaSzyna, Hard Truck and X-Ray scenery files"};
  app.name("sceneria");
  app.require_subcommand(1);

  std::string path, output, pack_format;
  bool json = false, pretty = false;
  std::uint32_t version = 0;

  CLI::App* info_cmd = app.add_subcommand("info", "format, version, size, chunk table, counts and sections");
  info_cmd->add_option("file", path, "input file")->required();
  info_cmd->add_flag("--json", json, "print JSON instead of a table");

  CLI::App* validate_cmd = app.add_subcommand("validate", "decode everything and check consistency (exit 0 only if clean)");
  validate_cmd->add_option("file", path, "input .eu7")->required();

  CLI::App* dump_cmd = app.add_subcommand("dump", "EU7B -> lossless JSON (docs/eu7b-json.md)");
  dump_cmd->add_option("file", path, "input .eu7")->required();
  dump_cmd->add_option("-o,--output", output, "output file (default: standard output)");
  dump_cmd->add_flag("--pretty", pretty, "indent the JSON");

  std::string out_path;
  CLI::App* convert_cmd = app.add_subcommand("convert", "EU7B/JSON -> EU7B/JSON, optionally at another version and PACK format");
  convert_cmd->add_option("input", path, "input .eu7 or .json")->required();
  convert_cmd->add_option("output", out_path, "output .eu7 or .json")->required();
  convert_cmd->add_option("--version", version, "file version (4-9; PACK needs 7-9)")->check(CLI::Range(4, 9));
  convert_cmd->add_option("--pack-format", pack_format, "PACK section format: flat, 1, 2, 3, 4, 5 or 6");
  bool lossy = false;
  convert_cmd->add_flag("--lossy", lossy, "drop what format 6 cannot hold, as the reference writer does (each loss is listed)");

  eu7b::GeneratorOptions gen;
  std::string gen_format;
  CLI::App* gen_cmd = app.add_subcommand("generate", "write a realistic synthetic scenery (deterministic per seed)");
  gen_cmd->add_option("output", out_path, "output .eu7")->required();
  gen_cmd->add_option("--models", gen.models, "PACK model placements")->required();
  gen_cmd->add_option("--seed", gen.seed, "random seed");
  gen_cmd->add_option("--version", gen.version, "file version (7-9)")->check(CLI::Range(7, 9));
  gen_cmd->add_option("--pack-format", gen_format, "PACK section format: flat, 2, 3, 4, 5 or 6");
  gen_cmd->add_option("--track-km", gen.track_km, "kilometres of main line");

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
  if (info_cmd->parsed()) return info(path, json, out, err);
  if (validate_cmd->parsed()) return validate(path, out, err);
  if (dump_cmd->parsed()) return dump(path, output, pretty, out, err);
  if (convert_cmd->parsed()) return convert(path, out_path, version, pack_format, lossy, out, err);
  if (gen_cmd->parsed()) {
    if (!gen_format.empty()) {
      if (!eu7b::parse_section_format(gen_format, gen.pack_format)) {
        err << "error: --pack-format must be flat, 2, 3, 4, 5 or 6\n";
        return 2;
      }
      gen.keep_default_format = false;
    }
    return generate(gen, out_path, out, err);
  }
  return 2;
}

}  // namespace sceneria::cli
