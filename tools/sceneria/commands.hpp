#pragma once
// The CLI's commands as functions over streams, so tests can run them without a process.
#include <iosfwd>
#include <string>
#include <vector>

namespace sceneria::cli {

// Runs `sceneria <args...>`; returns the process exit code (0 ok, 1 bad input, 2 usage).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Whether the file at `path` is of a format that converts a piece at a time (Format::
// converts_in_pieces) and is not its JSON form; false when it cannot be read or told.
bool converts_in_pieces(const std::string& path);

}  // namespace sceneria::cli
