// Where a result came from: the ddpsim version and source commit that computed it and every
// file the run read (role, path, size, SHA-256; see sim/text/inputs_read.h). results.json and
// each sweep point file carry it as "provenance", trace.json in "otherData", results.csv as the
// columns ddpsim_version, source_commit and inputs_sha256. A resumed sweep trusts a recorded
// point only while provenance_change() finds nothing.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/text/inputs_read.h"

namespace ddpsim {

struct Provenance {
  std::string version;
  std::string commit;
  std::vector<InputRecord> inputs;
};

// This binary, and the files this process has read so far (inputs_read()).
Provenance current_provenance();

nlohmann::json provenance_to_json(const Provenance& provenance);
// Throws nlohmann::json::exception when `json` is not what provenance_to_json() writes.
Provenance provenance_from_json(const nlohmann::json& json);

// The files as they are now, each read once however many results ask about it (a resumed sweep
// asks about its scenario file for every point).
class CurrentFiles {
 public:
  // "" when `input` still has the recorded bytes, else what happened to it.
  std::string change(const InputRecord& input);

 private:
  std::map<std::string, std::string> state_;  // path -> "<bytes> <sha256>" or "!<why unreadable>"
};

// What makes results recorded under `recorded` out of date now, or "" when nothing does:
// another ddpsim version or commit computed them (or none was recorded), or a file they read is
// gone or no longer has the same bytes ("the profile profiles/a100.yaml changed since").
std::string provenance_change(const Provenance& recorded, CurrentFiles* files);

// The results.csv cell: "role=sha256" per file, in the order read, joined by ';'.
std::string input_digests(const std::vector<InputRecord>& inputs);

}  // namespace ddpsim
