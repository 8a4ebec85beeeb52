// Writes a whole file atomically: a temporary file in the same directory, fsync, then rename,
// so readers (and an interrupted run) see either the old file or the complete new one.
#pragma once

#include <string>

namespace ddpsim {

// Creates parent directories as needed. Throws std::runtime_error with the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

// Reads a whole regular file of at most 64 MiB (read_regular_file() in input_file.h); throws
// InputError(path) saying why when it cannot.
std::string read_file(const std::string& path);

}  // namespace ddpsim
