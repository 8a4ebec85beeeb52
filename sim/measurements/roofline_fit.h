// Roofline efficiency per layer kind, fitted from timed layers, so that layers of models that
// were not profiled can be predicted as roofline time / efficiency. A pass's roofline time is
// max(flops / peak FLOP/s, bytes / memory bandwidth). The efficiency of a kind is
//   sum over its layers of (roofline fwd + roofline bwd) / sum of (measured fwd + measured bwd),
// a time-weighted ratio: predicting the profiled layers back with it gives exactly their
// measured total for that kind, and long layers weigh more than short ones.
#pragma once

#include <map>
#include <vector>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim {

double roofline_time(double flops, double bytes, double peak_flops, double memory_bandwidth);

// peak_flops: the measured GEMM ceiling at the run's precision; memory_bandwidth: the measured
// D2D bandwidth. Kinds with no timed layer (or zero measured time) are absent from the result.
// Efficiencies above 1 (a layer beating the measured ceilings) are kept as measured.
std::map<LayerKind, double> fit_roofline_efficiency(const std::vector<LayerTiming>& layers,
                                                    double peak_flops, double memory_bandwidth);

}  // namespace ddpsim
