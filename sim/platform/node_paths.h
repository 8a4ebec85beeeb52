// The links of every path inside one node, in order, as cluster_platform.h draws them. The
// builder adds exactly these as SimGrid routes, expected_route() joins them across the fabric
// and route_class_counts() counts them, so the topology is written once; the route self-test then
// checks that SimGrid's zone hierarchy resolves them (gateways, leaves) as intended.
//
// Each function calls visit(link, link_class) for every link in order (a link crossed twice,
// host memory for staged traffic, is visited twice): callers collect links or count classes
// without building a route (per-message byte accounting stays allocation-free).
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/platform/cluster_platform.h"

namespace ddpsim::node_paths {

using Path = std::vector<simgrid::s4u::Link*>;

namespace detail {

// From a GPU's PCIe link up to its socket's root complex (the switch uplink when it has one).
template <class Visit>
void up_to_root(const ClusterSpec& s, const NodeLinks& nl, int l, Visit&& visit) {
  visit(nl.pcie_up[l], LinkClass::kPcie);
  if (s.switch_of_local(l) >= 0) visit(nl.switch_up[s.switch_of_local(l)], LinkClass::kPcie);
}

template <class Visit>
void down_from_root(const ClusterSpec& s, const NodeLinks& nl, int m, Visit&& visit) {
  if (s.switch_of_local(m) >= 0) visit(nl.switch_down[s.switch_of_local(m)], LinkClass::kPcie);
  visit(nl.pcie_down[m], LinkClass::kPcie);
}

// Written into socket `from`'s memory, read back from it, then across to socket `to`.
template <class Visit>
void through_memory(const NodeLinks& nl, int from, int to, Visit&& visit) {
  visit(nl.host[from], LinkClass::kHost);
  visit(nl.host[from], LinkClass::kHost);
  if (to != from) visit(from == 0 ? nl.socket_up : nl.socket_down, LinkClass::kHost);
}

}  // namespace detail

// Local GPU l to local GPU m (l != m): NVLink, PCIe peer-to-peer or staged through host memory.
template <class Visit>
void gpu_to_gpu(const ClusterSpec& s, const NodeLinks& nl, int l, int m, Visit&& visit) {
  if (!nl.intra_up.empty()) {
    visit(nl.intra_up[l], LinkClass::kIntraNode);
    visit(nl.intra_down[m], LinkClass::kIntraNode);
    return;
  }
  const int sl = s.switch_of_local(l), sm = s.switch_of_local(m);
  if (!s.staged(l, m)) {
    // Peer-to-peer: inside one switch, or up through the root complex and down again.
    visit(nl.pcie_up[l], LinkClass::kPcie);
    if (sl != sm) {
      visit(nl.switch_up[sl], LinkClass::kPcie);
      visit(nl.switch_down[sm], LinkClass::kPcie);
    }
    visit(nl.pcie_down[m], LinkClass::kPcie);
    return;
  }
  detail::up_to_root(s, nl, l, visit);
  detail::through_memory(nl, s.socket_of_local(l), s.socket_of_local(m), visit);
  detail::down_from_root(s, nl, m, visit);
}

// Local GPU l to and from its NIC k (GPUDirect RDMA, or staged through host memory).
template <class Visit>
void gpu_to_nic(const ClusterSpec& s, const NodeLinks& nl, int l, int k, Visit&& visit) {
  if (s.nic.gpudirect) {
    visit(nl.pcie_up[l], LinkClass::kPcie);
  } else {
    detail::up_to_root(s, nl, l, visit);
    detail::through_memory(nl, s.socket_of_local(l), s.socket_of_nic(k), visit);
  }
  visit(nl.nic_up[k], LinkClass::kNic);
}

template <class Visit>
void nic_to_gpu(const ClusterSpec& s, const NodeLinks& nl, int k, int l, Visit&& visit) {
  visit(nl.nic_down[k], LinkClass::kNic);
  if (s.nic.gpudirect) {
    visit(nl.pcie_down[l], LinkClass::kPcie);
    return;
  }
  detail::through_memory(nl, s.socket_of_nic(k), s.socket_of_local(l), visit);
  detail::down_from_root(s, nl, l, visit);
}

// The node's CPU (loader, colocated server) to and from local GPU m: host memory and PCIe.
template <class Visit>
void cpu_to_gpu(const ClusterSpec& s, const NodeLinks& nl, int m, Visit&& visit) {
  visit(nl.host[s.socket_of_local(m)], LinkClass::kHost);
  detail::down_from_root(s, nl, m, visit);
}

template <class Visit>
void gpu_to_cpu(const ClusterSpec& s, const NodeLinks& nl, int m, Visit&& visit) {
  detail::up_to_root(s, nl, m, visit);
  visit(nl.host[s.socket_of_local(m)], LinkClass::kHost);
}

// The CPU to and from the node's first NIC (through the storage client link if any).
template <class Visit>
void cpu_to_nic(const NodeLinks& nl, Visit&& visit) {
  if (nl.client_up) visit(nl.client_up, LinkClass::kStorage);
  visit(nl.nic_up[0], LinkClass::kNic);
}

template <class Visit>
void nic_to_cpu(const NodeLinks& nl, Visit&& visit) {
  visit(nl.nic_down[0], LinkClass::kNic);
  if (nl.client_down) visit(nl.client_down, LinkClass::kStorage);
}

// A visitor that collects the links.
struct Collect {
  Path* path;
  void operator()(simgrid::s4u::Link* link, LinkClass) const { path->push_back(link); }
};

}  // namespace ddpsim::node_paths
