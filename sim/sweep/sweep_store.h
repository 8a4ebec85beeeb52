// The output folder of a sweep:
//   sweep.json               what was swept (scenario, axes, point ids, shard): read by merge and
//                            by the report script
//   results.csv              results_csv.h; rewritten whole, atomically, as points finish
//   points/<id>.json         one point: overrides, resolved scenario, full result (with
//                            --uncertainty its bands, result.uncertainty) and its
//                            provenance (ddpsim version, commit, digests of the files read),
//                            written atomically by the process that simulated it. This is the
//                            record a resumed sweep trusts: a point is done when its file is
//                            complete and its provenance still holds (provenance.h).
//   points/<id>.trace.json   the point's measured step as a Chrome trace (Perfetto)
//   .lock                    flock()ed while a sweep writes here, so two never interleave
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/results/provenance.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"
#include "sim/sweep/results_csv.h"
#include "sim/sweep/sweep_plan.h"

namespace ddpsim {

struct RecordedPoint {
  SimulationResult result;
  Provenance provenance;
  std::optional<ResultBands> bands;  // the file's result.uncertainty (sweep --uncertainty)
};

class SweepStore {
 public:
  // Creates the folder and takes its lock; InputError when another sweep holds it.
  explicit SweepStore(std::string out_dir);
  ~SweepStore();
  SweepStore(const SweepStore&) = delete;
  SweepStore& operator=(const SweepStore&) = delete;

  const std::string& dir() const { return dir_; }
  int lock_fd() const { return lock_fd_; }  // children close it so the lock dies with us
  std::string point_path(const std::string& id) const;
  std::string trace_path(const std::string& id) const;
  std::string csv_path() const { return dir_ + "/results.csv"; }
  std::string manifest_path() const { return dir_ + "/sweep.json"; }

  // The result recorded for `id`, if its point file is complete and names that id. A file
  // written before points carried provenance comes back with an empty one.
  std::optional<RecordedPoint> recorded_point(const std::string& id) const;
  // Temporaries left by a killed writer (we hold the lock, so none is being written).
  void remove_stale_temporaries() const;

 private:
  std::string dir_;
  int lock_fd_ = -1;
};

// The point file's text; `uncertainty` (uncertainty_to_json's object, or null) becomes
// result.uncertainty, as in simulate's results.json.
std::string point_document(const PlannedPoint& point, const SweepSpec& spec,
                           const SimulationResult& result, const Provenance& provenance,
                           const nlohmann::json& uncertainty = nullptr);

// sweep.json: format, scenario file and name, --set overrides, axes with their values, every
// point id in cartesian order, the shard, and the base compute mode/profile for report titles.
nlohmann::json sweep_manifest(const SweepPlan& plan, const std::string& shard);

}  // namespace ddpsim
