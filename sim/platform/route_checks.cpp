// The routes the topology promises (expected_route, route_class_counts) and the self-test that
// compares them with what SimGrid actually resolves.
#include <sstream>

#include "sim/platform/cluster_platform.h"
#include "sim/platform/node_paths.h"

namespace ddpsim {
namespace {

using simgrid::s4u::Host;
using simgrid::s4u::Link;
using Route = std::vector<const Link*>;

bool in_node(const HostPlace& p) { return p.node >= 0; }

// From a host to the outside of its node (gpu/cpu) or its spine link (server/storage).
template <class Visit>
void visit_exit(const ClusterPlatform& pf, const HostPlace& p, Visit&& visit) {
  switch (p.role) {
    case HostRole::kGpu:
      node_paths::gpu_to_nic(pf.spec, pf.node_links[p.node], p.local, pf.nic_of_local(p.local),
                             visit);
      break;
    case HostRole::kCpu:
      node_paths::cpu_to_nic(pf.node_links[p.node], visit);
      break;
    case HostRole::kServer:
      visit(pf.server_up[p.index], LinkClass::kNic);
      break;
    case HostRole::kStorage:
      visit(pf.storage_up, LinkClass::kStorage);
      break;
  }
}

template <class Visit>
void visit_entry(const ClusterPlatform& pf, const HostPlace& p, Visit&& visit) {
  switch (p.role) {
    case HostRole::kGpu:
      node_paths::nic_to_gpu(pf.spec, pf.node_links[p.node], pf.nic_of_local(p.local), p.local,
                             visit);
      break;
    case HostRole::kCpu:
      node_paths::nic_to_cpu(pf.node_links[p.node], visit);
      break;
    case HostRole::kServer:
      visit(pf.server_down[p.index], LinkClass::kNic);
      break;
    case HostRole::kStorage:
      visit(pf.storage_down, LinkClass::kStorage);
      break;
  }
}

// Every link of the route from a to b, in order, with its class.
template <class Visit>
void visit_route(const ClusterPlatform& pf, const Host* a, const Host* b, Visit&& visit) {
  if (a == b) return;
  const HostPlace& pa = pf.place(a);
  const HostPlace& pb = pf.place(b);
  if (in_node(pa) && pa.node == pb.node) {
    const NodeLinks& nl = pf.node_links[pa.node];
    if (pa.role == HostRole::kCpu)
      node_paths::cpu_to_gpu(pf.spec, nl, pb.local, visit);
    else if (pb.role == HostRole::kCpu)
      node_paths::gpu_to_cpu(pf.spec, nl, pa.local, visit);
    else
      node_paths::gpu_to_gpu(pf.spec, nl, pa.local, pb.local, visit);
    return;
  }
  visit_exit(pf, pa, visit);
  const int leaf_a = in_node(pa) ? pf.leaf_of_node(pa.node) : -1;
  const int leaf_b = in_node(pb) ? pf.leaf_of_node(pb.node) : -1;
  if (leaf_a != leaf_b || leaf_a < 0) {
    if (leaf_a >= 0) visit(pf.leaf_up[leaf_a], LinkClass::kFabric);
    if (leaf_b >= 0) visit(pf.leaf_down[leaf_b], LinkClass::kFabric);
  }
  visit_entry(pf, pb, visit);
}

std::string describe(const std::vector<const Link*>& route) {
  std::string out = "[";
  for (size_t i = 0; i < route.size(); ++i) {
    if (i) out += ", ";
    out += route[i]->get_name();
  }
  return out + "]";
}

}  // namespace

std::vector<const Link*> expected_route(const ClusterPlatform& pf, const Host* a, const Host* b) {
  Route r;
  visit_route(pf, a, b, [&r](const Link* link, LinkClass) { r.push_back(link); });
  return r;
}

std::array<int, kLinkClasses> route_class_counts(const ClusterPlatform& pf, const Host* a,
                                                 const Host* b) {
  std::array<int, kLinkClasses> n{};
  visit_route(pf, a, b, [&n](const Link*, LinkClass c) { ++n[static_cast<int>(c)]; });
  return n;
}

std::string self_test_routes(const ClusterPlatform& pf) {
  const ClusterSpec& s = pf.spec;
  const int g = s.gpus_per_node;
  const int last_node = s.nodes - 1;
  std::vector<std::pair<const Host*, const Host*>> pairs;
  auto gpu = [&](int node, int local) { return pf.gpus[node * g + local]; };
  auto add_both = [&pairs](const Host* a, const Host* b) {
    pairs.emplace_back(a, b);
    pairs.emplace_back(b, a);
  };

  // Inside a node: every GPU pair of the first node (exercises every NVLink/PCIe link there).
  for (int l = 0; l < g; ++l) {
    for (int m = 0; m < g; ++m)
      if (l != m) pairs.emplace_back(gpu(0, l), gpu(0, m));
    add_both(pf.node_cpus[0], gpu(0, l));
  }
  // Same leaf, different node; across leaves; with every NIC of the source node.
  if (s.nodes > 1) {
    for (int l = 0; l < g; ++l) add_both(gpu(0, l), gpu(1, (l + 1) % g));
    add_both(pf.node_cpus[0], pf.node_cpus[1]);
    add_both(gpu(0, 0), pf.node_cpus[1]);
  }
  if (pf.leaf_of_node(last_node) != pf.leaf_of_node(0)) {
    add_both(gpu(0, g - 1), gpu(last_node, 0));
    add_both(pf.node_cpus[0], gpu(last_node, g - 1));
  }
  for (size_t i = 0; i < pf.servers.size(); ++i) {
    add_both(gpu(0, 0), pf.servers[i]);
    add_both(pf.node_cpus[last_node], pf.servers[i]);
    add_both(gpu(last_node, g - 1), pf.servers[i]);
    if (i > 0) add_both(pf.servers[0], pf.servers[i]);
  }
  if (pf.storage) {
    add_both(pf.storage, pf.node_cpus[0]);
    add_both(pf.storage, pf.node_cpus[last_node]);
    add_both(pf.storage, gpu(last_node, 0));
    if (!pf.servers.empty()) add_both(pf.storage, pf.servers[0]);
  }

  for (const auto& [a, b] : pairs) {
    std::vector<Link*> got;
    double latency = 0;
    a->route_to(b, got, &latency);
    const Route want = expected_route(pf, a, b);
    const Route got_const(got.begin(), got.end());
    std::array<int, kLinkClasses> classes{};
    for (const Link* l : got) ++classes[static_cast<int>(pf.link_classes.at(l))];
    if (got_const != want || latency != 0 || classes != route_class_counts(pf, a, b)) {
      std::ostringstream msg;
      msg << "route " << a->get_name() << " -> " << b->get_name() << ": SimGrid gives "
          << describe(got_const) << " (latency " << latency << "), the topology says "
          << describe(want);
      return msg.str();
    }
  }
  return "";
}

}  // namespace ddpsim
