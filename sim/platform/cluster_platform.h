// Builds the SimGrid platform of a cluster from ClusterSpec, in code (no XML).
//
// Network model (DESIGN.md, measured on SimGrid 3.32): CM02 with cross-traffic off and no
// TCP-gamma cap, every link with zero latency so CM02 shares bandwidth max-min fairly; the
// per-message latency alpha is added by the sender with sleep_for (see message_latency()).
//
// Topology, per node n (a Full zone "n<n>" holding hosts "n<n>.gpu<l>", "n<n>.cpu" and its
// gateway router "n<n>.gw"; one up and one down link per direction so directions never share,
// except host memory, which reads and writes share). Local GPU l sits under socket t_l and, with
// cluster.pcie_switch, under switch s_l; NIC k under socket t_k. `?` marks links that exist only
// with that feature (switch uplinks, a second socket):
//   gpu l -> gpu m, NVLink kinds          [intra_up_l, intra_down_m]
//   gpu l -> gpu m, PCIe peer-to-peer     [pcie_up_l, sw_up_sl?, sw_down_sm?, pcie_down_m]
//                                         (the switch links only between different switches)
//   gpu l -> gpu m, staged (no P2P, or another socket; NCCL's SHM transport)
//                     [pcie_up_l, sw_up_sl?, host_tl, host_tl, socket_tl->tm?, sw_down_sm?,
//                      pcie_down_m]     host memory twice: written by l, read by m
//   gpu l -> gw, GPUDirect RDMA           [pcie_up_l, nic_up_k]   k = nic_of_local(l)
//   gpu l -> gw, staged (gpudirect false) [pcie_up_l, sw_up_sl?, host_tl, host_tl,
//                                          socket_tl->tk?, nic_up_k]
//   gw -> gpu m                           the mirror of gpu m -> gw
//   cpu -> gpu m     [host_tm, sw_down_sm?, pcie_down_m]   (H2D copies read host memory once)
//   gpu m -> cpu     [pcie_up_m, sw_up_sm?, host_tm]
//   cpu -> gw        [client_up?, nic_up_0]   gw -> cpu  [nic_down_0, client_down?]
// NIC links run at nic.effective_bandwidth() (the transport's efficiency applied).
// Leaves: Star zones "leaf<i>" of nodes_per_leaf node zones (non-blocking leaf switch) plus a
// sub-zone holding only the leaf's gateway router (a gateway placed beside sub-zones routes
// silently wrong, DESIGN.md). The root is a non-blocking Star zone (the spine); each leaf reaches
// it through leaf_up / leaf_down of capacity nodes_per_leaf*nic.count*nic.bandwidth /
// oversubscription. Dedicated parameter servers ("ps<i>", links server_up/down) and the shared
// storage ("storage", links storage_up/down) each sit in their own zone on the spine.
#pragma once

#include <array>
#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// Extra hosts outside the GPU nodes.
struct PlatformExtras {
  int dedicated_servers = 0;            // parameter-server machines
  double server_bandwidth = 0;          // per server NIC, bytes/s (> 0 with dedicated servers)
  bool shared_storage = false;          // one storage host on the spine
  double storage_bandwidth = 0;         // its aggregate bandwidth, bytes/s
  double storage_client_bandwidth = 0;  // per-node client link for storage reads (0 = none)
};

// kPcie covers GPU links and switch uplinks; kHost the sockets' memory and the link between them.
enum class LinkClass { kIntraNode = 0, kPcie = 1, kNic = 2, kFabric = 3, kStorage = 4, kHost = 5 };
constexpr int kLinkClasses = 6;
const char* link_class_name(LinkClass c);

// Where a host sits; looked up per message by the Transport (no route_to at run time).
enum class HostRole { kGpu, kCpu, kServer, kStorage };
struct HostPlace {
  HostRole role = HostRole::kGpu;
  int node = -1;   // GPU node (-1 for servers and storage)
  int local = -1;  // local GPU index (GPUs only)
  int index = -1;  // rank (GPU), node (CPU), server index (server), 0 (storage)
};

// Link handles of one node; a link exists only where the topology has it (e.g. no NVLink links
// when intra_node.kind is pcie, client links only with a storage client bandwidth).
struct NodeLinks {
  std::vector<simgrid::s4u::Link*> intra_up, intra_down;    // per local GPU, to/from the NVSwitch
  std::vector<simgrid::s4u::Link*> pcie_up, pcie_down;      // per local GPU
  std::vector<simgrid::s4u::Link*> switch_up, switch_down;  // per PCIe switch, to/from the CPU
  std::vector<simgrid::s4u::Link*> host;                    // per socket: its memory, shared
  simgrid::s4u::Link* socket_up = nullptr;                  // socket 0 -> 1
  simgrid::s4u::Link* socket_down = nullptr;                // socket 1 -> 0
  std::vector<simgrid::s4u::Link*> nic_up, nic_down;        // per NIC
  simgrid::s4u::Link* client_up = nullptr;                  // storage client link, cpu side
  simgrid::s4u::Link* client_down = nullptr;
};

