// nccl-tests on the simulated cluster: one collective of each size, run by every GPU of the
// scenario's cluster through the same SimGrid platform and collective code a training step uses
// (the scenario's algorithm, channels and mode, its measured table when it has one). Sizes run
// one after the other; each starts when every rank has finished the previous one (nccl-tests
// synchronises its ranks the same way), and its time runs from that start to the last rank's
// end. `ddpsim nccl-tests` prints these times; `calibrate --fit-platform` fits link parameters
// by matching them to a measured log.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct SimulatedCollective {
  double bytes = 0;       // nccl-tests "size": the full buffer (all_gather: its output)
  double seconds = 0;     // one call
  std::string algorithm;  // what ran it ("ring", "tree (auto)", "ring (alpha-beta table)")
};

// The collectives the model has (make_collective in sync_factory.h); a sweep of any other is an
// InputError naming these.
bool collective_is_modelled(CollectiveOp op);
std::string modelled_collectives();  // "all_reduce, all_gather, reduce_scatter"

// Simulates `op` at each of `sizes` (bytes, > 0) on `scenario.cluster`, in a child process (one
// SimGrid engine per process). Throws InputError for a collective the model does not have or a
// cluster it cannot build, std::runtime_error if the simulation fails.
std::vector<SimulatedCollective> simulate_collective_sweep(const Scenario& scenario,
                                                           CollectiveOp op,
                                                           const std::vector<double>& sizes);

// The all-reduce times (seconds) of `sizes` on a cluster, everything else as in `scenario` and
// its measured table left out: the simulator calibration/platform_fit.h fits links through.
std::function<std::vector<double>(const ClusterSpec&, const std::vector<double>&)> all_reduce_times(
    const Scenario& scenario);

// nccl-tests' sizes for -b min -e max -f factor with elements of `element_bytes`: min, min*f, ...
// up to max, each rounded down to whole elements (as nccl-tests does); factor 1 gives min alone.
std::vector<double> nccl_tests_sizes(double min_bytes, double max_bytes, double factor,
                                     int element_bytes = 4);

}  // namespace ddpsim
