// The platform calibration file: link parameters fitted through the simulator from nccl-tests
// logs (`ddpsim calibrate --fit-platform`), each with where it came from. A scenario names it
// with `cluster.calibration: FILE`; its values replace the scenario's link specs of the same key
// (link_parameters.h), so a fit on 2 nodes predicts any node count through the link model.
//
//   format: 1
//   scenario: scenarios/calibration/h100-2x8.yaml     # the cluster the fit simulated
//   parameters:
//     - parameter: cluster.nic.bandwidth               # a link_parameters() key
//       value: 2.31e10                                 # SI, or with a unit: 23.1GB/s
//       scenario_value: 2.5e10                         # what the scenario said (the line rate)
//       log: logs/2x8.log                              # the measurement it was fitted to
//       gpus: 16
//       nodes: 2
//       device: "NVIDIA H100 80GB HBM3"
//       sizes: [268435456, 8589934592]                 # the sizes it was fitted on
//       max_error: 0.004                               # |simulated - measured| / measured there
//       flag: ""                                       # why the value is suspect, if it is
//
// Only `parameter` and `value` are required; unknown keys, unknown parameters, a parameter given
// twice, a bandwidth <= 0 or a negative latency are InputErrors at file:line:column.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct FittedParameter {
  std::string parameter;  // link_parameters() key
  double value = 0;       // bytes/s or seconds
  double scenario_value = 0;
  std::string log;
  int gpus = 0, nodes = 0;
  std::string device;
  double min_bytes = 0, max_bytes = 0;
  double max_error = 0;
  std::string flag;
};

struct PlatformCalibration {
  std::string source;    // the file it was read from
  std::string scenario;  // the scenario the fit simulated
  std::vector<FittedParameter> parameters;
};

PlatformCalibration load_platform_calibration(const std::string& path);
PlatformCalibration parse_platform_calibration(const std::string& text, const std::string& path);
std::string platform_calibration_to_yaml(const PlatformCalibration& calibration);
void write_platform_calibration(const PlatformCalibration& calibration, const std::string& path);

// Replaces the cluster's values by the file's. Returns one line per value for the results'
// notes ("cluster.nic.bandwidth = 23.1 GB/s, fitted on 16 GPUs (2 nodes, NVIDIA H100 ...)"), and
// in `warnings` a line when the file was fitted on another GPU type than `cluster.gpu`.
std::vector<std::string> apply_platform_calibration(const PlatformCalibration& calibration,
                                                    ClusterSpec* cluster,
                                                    std::vector<std::string>* warnings);

}  // namespace ddpsim
