#include "sim/link_fit/link_fraction_ranges.h"

#include <fmt/format.h>

#include "sim/text/units.h"

namespace ddpsim {

std::optional<LinkFractionRange> link_fraction_range(const std::string& parameter,
                                                     const ClusterSpec& cluster) {
  // Sources in docs/calibration.md: NVIDIA/nccl-tests#149, #212, #331 (NVLink); NVIDIA/
  // nccl-tests#119, #267, NVIDIA/nccl#495 (RDMA NICs); PCIe packet overhead and bandwidthTest.
  if (parameter == "cluster.intra_node.bandwidth" &&
      cluster.intra_node.kind != IntraNodeKind::kPcie)
    return LinkFractionRange{"NVLink/NVSwitch", 0.70, 0.85};
  if (parameter == "cluster.pcie") return LinkFractionRange{"PCIe", 0.70, 0.90};
  if (parameter == "cluster.nic.bandwidth" && cluster.nic.transport == NicTransport::kRdma)
    return LinkFractionRange{"RDMA NIC (InfiniBand/RoCE)", 0.75, 1.00};
  return std::nullopt;
}

std::string link_fraction_flag(const std::string& parameter, const ClusterSpec& cluster,
                               double fitted, double line_rate, double tolerance) {
  const auto range = link_fraction_range(parameter, cluster);
  if (!range || !(line_rate > 0)) return "";
  const double fraction = fitted / line_rate;
  if (fraction >= range->low * (1 - tolerance) && fraction <= range->high * (1 + tolerance))
    return "";
  return fmt::format(
      "{:.1f} % of the scenario's {} (its line rate), outside the {:.0f}-{:.0f} % {} links "
      "plausibly reach (docs/calibration.md)",
      100 * fraction, units::format_bandwidth(line_rate), 100 * range->low, 100 * range->high,
      range->technology);
}

}  // namespace ddpsim
