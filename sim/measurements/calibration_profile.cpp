#include "sim/measurements/calibration_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "sim/scenario/enum_names.h"
#include "sim/text/named_values.h"

namespace ddpsim {

RepeatStats repeat_stats(std::vector<double> samples) {
  RepeatStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  stats.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  stats.min = samples.front();
  stats.max = samples.back();
  stats.repeats = static_cast<int>(n);
  return stats;
}

double DeviceCeilings::gemm_flops(Precision p) const {
  for (const GemmCeiling& g : gemm)
    if (g.precision == p) return g.flops;
  return 0;
}

double OverlapInterference::slowdown() const {
  if (gemm_alone.median <= 0) return 1;
  if (gemm_with_allreduce) return gemm_with_allreduce->median / gemm_alone.median;
  if (gemm_with_copy) return gemm_with_copy->median / gemm_alone.median;
  return 1;
}

std::optional<ProfiledLayerTime> layer_time(const CalibrationProfile& profile,
                                            const std::string& model, Precision precision,
                                            const std::string& layer, int batch) {
  const LayerTiming* best = nullptr;
  int best_batch = 0;
  for (const ModelRun& run : profile.runs) {
    if (run.model != model || run.precision != precision || run.batch <= 0) continue;
    for (const LayerTiming& t : run.layers) {
      if (t.name != layer) continue;
      if (best == nullptr || std::abs(run.batch - batch) < std::abs(best_batch - batch)) {
        best = &t;
        best_batch = run.batch;
      }
    }
  }
  if (best == nullptr) return std::nullopt;
  const double scale = static_cast<double>(batch) / best_batch;
  return ProfiledLayerTime{best->fwd.median * scale, best->bwd.median * scale, best_batch == batch};
}

std::optional<double> roofline_efficiency(const CalibrationProfile& profile, LayerKind kind) {
  auto it = profile.roofline_efficiency.find(kind);
  if (it == profile.roofline_efficiency.end()) return std::nullopt;
  return it->second;
}

std::map<AllReduceAlgorithm, CollectiveSweep> all_reduce_sweeps(const CalibrationProfile& profile) {
  return collective_sweeps(profile, CollectiveOp::kAllReduce);
}

std::map<AllReduceAlgorithm, CollectiveSweep> collective_sweeps(const CalibrationProfile& profile,
                                                                CollectiveOp op) {
  std::map<AllReduceAlgorithm, const CollectiveSweep*> chosen;
  for (const CollectiveSweep& sweep : profile.collectives) {
    if (sweep.op != op || sweep.fit.empty() || sweep.gpus == 1) continue;
    const CollectiveSweep*& best = chosen[sweep.algorithm];
    if (best == nullptr || sweep.gpus >= best->gpus) best = &sweep;
  }
  std::map<AllReduceAlgorithm, CollectiveSweep> sweeps;
  for (const auto& [algorithm, sweep] : chosen) sweeps[algorithm] = *sweep;
  return sweeps;
}

std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> all_reduce_tables(
    const CalibrationProfile& profile) {
  std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> tables;
  for (const auto& [algorithm, sweep] : all_reduce_sweeps(profile)) tables[algorithm] = sweep.fit;
  return tables;
}

double alpha_beta_predict(const std::vector<AlphaBetaPoint>& ranges, double bytes) {
  if (ranges.empty()) return 0;
  const AlphaBetaPoint* row = &ranges.back();
  if (bytes < ranges.front().min_bytes) {
    row = &ranges.front();
  } else {
    for (const AlphaBetaPoint& r : ranges) {
      if (bytes >= r.min_bytes && bytes < r.max_bytes) {
        row = &r;
        break;
      }
    }
  }
  return row->alpha + row->beta * bytes;
}

std::optional<double> alpha_beta_time(
    const std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>>& table,
    AllReduceAlgorithm algorithm, double bytes) {
  auto it = table.find(algorithm);
  if (it == table.end() || it->second.empty()) it = table.find(AllReduceAlgorithm::kAuto);
  if (it == table.end() || it->second.empty()) return std::nullopt;
  return alpha_beta_predict(it->second, bytes);
}

namespace {

const NamedValue<CollectiveOp> kCollectiveOps[] = {
    {CollectiveOp::kAllReduce, "all_reduce"},
    {CollectiveOp::kAllGather, "all_gather"},
    {CollectiveOp::kReduceScatter, "reduce_scatter"},
    {CollectiveOp::kBroadcast, "broadcast"},
};

}  // namespace

const char* collective_op_key(CollectiveOp op) { return name_in(kCollectiveOps, op, "unknown"); }

std::optional<CollectiveOp> parse_collective_op_key(const std::string& key) {
  return value_named(kCollectiveOps, key);
}

std::optional<AllReduceAlgorithm> parse_algorithm_name(const std::string& name) {
  return enum_from_name<AllReduceAlgorithm>(name);
}

std::optional<Precision> parse_precision_name(const std::string& name) {
  return enum_from_name<Precision>(name);
}

}  // namespace ddpsim
