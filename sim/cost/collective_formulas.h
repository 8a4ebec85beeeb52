// Closed forms of gradient synchronisation on uncontended links (p ranks, S bytes, B bytes/s,
// alpha seconds per message), the numbers the SimGrid collectives and parameter servers must
// reproduce in their tests, plus the pure structures they are built from (NCCL's double binary
// tree, BytePS's optimal server shares). Plain functions, no SimGrid.
//
// Why the flow-level simulation hits these exactly: when every link carries only flows of one
// size, max-min sharing gives every flow at least min over its links of capacity / flows, so the
// last flow ends at max over links of (bytes on the link / capacity): the closed forms below.
#pragma once

#include <vector>

namespace ddpsim {

// ---------------------------------------------------------------- all-reduce

// Ring: 2(p-1)/p * S/B + 2(p-1)*alpha.
double ring_allreduce_time(int p, double bytes, double bandwidth, double alpha);

// NCCL's binary tree over n ranks (ncclGetBtree): rank 0 is the root with a single child, ranks
// with lowest set bit b have parent and children at distance b and b/2. The double tree
// (ncclGetDtree) adds its mirror (n even: rank n-1-r) or its shift by one (n odd), so a rank
// that is inner in one tree is a leaf of the other.
struct TreeLinks {
  int parent = -1;            // -1 for the root
  std::vector<int> children;  // 0, 1 or 2 ranks
};
std::vector<TreeLinks> nccl_binary_tree(int n);
// trees[0] = nccl_binary_tree(n), trees[1] = its mirror or shift.
std::vector<std::vector<TreeLinks>> nccl_double_binary_tree(int n);
int tree_depth(const std::vector<TreeLinks>& tree);  // edges from the root to the deepest rank

// Double binary tree over n single-GPU nodes (each tree carries S/2; reduce up and broadcast down
// run pipelined, so every tree edge carries S/2 in each of its two directions at once):
//   max over ranks of (tree neighbours in both trees) * S/2 / B  +  2 * depth * alpha
// = S/B for n = 2, 3/2 S/B for n = 3, 2 S/B for n >= 4, with depth = ceil(log2 n).
double double_binary_tree_time(int n, double bytes, double bandwidth, double alpha);

// A chain of g GPUs in one node (the intra-node part of NCCL's tree): reduce towards GPU 0 and
// broadcast back, pipelined: a middle GPU sends S each way, so 2 S/B (S/B for g = 2)
// + 2 (g-1) alpha.
double chain_allreduce_time(int g, double bytes, double bandwidth, double alpha);

// NVLS (NVLink SHARP) in one node of g GPUs: the NVSwitch reduces and multicasts, so every GPU's
// port carries its buffer and its reduced shard up and its shard and the whole result down,
// S (1+1/g) each way, at once (NCCL pipelines both halves): S (1+1/g) / B + 2 alpha.
double nvls_allreduce_time(int g, double bytes, double bandwidth, double alpha);

// Recursive halving-doubling (Rabenseifner) for any p >= 1. Power of two:
//   2(p-1)/p * S/B + 2 log2(p) alpha.
// Otherwise, with q the largest power of two below p and r = p - q: the first 2r ranks pair up
// (even rank sends its S bytes to the odd one, which reduces), q ranks run the power-of-two
// algorithm, and the odd ranks send the result back:  2 (S/B + alpha) + the power-of-two time
// for q (MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather).
double halving_doubling_time(int p, double bytes, double bandwidth, double alpha);
// Bytes all ranks send together in one call (the same is received): 2(q-1) S + 2 r S.
double halving_doubling_volume(int p, double bytes);

// Hierarchical on `nodes` x `g` GPUs with `nics` NICs per node: ring reduce-scatter in each node,
// one inter-node ring per local GPU over its NIC (rail) on its S/g shard, ring all-gather in
// each node. Phases are sequential:
//   2 (g-1)/g * S/B_intra + 2 (g-1) alpha_intra
//   + 2 (nodes-1)/nodes * (S/g) * max(1/B_pcie, (g/nics)/B_nic) + 2 (nodes-1) alpha_nic.
struct HierarchicalLinks {
  int nodes = 1, gpus_per_node = 1, nics = 1;
  double intra_bandwidth = 0, intra_alpha = 0;
  double nic_bandwidth = 0, pcie_bandwidth = 0, nic_alpha = 0;
};
double hierarchical_allreduce_time(const HierarchicalLinks& links, double bytes);
// Bytes one rank sends in one call: 2 (g-1)/g S + 2 (nodes-1)/nodes * S/g.
double hierarchical_volume_per_rank(int nodes, int g, double bytes);

// ---------------------------------------------------------------- reduce-scatter, all-gather

// S is always the full buffer: reduce-scatter turns S per rank into S/p, all-gather S/p into S.
// Each is one half of the matching all-reduce, so each form is half of the one above, and
// all-gather's equals reduce-scatter's (docs/sharded-collectives.md).

// Ring: (p-1)/p * S/B + (p-1)*alpha.
double ring_reduce_scatter_time(int p, double bytes, double bandwidth, double alpha);
double ring_all_gather_time(int p, double bytes, double bandwidth, double alpha);

// Recursive halving (reduce-scatter) or doubling (all-gather). Power of two:
//   (p-1)/p * S/B + log2(p) alpha.
// Otherwise (q, r as for the all-reduce): the fold before and after the q-rank phase sends S one
// way and S/p the other:  (S + S/p)/B + 2 alpha + the power-of-two time for q.
double halving_doubling_reduce_scatter_time(int p, double bytes, double bandwidth, double alpha);
// Bytes all ranks send together in one call: (q-1) S + r (S + S/p).
double halving_doubling_reduce_scatter_volume(int p, double bytes);

// Hierarchical reduce-scatter (intra-node ring reduce-scatter of S, then a rail ring
// reduce-scatter of S/g) or all-gather (the mirror):
//   (g-1)/g * S/B_intra + (g-1) alpha_intra + (nodes-1)/nodes * (S/g) / B_rail + (nodes-1)
//   alpha_nic
double hierarchical_reduce_scatter_time(const HierarchicalLinks& links, double bytes);
// Bytes one rank sends in one call: (g-1)/g S + (nodes-1)/nodes * S/g.
double hierarchical_reduce_scatter_volume_per_rank(int nodes, int g, double bytes);
// What a rail ring gets per GPU: min(B_pcie, B_nic * nics / g) (GPUs sharing a NIC share it).
// Node and rail group collectives (CollectiveGroup) are the ring forms with g GPUs at B_intra or
// nodes GPUs at this bandwidth.
double rail_bandwidth(const HierarchicalLinks& links);

// ---------------------------------------------------------------- transports (transports.md)

// Ring all-reduce inside one node of g GPUs on PCIe (one ring, GPU l -> l+1), the GPUs split
// evenly over `sockets` (1 or 2) sockets whose memory each moves B_host for DMA. Without p2p
// every edge is staged: written into and read back from the sender socket's memory, so each
// edge loads its socket's memory twice; with p2p only the edges between sockets are staged. An
// edge between sockets also crosses the socket link. Each rank sends V = 2(g-1)/g S:
//   V * max(1/B_pcie, 2 e / B_host, x / B_socket) + 2(g-1) alpha
// e = staged edges leaving one socket (g/sockets without p2p; 1 with p2p on two sockets; 0
// with p2p on one), x = 1 on two sockets (one edge each way), else 0.
struct PcieNodeLinks {
  int gpus = 2, sockets = 1;
  bool p2p = false;
  double pcie_bandwidth = 0, host_bandwidth = 0, socket_bandwidth = 0, alpha = 0;
};
double pcie_ring_allreduce_time(const PcieNodeLinks& links, double bytes);

// Ring all-reduce over n single-GPU nodes whose NIC is reached through host memory (no
// GPUDirect RDMA, e.g. TCP): a GPU's outgoing data is written to and read from host memory and
// so is its incoming data, 4 V per node's memory:
//   V * max(1/B_pcie, 4/B_host, 1/B_nic) + 2(n-1) (alpha + c)
// with V = 2(n-1)/n S, B_nic the transport's effective bandwidth (transport_rates.h) and c its
// per-message cost.
double staged_nic_ring_allreduce_time(int n, double bytes, double pcie_bandwidth,
                                      double host_bandwidth, double nic_bandwidth, double alpha);

// ---------------------------------------------------------------- parameter servers

// Non-colocated PS, n workers each with a NIC of B_worker, k servers of B_server, shards of S/k:
// one push (and again one pull) takes max(S/B_worker, n*S/(k*B_server)).
double ps_push_time(int n, int k, double bytes, double worker_bandwidth, double server_bandwidth);

// Colocated PS, n single-NIC nodes, k <= n servers on k of them (traffic to the local server
// stays on PCIe): the busiest link is a server's downlink, (n-1) * S/k, so (n-1) S / (k B)
// per push and again per pull, provided a GPU's PCIe link, which carries all k of its shards,
// does not bind first: B_pcie >= k B / (n-1).
double colocated_ps_push_time(int n, int k, double bytes, double bandwidth);

// BytePS (Jiang et al., OSDI'20, section 3.2): n GPU machines with colocated servers and k CPU
// machines, NICs of B, full-duplex push and pull: 2n(n-1)S / ((n^2 + kn - 2k) B), reached when a
// colocated server holds y = (n-k)/(n^2+kn-2k) of the parameters and a CPU server
// x = 2(n-1)/(n^2+kn-2k) (n*y + k*x = 1). k >= n: the CPU servers alone, y = 0, x = 1/k.
double byteps_optimum_time(int n, int k, double bytes, double bandwidth);
struct BytepsShares {
  double colocated = 0;  // per GPU machine
  double cpu = 0;        // per CPU machine
};
BytepsShares byteps_shares(int n, int k);

}  // namespace ddpsim