struct ClusterPlatform {
  ClusterSpec spec;
  PlatformExtras extras;
  // Nodes of the cluster the collectives stand for: spec.nodes, or under the symmetric scope
  // (sim/cost/symmetry.h) the whole cluster's, of which spec is a slice. Collectives size their
  // volumes, latency terms, trees and NCCL tuning by it and route their flows over the slice.
  int logical_nodes = 0;
  ClusterSpec logical_spec() const {
    ClusterSpec full = spec;
    full.nodes = logical_nodes;
    return full;
  }
  std::vector<simgrid::s4u::Host*> gpus;       // rank order: rank = node * gpus_per_node + local
  std::vector<simgrid::s4u::Host*> node_cpus;  // one per node (loaders, colocated servers)
  std::vector<simgrid::s4u::Host*> servers;    // dedicated parameter servers
  simgrid::s4u::Host* storage = nullptr;       // shared storage, if any

  int node_of_rank(int rank) const { return rank / spec.gpus_per_node; }
  int local_of_rank(int rank) const { return rank % spec.gpus_per_node; }
  int nic_of_local(int local) const { return local * spec.nic.count / spec.gpus_per_node; }
  int leaf_of_node(int node) const { return node / spec.fabric.nodes_per_leaf; }

  // Every host of the platform; throws std::out_of_range for a foreign host.
  std::unordered_map<const simgrid::s4u::Host*, HostPlace> places;
  const HostPlace& place(const simgrid::s4u::Host* host) const { return places.at(host); }

  std::vector<NodeLinks> node_links;                        // per node
  std::vector<simgrid::s4u::Link*> leaf_up, leaf_down;      // per leaf, to/from the spine
  std::vector<simgrid::s4u::Link*> server_up, server_down;  // per dedicated server
  simgrid::s4u::Link* storage_up = nullptr;  // storage -> spine (reads leave through it)
  simgrid::s4u::Link* storage_down = nullptr;
  std::unordered_map<const simgrid::s4u::Link*, LinkClass> link_classes;
};

// Call after constructing the simgrid::s4u::Engine and before the first zone is created: sets
// CM02 without cross-traffic or TCP-gamma cap, small actor stacks (many actors at 8k GPUs), and
// silences SimGrid's logs below critical. guard_pages false: actor stacks without a guard page,
// one memory mapping each instead of two, for runs with more actors than vm.max_map_count / 2
// (machine_limits); an overflowing stack is then not caught.
void configure_network_model(bool guard_pages = true);

// The command line every simgrid::s4u::Engine of ddpsim is created with (the engine picks its
// context factory from it, not from set_config). stoppable: under AddressSanitizer, system-thread
// contexts, for runs that --max-wall may stop: SimGrid unwinds a killed actor's stack, and ASan
// cannot follow that through SimGrid's own context switches (false stack-buffer-overflow
// reports). Threads are ten times slower there, so other runs keep SimGrid's contexts and end
// with no actor left to kill.
struct EngineCommandLine {
  explicit EngineCommandLine(bool stoppable = false);
  int argc = 0;
  char* argv[4] = {};
};

// Creates every zone, host and link, seals the platform, and returns the handles.
ClusterPlatform build_cluster_platform(const ClusterSpec& spec, const PlatformExtras& extras);

// alpha for one message from host a to host b: 0 on the same host, intra_node.latency inside a
// node (GPU-GPU and CPU-GPU), nic.latency + nic.message_cost for anything leaving a node or
// touching a server or the storage. The Transport sleeps it before each put (links themselves
// have zero latency).
double message_latency(const ClusterPlatform& platform, const simgrid::s4u::Host* a,
                       const simgrid::s4u::Host* b);

// The links a message from a to b crosses, in order, as the topology above defines them (what
// route_to must return). Same host: empty.
std::vector<const simgrid::s4u::Link*> expected_route(const ClusterPlatform& platform,
                                                      const simgrid::s4u::Host* a,
                                                      const simgrid::s4u::Host* b);

// How many links of each class that route crosses, without building it (per-message accounting).
std::array<int, kLinkClasses> route_class_counts(const ClusterPlatform& platform,
                                                 const simgrid::s4u::Host* a,
                                                 const simgrid::s4u::Host* b);

// Checks, with Host::route_to, that sample routes traverse exactly the links the topology above
// says (intra-node, same leaf, across leaves, cpu->gpu, server and storage paths). Returns an
// empty string when all hold, else a description of the first wrong route.
std::string self_test_routes(const ClusterPlatform& platform);

}  // namespace ddpsim
