#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#ifdef SCENERIA_JEMALLOC
#include <unistd.h>
#endif

#include "commands.hpp"

#ifdef SCENERIA_JEMALLOC
namespace {

// Huge pages pay where a command fills hundreds of MB of new records once (a compile: one fault
// per 2 MB instead of per 4 KB halves the run on virtual machines, docs/performance.md) and cost
// where it streams through a big file in a few MB (every allocator arena then holds whole 2 MB
// pages: reading a 3-million-model module takes 14 MB without them, 25 MB with them).
// jemalloc takes its options once, before main, so a command that wants them starts again with
// them in MALLOC_CONF.
bool wants_huge_pages(const std::vector<std::string>& args) {
  if (args.empty()) return false;
  if (args[0] == "bake" || args[0] == "generate") return true;
  if (args[0] != "convert" || args.size() < 2) return false;
  // A module (or a folder's worth of files) streams; text and JSON are read into records whole.
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--recursive") return true;
  return !sceneria::cli::converts_in_pieces(args[1]);
}

}  // namespace
#endif

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
#ifdef SCENERIA_JEMALLOC
  if (wants_huge_pages(args) && !std::getenv("MALLOC_CONF")) {
    ::setenv("MALLOC_CONF", "thp:always,metadata_thp:always", 1);
    ::execv("/proc/self/exe", argv);  // on failure: on without them
  }
#endif
  return sceneria::cli::run(args, std::cout, std::cerr);
}
