// Plausible ranges of the scenario's physical quantities (bandwidths, latencies, compute rates),
// from public datasheets: a NIC port carries at most 800 Gb/s today, NVLink at most 900 GB/s per
// GPU and direction, PCIe at most Gen6 x16. A value outside its range is taken as written (it may
// be a future or odd system) and reported in the result's warnings with the value in both bits
// and bytes and the likely slip ("400 GB/s = 3,200 Gb/s per NIC ...: did you mean 400Gbps?").
// The ranges and their sources are in docs/scenario-reference.md ("Plausible ranges").
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/text/units.h"

namespace ddpsim {

struct PlausibleRange {
  const char* key;         // "cluster.nic.bandwidth"
  const char* technology;  // only where cluster.intra_node.kind is this ("" = always)
  units::Kind kind;
  double low, high;  // base units (bytes/s, seconds, FLOP/s); a stated 0 means "none": unchecked
  const char* per;   // "per NIC and direction"
  const char* what;  // "the fastest NIC port (ConnectX-8, 800GbE)"
};

const std::vector<PlausibleRange>& plausible_ranges();

// The warning for the value `text` written at `key` (parsed to `value` in base units), or "" when
// it lies in its range (or the key has none). `technology` is cluster.intra_node.kind's name;
// `cpus` the CPUs one cluster.host socket stands for (host memory's range is per CPU).
std::string implausible_value_warning(const std::string& key, const std::string& text, double value,
                                      const std::string& technology, double cpus = 1);

// Checks every key of plausible_ranges() written in the (overridden) document `root`; appends the
// warnings to scenario->cluster.input_warnings, after any bits-for-bytes warning of the same key.
void note_implausible_values(const YAML::Node& root, Scenario* scenario);

}  // namespace ddpsim
