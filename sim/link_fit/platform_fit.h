// Platform calibration: fits the cluster's link parameters so that the *simulated* nccl-tests
// all-reduce sweep of the same cluster matches measured logs (ddpsim calibrate --fit-platform).
// A one-node log fits the intra-node links (intra_node.bandwidth, or pcie with intra_node.kind
// pcie, and intra_node.latency); a log of two or more nodes fits the network (nic.bandwidth,
// nic.latency) with the intra-node values held at what the one-node log gave (else the
// scenario's). Bandwidths are fitted on the largest sizes of a log, latencies on the smallest:
// for each, a 1-D root of mean(log(simulated / measured)) over its sizes, found by secant steps
// through the simulator; the two are alternated until neither moves (relative 1e-9). The values
// are the model's own link parameters, so the fitted cluster predicts any other node count
// through the same link model.
//
// Refused (InputError): a log the topology cannot reproduce (a parameter the simulated times do
// not depend on, a latency that would have to be negative, a log whose largest sizes are not
// bandwidth-bound). Flagged (kept, with FittedParameter::flag): a bandwidth above the scenario's
// value of that link, which this fit takes as its line rate, or a fraction of that line rate
// outside what its technology plausibly reaches (link_fraction_ranges.h). A latency the log cannot
// identify (its smallest size is bandwidth-bound) is not fitted and not written.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/nccl_tests_import.h"
#include "sim/measurements/platform_file.h"

namespace ddpsim {

// One measured all-reduce sweep: nccl-tests on `gpus` GPUs over `nodes` nodes.
struct MeasuredSweep {
  std::string log;  // where it came from (messages, provenance)
  int gpus = 0, nodes = 0;
  std::string device;  // GPU name the log printed
  std::vector<CollectiveSample> samples;
};

// The sweep of an imported nccl-tests log, named `name` in messages.
MeasuredSweep measured_sweep(const NcclTestsLog& log, const std::string& name);

// Times of one all-reduce per size (bytes) on `cluster`, everything else as in the scenario.
using SweepSimulator =
    std::function<std::vector<double>(const ClusterSpec& cluster, const std::vector<double>&)>;

struct FitRow {
  double bytes = 0, measured = 0, predicted = 0;  // seconds
  char used = ' ';                                // 'B' bandwidth point, 'L' latency point
};

struct FitReport {
  const MeasuredSweep* sweep = nullptr;
  std::vector<FitRow> rows;  // every size of the log, simulated with all fitted values
};

struct PlatformFit {
  PlatformCalibration calibration;  // the fitted values with their provenance
  ClusterSpec cluster;              // the scenario's cluster with them applied
  std::vector<FitReport> reports;   // per log
  std::vector<std::string> notes;   // parameters left unfitted and why
};

// `cluster` is the scenario's (its values are the starting point and the line rates).
PlatformFit fit_platform(const ClusterSpec& cluster, const std::vector<MeasuredSweep>& logs,
                         const SweepSimulator& simulate);

// The cluster a log was measured on: `cluster` with the log's node count and GPUs per node
// (NICs capped at one per GPU).
ClusterSpec cluster_of_log(const ClusterSpec& cluster, const MeasuredSweep& log);

// The fit, printed the way nccl-tests prints: per log size, measured and predicted time and bus
// bandwidth, error; then the parameters.
std::string format_platform_fit(const PlatformFit& fit);

}  // namespace ddpsim
