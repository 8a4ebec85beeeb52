// The `validation:` section of a scenario under scenarios/validation/: which published
// measurement(s) the scenario rebuilds, so `ddpsim validate` can compare its prediction with
// them. The scenario loader ignores the section; read_validation_spec() parses it strictly
// (InputError at file:line:column naming the allowed keys and values).
//
//   validation:
//     source: NVIDIA/DeepLearningExamples PyTorch/.../README.md (pytorch-21.03 NGC)
//     calibration: DLE-PT-RN50-A100-TF32-1, 938 img/s on one A100 (compute.samples_per_second)
//     pending: needs NVLink SHARP (NVLS)   # optional: listed as pending, the scenario not run
//     cases:
//       - {id: DLE-PT-RN50-A100-TF32-8, group: scaling, metric: throughput,
//          measured: 7248, unit: img/s, compare: "..."}   # compare: optional, pair_ranking.h
//
// Metrics and the units a measurement may carry (what the prediction is read from):
//   throughput          img/s seq/s samples/s tokens/s  samples_per_second x per_sample
//   iteration_time      s ms                            iteration_time
//   scaling_efficiency  %                               100 x scaling_efficiency (needs baseline)
//   busbw               GB/s                            nccl-tests bus bandwidth of the largest
//                                                       bucket: 2(p-1)/p x bytes / its comm time
//   allreduce_time      us ms                           the largest bucket's all-reduce time
//                                                       (nccl-tests' time column)
#pragma once

#include <string>
#include <vector>

namespace ddpsim {

// kLocal: measured on the machine at hand (`ddpsim validate --measured`, measured_cases.h).
enum class ValidationGroup { kScaling, kBucketSize, kDataLoading, kCollectives, kSharding, kLocal };
enum class ValidationMetric {
  kThroughput,
  kIterationTime,
  kScalingEfficiency,
  kBusBandwidth,
  kAllReduceTime
};

struct ValidationCase {
  std::string id;  // the measurement's case_id in measurements.csv
  ValidationGroup group = ValidationGroup::kScaling;
  ValidationMetric metric = ValidationMetric::kThroughput;
  double measured = 0;    // in `unit`, as published
  std::string unit;       // one of the metric's units
  double per_sample = 1;  // throughput: published units per simulated sample (tokens)
  std::string note;       // optional, shown in the CSV
  // Optional: cases with the same label are one job run different ways (parameter servers,
  // bucket size, system); `ddpsim validate` checks that the prediction orders every pair of them
  // as the measurements do (pair_ranking.h).
  std::string compare;
};

struct ValidationSpec {
  std::string file;         // the scenario file
  std::string source;       // where the measurements were published
  std::string calibration;  // which single-GPU measurement calibrates compute
  std::string pending;      // non-empty: the feature the scenario still needs
  std::vector<ValidationCase> cases;
};

// Reads the `validation` section of the scenario file at `path`. A file without one is an
// InputError at its first line (every scenario under the validation folder must say what it
// validates).
ValidationSpec read_validation_spec(const std::string& path);
// The same from text; `file_name` is used in messages.
ValidationSpec parse_validation_spec(const std::string& yaml_text, const std::string& file_name);

const char* group_name(ValidationGroup group);
const char* metric_name(ValidationMetric metric);
// The metric a name denotes; false when unknown. `metric_names()`: all, comma-separated.
bool metric_from_name(const std::string& name, ValidationMetric* metric);
std::string metric_names();
// The group a name denotes; false when unknown.
bool group_from_name(const std::string& name, ValidationGroup* group);
// Every group, in report order.
const std::vector<ValidationGroup>& all_groups();

// Multiplier that converts a measurement in `unit` to the metric's base unit (seconds for
// iteration_time, bytes/s for busbw, samples/s x per_sample for throughput, % for efficiency);
// 0 when the unit is not allowed for the metric.
double unit_scale(ValidationMetric metric, const std::string& unit);

}  // namespace ddpsim
