// Which files a run read, for provenance: loaders record each file whose content shapes a result
// (read_input_file() in input_file.h does it), and the writers of results.json, results.csv and
// trace.json list them with their SHA-256. One registry per process; a forked simulation sends
// its records back to the parent (isolated.h), so files read in the child count too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ddpsim {

struct InputRecord {
  std::string role;  // "scenario", "profile", "alpha_beta_table", "model_file", ...
  std::string path;  // as the run opened it
  uint64_t bytes = 0;
  std::string sha256;  // of the bytes read
};

// Records `content`, just read from `path`. A path read again keeps its place in the list and
// takes the digest of the latest read (the content the run went on with).
void record_input(const std::string& role, const std::string& path, std::string_view content);
void record_input(const InputRecord& record);

// Every file recorded so far, in the order first read.
const std::vector<InputRecord>& inputs_read();
// Replaces the list (a sweep's worker starts each point from the files the sweep itself read).
void set_inputs_read(std::vector<InputRecord> records);

// The list as text, and records every file such a text names (how a forked child reports the
// files it read to its parent).
std::string inputs_read_text();
void record_inputs_text(const std::string& text);

}  // namespace ddpsim
