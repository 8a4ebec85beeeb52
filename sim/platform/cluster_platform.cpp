// Builds the zones, hosts, links and routes that cluster_platform.h describes.
#include "sim/platform/cluster_platform.h"

#include <algorithm>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <stdexcept>
#include <string>

#include "sim/platform/node_paths.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

// Speed of CPU, server and storage hosts (per core); GPU hosts run at the GPU's fp32 peak. Only
// code that calls execute() sees these: the cost models time compute themselves.
constexpr double kCpuSpeed = 1e9;

class Builder {
 public:
  Builder(const ClusterSpec& spec, const PlatformExtras& extras) {
    p_.spec = spec;
    p_.extras = extras;
    p_.logical_nodes = spec.nodes;
  }

  ClusterPlatform build() {
    validate();
    const ClusterSpec& s = p_.spec;
    auto* spine = sg4::create_star_zone("spine");
    const int leaves = s.leaves();
    create_links(spine, leaves);
    // SimGrid 3.32 searches every zone under the root when it creates a host (is the name taken?
    // NetZoneImpl::get_host_by_name_or_null) and when it seals a zone (which hosts are mine?
    // get_all_hosts filters every host of the platform). Filling and sealing node zones in a
    // tree already holding the others made the build quadratic in the GPUs (5.6 s at 32,768
    // GPUs, 40 % in get_filtered_hosts). So each leaf is built, its nodes filled and sealed,
    // while it is still detached from the spine (the root); the leaves are attached at the end
    // and sealed with the spine, one scan per leaf. A detached zone gets the spine's models by
    // hand (set_parent would copy them). Names are unique by construction.
    p_.gpus.reserve(s.total_gpus());
    std::vector<sg4::NetZone*> leaf_zones(leaves);
    for (int leaf = 0; leaf < leaves; ++leaf) {
      const std::string name = "leaf" + std::to_string(leaf);
      auto* zone = sg4::create_star_zone(name);
      copy_models(spine, zone);
      auto* gw_zone = sg4::create_full_zone(name + ".gwzone");
      gw_zone->set_parent(zone);
      NetPoint* gw = gw_zone->create_router(name + ".gw");
      gw_zone->seal();
      zone->add_route(gw_zone->get_netpoint(), nullptr, gw, nullptr, {}, false);
      zone->add_route(nullptr, gw_zone->get_netpoint(), nullptr, gw, {}, false);

      const int first = leaf * s.fabric.nodes_per_leaf;
      const int last = std::min(s.nodes, first + s.fabric.nodes_per_leaf);
      for (int node = first; node < last; ++node) build_node(zone, node);
      leaf_zones[leaf] = zone;
      leaf_gateways_.push_back(gw);
    }
    for (int leaf = 0; leaf < leaves; ++leaf) {
      sg4::NetZone* zone = leaf_zones[leaf];
      zone->set_parent(spine);
      spine->add_route(zone->get_netpoint(), nullptr, leaf_gateways_[leaf], nullptr,
                       {sg4::LinkInRoute(p_.leaf_up[leaf])}, false);
      spine->add_route(nullptr, zone->get_netpoint(), nullptr, leaf_gateways_[leaf],
                       {sg4::LinkInRoute(p_.leaf_down[leaf])}, false);
    }

    for (int i = 0; i < p_.extras.dedicated_servers; ++i) {
      sg4::Host* host =
          standalone_host(spine, "ps" + std::to_string(i), p_.server_up[i], p_.server_down[i]);
      p_.servers.push_back(host);
      p_.places[host] = HostPlace{HostRole::kServer, -1, -1, i};
    }
    if (p_.extras.shared_storage) {
      p_.storage = standalone_host(spine, "storage", p_.storage_up, p_.storage_down);
      p_.places[p_.storage] = HostPlace{HostRole::kStorage, -1, -1, 0};
    }
    spine->seal();
    return std::move(p_);
  }

