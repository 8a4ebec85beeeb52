// Internal to the scenario loader: one strict parser per section of the scenario file. They run
// in the order declared here and each may read the sections parsed before it (stragglers check
// ranks against cluster, compute converts samples_per_second with training's batch). Each checks
// the rules that involve its own keys and earlier sections; scenario_loader.cpp checks the rest.
#pragma once

#include <string>

#include "sim/scenario/scenario.h"
#include "sim/scenario/yaml_reader.h"

namespace ddpsim {

void parse_cluster(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_model(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_training(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_sync(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_compute(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_data(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_stragglers(const YamlValue& value, YamlContext* context, Scenario* scenario);
void parse_simulation(const YamlValue& value, YamlContext* context, Scenario* scenario);

// sync.gradient_dtype (also training.gradient_dtype): fp32 -> 4 bytes, fp16 or bf16 -> 2.
int gradient_dtype_bytes(const YamlValue& value);

// A path to an existing file. Relative paths written in the scenario are relative to the
// scenario file's folder; those given with --set are relative to the working directory.
std::string as_existing_path(const YamlValue& value, const YamlContext& context);

}  // namespace ddpsim
