#include "sim/measurements/link_parameters.h"

namespace ddpsim {

const std::vector<LinkParameter>& link_parameters() {
  using K = LinkParameterKind;
  static const std::vector<LinkParameter> parameters = {
      {"cluster.intra_node.bandwidth", K::kBandwidth,
       "per GPU and direction between GPUs of a node (NVLink/NVSwitch)",
       [](ClusterSpec& c) -> double& { return c.intra_node.bandwidth; }},
      {"cluster.intra_node.latency", K::kLatency, "per intra-node message",
       [](ClusterSpec& c) -> double& { return c.intra_node.latency; }},
      {"cluster.pcie", K::kBandwidth,
       "per GPU and direction on its PCIe link (GPU-to-GPU traffic with intra_node.kind pcie)",
       [](ClusterSpec& c) -> double& { return c.pcie_bandwidth; }},
      {"cluster.nic.bandwidth", K::kBandwidth, "per NIC and direction",
       [](ClusterSpec& c) -> double& { return c.nic.bandwidth; }},
      {"cluster.nic.latency", K::kLatency, "per inter-node message",
       [](ClusterSpec& c) -> double& { return c.nic.latency; }},
  };
  return parameters;
}

const LinkParameter* find_link_parameter(const std::string& name) {
  for (const LinkParameter& p : link_parameters())
    if (name == p.name) return &p;
  return nullptr;
}

double* link_parameter(ClusterSpec* cluster, const std::string& name) {
  const LinkParameter* p = find_link_parameter(name);
  return p == nullptr ? nullptr : &p->field(*cluster);
}

std::string link_parameter_names() {
  std::string names;
  for (const LinkParameter& p : link_parameters())
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

}  // namespace ddpsim