 private:
  void validate() const {
    const ClusterSpec& s = p_.spec;
    auto require = [](bool ok, const char* what) {
      if (!ok) throw std::invalid_argument(std::string("cluster platform: ") + what);
    };
    require(s.nodes >= 1 && s.gpus_per_node >= 1, "nodes and gpus_per_node must be >= 1");
    require(s.nic.count >= 1, "nic.count must be >= 1");
    require(s.fabric.nodes_per_leaf >= 1, "fabric.nodes_per_leaf must be >= 1");
    require(s.fabric.oversubscription > 0, "fabric.oversubscription must be > 0");
    require(p_.extras.dedicated_servers == 0 || p_.extras.server_bandwidth > 0,
            "dedicated servers need their NIC's bandwidth (effective_scenario resolves it)");
    // One node may leave its NICs unspecified (the loader's rule): nothing leaves the node.
    const bool nic_unused =
        s.nodes == 1 && p_.extras.dedicated_servers == 0 && !p_.extras.shared_storage;
    require(s.pcie_bandwidth > 0 && (s.nic.bandwidth > 0 || nic_unused),
            "pcie and nic bandwidths must be > 0");
    require(s.intra_node.kind == IntraNodeKind::kPcie || s.intra_node.bandwidth > 0,
            "intra_node.bandwidth must be > 0");
    require(s.host.sockets >= 1 && s.host.sockets <= 2 && s.gpus_per_node % s.host.sockets == 0,
            "host.sockets must be 1 or 2 and divide gpus_per_node");
    require(s.host.bandwidth > 0 && (s.host.sockets == 1 || s.host.socket_link > 0),
            "host bandwidths must be > 0");
    require(
        s.pcie_switch.gpus == 0 || ((s.gpus_per_node / s.host.sockets) % s.pcie_switch.gpus == 0 &&
                                    s.pcie_switch.uplink > 0),
        "a PCIe switch needs an uplink > 0 and must divide a socket's GPUs");
    require(s.nic.efficiency > 0 && s.nic.efficiency <= 1, "nic.efficiency must be in (0, 1]");
    require(p_.extras.dedicated_servers >= 0, "dedicated_servers must be >= 0");
    require(!p_.extras.shared_storage || p_.extras.storage_bandwidth > 0,
            "shared storage needs a bandwidth > 0");
  }

