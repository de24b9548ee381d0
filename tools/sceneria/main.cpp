#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"

#ifdef SCENERIA_JEMALLOC
// Read by jemalloc when it starts. Huge pages for what it maps (metadata too): a compile fills
// hundreds of MB of new records and output once, so one fault per 2 MB instead of per 4 KB
// halves the run on virtual machines (docs/performance.md).
extern "C" const char* malloc_conf = "thp:always,metadata_thp:always";
#endif

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return sceneria::cli::run(args, std::cout, std::cerr);
}
