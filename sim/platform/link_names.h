// Readable names of the platform's links, for link-utilisation reports and the timeline:
//
//   gpu5/nvlink tx   gpu5/nvlink rx     a GPU's NVSwitch/NVLink port, out of and into the GPU
//   gpu5/pcie tx     gpu5/pcie rx       its PCIe link (tx: towards the host)
//   node0/pcie-switch1 tx|rx            a PCIe switch's uplink to the CPU
//   node0/host-memory0                  socket 0's memory as DMA sees it (both directions)
//   node0/socket0→1, node0/socket1→0    the link between the two sockets
//   node3/nic1 tx    node3/nic1 rx      NIC 1 of node 3 (tx: leaving the node)
//   node0/storage-client tx|rx          the node's storage client link
//   leaf2→spine      spine→leaf2        a leaf switch's uplinks to the spine
//   ps0/nic tx|rx    storage tx|rx      a dedicated parameter server's NIC, the shared store
//
// GPUs are named by rank (gpu = node * gpus_per_node + local index). Each link also has a group:
// what the summary names when that kind of link binds ("leaf uplinks 94 % busy") and a column of
// the per-node heat map.
#pragma once

#include <array>
#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/platform/cluster_platform.h"

namespace ddpsim {

enum class LinkGroup {
  kNvlinkTx,
  kNvlinkRx,
  kPcieTx,
  kPcieRx,
  kSwitchTx,
  kSwitchRx,
  kHostMemory,
  kSocketLink,
  kNicTx,
  kNicRx,
  kStorageClientTx,
  kStorageClientRx,
  kLeafUp,
  kLeafDown,
  kServerNicTx,
  kServerNicRx,
  kStorageTx,
  kStorageRx,
};
constexpr int kLinkGroups = 18;
// Groups whose links belong to one node (the per-node heat map's columns, in this order).
constexpr int kNodeLinkGroups = 12;

// "nic tx", "leaf up", ...: the group's column name.
const char* link_group_name(LinkGroup group);
// "NICs", "leaf uplinks", ...: what the summary calls the group's links, plural.
const char* link_group_label(LinkGroup group);

struct LinkInfo {
  const simgrid::s4u::Link* link = nullptr;
  std::string name;
  LinkClass link_class = LinkClass::kNic;
  LinkGroup group = LinkGroup::kNicTx;
  int node = -1;         // node of a node link, else -1
  int leaf = -1;         // leaf of a leaf uplink, else -1
  double bandwidth = 0;  // bytes/s, as SimGrid shares it
};

// Every link of the platform, in a fixed order (per node: NVLink, PCIe, switches, host, NICs,
// storage client; then leaves, servers, storage), with an index for dense per-link arrays.
struct LinkCatalogue {
  std::vector<LinkInfo> links;
  std::unordered_map<const simgrid::s4u::Link*, int> index;
};

LinkCatalogue catalogue_links(const ClusterPlatform& platform);

}  // namespace ddpsim
