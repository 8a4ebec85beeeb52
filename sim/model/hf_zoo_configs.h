// The config.json files the zoo's Hugging Face models are built from, compiled into ddpsim
// from scenarios/models/hf/<folder>/config.json (see sim/CMakeLists.txt and the README there,
// which cites where each file was published).
#pragma once

#include <vector>

namespace ddpsim {

struct HfZooConfig {
  const char* key;          // zoo key, e.g. "llama2-7b"
  const char* path;         // the source file, relative to the repository
  const char* description;  // e.g. "Llama-2 7B (meta-llama/Llama-2-7b-hf)"
  const char* json;         // the file's text
};

const std::vector<HfZooConfig>& hf_zoo_configs();

}  // namespace ddpsim