  // Every link lives in the spine zone and is created before any other zone: SimGrid checks a
  // new link's name by searching every zone of the tree, which made building 1024 nodes
  // quadratic (seconds); routes may use links of any zone.
  void create_links(sg4::NetZone* spine, int leaves) {
    const ClusterSpec& s = p_.spec;
    const bool nvlink = s.intra_node.kind != IntraNodeKind::kPcie;
    const double client_bw = p_.extras.storage_client_bandwidth;
    // Unused NIC links of a one-node cluster without NICs still need a positive capacity.
    const double nic_bw = s.nic.bandwidth > 0 ? s.nic.effective_bandwidth() : s.pcie_bandwidth;
    const int switches = s.pcie_switch.gpus > 0 ? s.gpus_per_node / s.pcie_switch.gpus : 0;
    p_.node_links.resize(s.nodes);
    for (int node = 0; node < s.nodes; ++node) {
      NodeLinks& nl = p_.node_links[node];
      const std::string name = "n" + std::to_string(node);
      for (int l = 0; l < s.gpus_per_node; ++l) {
        const std::string gpu = name + ".gpu" + std::to_string(l);
        if (nvlink) {
          nl.intra_up.push_back(
              link(spine, gpu + ".nvl.up", s.intra_node.bandwidth, LinkClass::kIntraNode));
          nl.intra_down.push_back(
              link(spine, gpu + ".nvl.down", s.intra_node.bandwidth, LinkClass::kIntraNode));
        }
        nl.pcie_up.push_back(link(spine, gpu + ".pcie.up", s.pcie_bandwidth, LinkClass::kPcie));
        nl.pcie_down.push_back(link(spine, gpu + ".pcie.down", s.pcie_bandwidth, LinkClass::kPcie));
      }
      for (int w = 0; w < switches; ++w) {
        const std::string sw = name + ".switch" + std::to_string(w);
        nl.switch_up.push_back(link(spine, sw + ".up", s.pcie_switch.uplink, LinkClass::kPcie));
        nl.switch_down.push_back(link(spine, sw + ".down", s.pcie_switch.uplink, LinkClass::kPcie));
      }
      for (int t = 0; t < s.host.sockets; ++t) {
        nl.host.push_back(
            link(spine, name + ".host" + std::to_string(t), s.host.bandwidth, LinkClass::kHost));
      }
      if (s.host.sockets == 2) {
        nl.socket_up = link(spine, name + ".socket.up", s.host.socket_link, LinkClass::kHost);
        nl.socket_down = link(spine, name + ".socket.down", s.host.socket_link, LinkClass::kHost);
      }
      for (int k = 0; k < s.nic.count; ++k) {
        const std::string nic = name + ".nic" + std::to_string(k);
        nl.nic_up.push_back(link(spine, nic + ".up", nic_bw, LinkClass::kNic));
        nl.nic_down.push_back(link(spine, nic + ".down", nic_bw, LinkClass::kNic));
      }
      if (client_bw > 0) {
        nl.client_up = link(spine, name + ".client.up", client_bw, LinkClass::kStorage);
        nl.client_down = link(spine, name + ".client.down", client_bw, LinkClass::kStorage);
      }
    }
    const double uplink =
        s.fabric.nodes_per_leaf * s.nic.count * nic_bw / s.fabric.oversubscription;
    for (int leaf = 0; leaf < leaves; ++leaf) {
      const std::string name = "leaf" + std::to_string(leaf);
      p_.leaf_up.push_back(link(spine, name + ".up", uplink, LinkClass::kFabric));
      p_.leaf_down.push_back(link(spine, name + ".down", uplink, LinkClass::kFabric));
    }
    // A dedicated server speaks the cluster's transport.
    const double server_bw = p_.extras.server_bandwidth * s.nic.efficiency;
    for (int i = 0; i < p_.extras.dedicated_servers; ++i) {
      const std::string name = "ps" + std::to_string(i);
      p_.server_up.push_back(link(spine, name + ".up", server_bw, LinkClass::kNic));
      p_.server_down.push_back(link(spine, name + ".down", server_bw, LinkClass::kNic));
    }
    if (p_.extras.shared_storage) {
      const double bw = p_.extras.storage_bandwidth;
      p_.storage_up = link(spine, "storage.up", bw, LinkClass::kStorage);
      p_.storage_down = link(spine, "storage.down", bw, LinkClass::kStorage);
    }
  }

  sg4::Link* link(sg4::NetZone* zone, const std::string& name, double bandwidth, LinkClass cls) {
    sg4::Link* l = zone->create_link(name, bandwidth)->set_latency(0)->seal();
    p_.link_classes.emplace(l, cls);
    return l;
  }

  // A host alone in its own zone on the spine, reached through its up/down links (a host placed
  // directly beside the leaf zones would route wrong, like a bare gateway).
  sg4::Host* standalone_host(sg4::NetZone* spine, const std::string& name, sg4::Link* up,
                             sg4::Link* down) {
    auto* zone = sg4::create_full_zone(name + ".zone");
    zone->set_parent(spine);
    sg4::Host* host = zone->create_host(name, kCpuSpeed)->seal();
    zone->seal();
    spine->add_route(zone->get_netpoint(), nullptr, host->get_netpoint(), nullptr,
                     {sg4::LinkInRoute(up)}, false);
    spine->add_route(nullptr, zone->get_netpoint(), nullptr, host->get_netpoint(),
                     {sg4::LinkInRoute(down)}, false);
    return host;
  }

