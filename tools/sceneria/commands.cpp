#include "commands.hpp"

#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/inspect.hpp"
#include "io/byte_source.hpp"

namespace sceneria::cli {

namespace {

void print_info_text(const nlohmann::ordered_json& s, const std::string& path, std::ostream& out) {
  out << fmt::format("file     {}\n", path);
  out << fmt::format("format   {} version {}\n", s["format"].get<std::string>(), s["version"].get<int>());
  out << fmt::format("size     {} bytes\n", s["size"].get<std::uint64_t>());
  out << fmt::format("strings  {}\n", s["strings"].get<std::uint64_t>());
  out << fmt::format("chunks   {}\n", s["chunks"].size());
  out << fmt::format("  {:<8} {:>12} {:>12}\n", "id", "offset", "size");
  for (const auto& c : s["chunks"]) {
    out << fmt::format("  {:<8} {:>12} {:>12}{}\n", c["id"].get<std::string>(), c["offset"].get<std::uint64_t>(),
                       c["size"].get<std::uint64_t>(), c.contains("known") ? "  (unknown, skipped)" : "");
  }
}

int info(const std::string& path, bool json, std::ostream& out, std::ostream& err) {
  auto source = FileSource::open(path);
  if (!source) {
    err << "error: " << source.error().message << '\n';
    return 1;
  }
  auto summary = inspect(**source);
  if (!summary) {
    err << "error: " << path << ": " << summary.error().describe() << '\n';
    return 1;
  }
  if (json) out << summary->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  else print_info_text(*summary, path, out);
  return 0;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"sceneria: open, inspect and convert MaSzyna, Hard Truck and X-Ray scenery files"};
  app.name("sceneria");
  app.require_subcommand(1);

  std::string path;
  bool json = false;
  CLI::App* info_cmd = app.add_subcommand("info", "format, version, size, chunk table and counts");
  info_cmd->add_option("file", path, "input file")->required();
  info_cmd->add_flag("--json", json, "print JSON instead of a table");

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
  return 2;
}

}  // namespace sceneria::cli
