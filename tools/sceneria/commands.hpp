#pragma once
// The CLI's commands as functions over streams, so tests can run them without a process.
#include <iosfwd>
#include <string>
#include <vector>

namespace sceneria::cli {

// Runs `sceneria <args...>`; returns the process exit code (0 ok, 1 bad input, 2 usage).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace sceneria::cli
