#include "sim/platform/link_names.h"

namespace ddpsim {
namespace {

struct GroupText {
  const char* name;
  const char* label;
};

constexpr std::array<GroupText, kLinkGroups> kGroups = {{
    {"nvlink tx", "NVLink ports"},
    {"nvlink rx", "NVLink ports"},
    {"pcie tx", "GPU PCIe links"},
    {"pcie rx", "GPU PCIe links"},
    {"pcie switch tx", "PCIe switch uplinks"},
    {"pcie switch rx", "PCIe switch uplinks"},
    {"host memory", "host memory"},
    {"socket link", "socket links"},
    {"nic tx", "NICs"},
    {"nic rx", "NICs"},
    {"storage client tx", "storage client links"},
    {"storage client rx", "storage client links"},
    {"leaf up", "leaf uplinks"},
    {"leaf down", "leaf uplinks"},
    {"server nic tx", "parameter-server NICs"},
    {"server nic rx", "parameter-server NICs"},
    {"storage tx", "shared storage links"},
    {"storage rx", "shared storage links"},
}};

}  // namespace

const char* link_group_name(LinkGroup group) { return kGroups[static_cast<int>(group)].name; }
const char* link_group_label(LinkGroup group) { return kGroups[static_cast<int>(group)].label; }

LinkCatalogue catalogue_links(const ClusterPlatform& pf) {
  LinkCatalogue c;
  auto add = [&](const simgrid::s4u::Link* link, std::string name, LinkGroup group, int node,
                 int leaf = -1) {
    if (link == nullptr) return;
    c.index.emplace(link, static_cast<int>(c.links.size()));
    c.links.push_back(LinkInfo{link, std::move(name), pf.link_classes.at(link), group, node, leaf,
                               link->get_bandwidth()});
  };
  const int g = pf.spec.gpus_per_node;
  for (size_t n = 0; n < pf.node_links.size(); ++n) {
    const NodeLinks& nl = pf.node_links[n];
    const int node = static_cast<int>(n);
    const std::string prefix = "node" + std::to_string(n) + "/";
    for (size_t l = 0; l < nl.intra_up.size(); ++l) {
      const std::string gpu = "gpu" + std::to_string(node * g + static_cast<int>(l));
      add(nl.intra_up[l], gpu + "/nvlink tx", LinkGroup::kNvlinkTx, node);
      add(nl.intra_down[l], gpu + "/nvlink rx", LinkGroup::kNvlinkRx, node);
    }
    for (size_t l = 0; l < nl.pcie_up.size(); ++l) {
      const std::string gpu = "gpu" + std::to_string(node * g + static_cast<int>(l));
      add(nl.pcie_up[l], gpu + "/pcie tx", LinkGroup::kPcieTx, node);
      add(nl.pcie_down[l], gpu + "/pcie rx", LinkGroup::kPcieRx, node);
    }
    for (size_t w = 0; w < nl.switch_up.size(); ++w) {
      const std::string sw = prefix + "pcie-switch" + std::to_string(w);
      add(nl.switch_up[w], sw + " tx", LinkGroup::kSwitchTx, node);
      add(nl.switch_down[w], sw + " rx", LinkGroup::kSwitchRx, node);
    }
    for (size_t t = 0; t < nl.host.size(); ++t)
      add(nl.host[t], prefix + "host-memory" + std::to_string(t), LinkGroup::kHostMemory, node);
    add(nl.socket_up, prefix + "socket0→1", LinkGroup::kSocketLink, node);
    add(nl.socket_down, prefix + "socket1→0", LinkGroup::kSocketLink, node);
    for (size_t k = 0; k < nl.nic_up.size(); ++k) {
      const std::string nic = prefix + "nic" + std::to_string(k);
      add(nl.nic_up[k], nic + " tx", LinkGroup::kNicTx, node);
      add(nl.nic_down[k], nic + " rx", LinkGroup::kNicRx, node);
    }
    add(nl.client_up, prefix + "storage-client tx", LinkGroup::kStorageClientTx, node);
    add(nl.client_down, prefix + "storage-client rx", LinkGroup::kStorageClientRx, node);
  }
  for (size_t leaf = 0; leaf < pf.leaf_up.size(); ++leaf) {
    const std::string name = "leaf" + std::to_string(leaf);
    add(pf.leaf_up[leaf], name + "→spine", LinkGroup::kLeafUp, -1, static_cast<int>(leaf));
    add(pf.leaf_down[leaf], "spine→" + name, LinkGroup::kLeafDown, -1, static_cast<int>(leaf));
  }
  for (size_t i = 0; i < pf.server_up.size(); ++i) {
    const std::string name = "ps" + std::to_string(i) + "/nic";
    add(pf.server_up[i], name + " tx", LinkGroup::kServerNicTx, -1);
    add(pf.server_down[i], name + " rx", LinkGroup::kServerNicRx, -1);
  }
  add(pf.storage_up, "storage tx", LinkGroup::kStorageTx, -1);
  add(pf.storage_down, "storage rx", LinkGroup::kStorageRx, -1);
  return c;
}

}  // namespace ddpsim