  void build_node(sg4::NetZone* leaf, int node) {
    const ClusterSpec& s = p_.spec;
    const int g = s.gpus_per_node;
    const std::string name = "n" + std::to_string(node);
    auto* zone = sg4::create_full_zone(name);
    zone->set_parent(leaf);
    NodeLinks& nl = p_.node_links[node];

    const double gpu_speed = s.gpu.fp32_flops > 0 ? s.gpu.fp32_flops : kCpuSpeed;
    std::vector<NetPoint*> gpu_np(g);
    for (int l = 0; l < g; ++l) {
      sg4::Host* h = zone->create_host(name + ".gpu" + std::to_string(l), gpu_speed)->seal();
      gpu_np[l] = h->get_netpoint();
      p_.places[h] = HostPlace{HostRole::kGpu, node, l, static_cast<int>(p_.gpus.size())};
      p_.gpus.push_back(h);
    }
    sg4::Host* cpu = zone->create_host(name + ".cpu", kCpuSpeed)
                         ->set_core_count(std::max(1, s.cpu_cores_per_node))
                         ->seal();
    p_.places[cpu] = HostPlace{HostRole::kCpu, node, -1, node};
    p_.node_cpus.push_back(cpu);
    NetPoint* gw = zone->create_router(name + ".gw");

    namespace np = node_paths;
    auto route = [zone](NetPoint* a, NetPoint* b, const auto& trace) {
      np::Path links;
      trace(np::Collect{&links});
      std::vector<sg4::LinkInRoute> in_route(links.begin(), links.end());
      zone->add_route(a, b, nullptr, nullptr, in_route, false);
    };
    NetPoint* cpu_np = cpu->get_netpoint();
    for (int l = 0; l < g; ++l) {
      for (int m = 0; m < g; ++m) {
        if (l == m) continue;
        route(gpu_np[l], gpu_np[m], [&](auto v) { np::gpu_to_gpu(s, nl, l, m, v); });
      }
      const int k = p_.nic_of_local(l);
      route(gpu_np[l], gw, [&](auto v) { np::gpu_to_nic(s, nl, l, k, v); });
      route(gw, gpu_np[l], [&](auto v) { np::nic_to_gpu(s, nl, k, l, v); });
      route(cpu_np, gpu_np[l], [&](auto v) { np::cpu_to_gpu(s, nl, l, v); });
      route(gpu_np[l], cpu_np, [&](auto v) { np::gpu_to_cpu(s, nl, l, v); });
    }
    route(cpu_np, gw, [&](auto v) { np::cpu_to_nic(nl, v); });
    route(gw, cpu_np, [&](auto v) { np::nic_to_cpu(nl, v); });
    zone->seal();
    // The leaf switch is non-blocking: no link between a node's gateway and the leaf.
    leaf->add_route(zone->get_netpoint(), nullptr, gw, nullptr, {}, false);
    leaf->add_route(nullptr, zone->get_netpoint(), nullptr, gw, {}, false);
  }

  static void copy_models(const sg4::NetZone* from, sg4::NetZone* to) {
    const auto* src = from->get_impl();
    auto* dst = to->get_impl();
    dst->set_network_model(src->get_network_model());
    dst->set_cpu_pm_model(src->get_cpu_pm_model());
    dst->set_cpu_vm_model(src->get_cpu_vm_model());
    dst->set_disk_model(src->get_disk_model());
    dst->set_host_model(src->get_host_model());
  }

  ClusterPlatform p_;
  std::vector<NetPoint*> leaf_gateways_;
};

}  // namespace

const char* link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::kIntraNode:
      return "intra_node";
    case LinkClass::kPcie:
      return "pcie";
    case LinkClass::kNic:
      return "nic";
    case LinkClass::kFabric:
      return "fabric";
    case LinkClass::kStorage:
      return "storage";
    case LinkClass::kHost:
      return "host";
  }
  return "?";
}

ClusterPlatform build_cluster_platform(const ClusterSpec& spec, const PlatformExtras& extras) {
  return Builder(spec, extras).build();
}

double message_latency(const ClusterPlatform& platform, const simgrid::s4u::Host* a,
                       const simgrid::s4u::Host* b) {
  if (a == b) return 0;
  const HostPlace& pa = platform.place(a);
  const HostPlace& pb = platform.place(b);
  if (pa.node >= 0 && pa.node == pb.node) return platform.spec.intra_node.latency;
  return platform.spec.nic.latency + platform.spec.nic.message_cost;
}

}  // namespace ddpsim
