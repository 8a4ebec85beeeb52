#include "sim/measurements/roofline_fit.h"

#include <algorithm>
#include <stdexcept>

namespace ddpsim {

double roofline_time(double flops, double bytes, double peak_flops, double memory_bandwidth) {
  if (!(peak_flops > 0) || !(memory_bandwidth > 0))
    throw std::invalid_argument("roofline_time: peak FLOP/s and bandwidth must be > 0");
  return std::max(flops / peak_flops, bytes / memory_bandwidth);
}

std::map<LayerKind, double> fit_roofline_efficiency(const std::vector<LayerTiming>& layers,
                                                    double peak_flops, double memory_bandwidth) {
  std::map<LayerKind, std::pair<double, double>> sums;  // kind -> (roofline, measured)
  for (const LayerTiming& t : layers) {
    auto& [roof, measured] = sums[t.kind];
    roof += roofline_time(t.fwd_flops, t.fwd_bytes, peak_flops, memory_bandwidth) +
            roofline_time(t.bwd_flops, t.bwd_bytes, peak_flops, memory_bandwidth);
    measured += t.fwd.median + t.bwd.median;
  }
  std::map<LayerKind, double> efficiency;
  for (const auto& [kind, s] : sums)
    if (s.second > 0 && s.first > 0) efficiency[kind] = s.first / s.second;
  return efficiency;
}

}  // namespace ddpsim
