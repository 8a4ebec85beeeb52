// A sweep ready to run: every point resolved through the scenario loader before anything is
// simulated, so a bad sweep key or value stops the sweep at once, at the line and column where it
// was written (exit 2), instead of failing point by point an hour later.
//
// A point's id is a hash of its resolved scenario (everything but the file path it came from)
// and of the simulation options that change results. The same point therefore has the same id in
// every run, shard and output folder, which is what resume and merge rely on; change the base
// scenario or an option and the ids change, so stale results are never reused.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/sweep/results_csv.h"
#include "sim/sweep/sweep_spec.h"

namespace ddpsim {

struct PlannedPoint {
  SweepPoint point;
  Scenario scenario;
  std::string id;  // 16 hex digits

  PointKey key(const SweepSpec& spec) const;
};

struct SweepPlan {
  std::string scenario_file;
  std::vector<std::string> set_overrides;  // --set, applied before the point's own overrides
  SweepSpec spec;
  std::vector<PlannedPoint> points;  // every point of the sweep, in cartesian order

  std::vector<std::string> swept_keys() const;
};

// The file's `sweep:` section with the `--sweep` axes added, nothing expanded or resolved (what
// counting the points needs). Throws InputError when there is nothing to sweep.
SweepSpec read_sweep_spec(const std::string& scenario_file,
                          const std::vector<std::string>& sweep_options);

// Reads the file's `sweep:` section, adds the `--sweep` axes, expands and resolves every point.
// `options_fingerprint` names the simulation options that change a result (e.g. "trace=8").
// Throws InputError when there is nothing to sweep or any point does not load. With `keep`, only
// the points whose index it accepts are resolved and planned (a sample of a large sweep: about a
// millisecond per point resolved); `spec` always describes the whole sweep.
SweepPlan plan_sweep(const std::string& scenario_file,
                     const std::vector<std::string>& set_overrides,
                     const std::vector<std::string>& sweep_options,
                     const std::string& options_fingerprint,
                     const std::function<bool(size_t)>& keep = {});

// The id of a resolved scenario under the given options.
std::string point_id(const Scenario& scenario, const std::string& options_fingerprint);

}  // namespace ddpsim
