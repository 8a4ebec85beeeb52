// Closed forms of the pipelined parameter servers of sim/engine/ps_sync.h on uncontended links:
// n single-GPU workers, one unit of S bytes cut into P equal partitions of s = S / P, spread evenly
// (P / k per server, k | P), no compute, sums and updates free. Every worker keeps one push per
// server in flight and every server one pull per worker: a connection sends its messages back to
// back and the receiver has each one the latency alpha after its last byte. A server answers a
// partition's pulls as soon as all n pushes of it are in. Plain functions, no SimGrid.
#pragma once

namespace ddpsim {

// Dedicated servers (NIC B_s) and workers (NIC B_w): pushes use the workers' uplinks and the
// servers' downlinks, pulls the opposite directions, so the two streams overlap completely. With
// n workers on each server link and k servers on each worker link, every flow runs at
// min(B_w / k, B_s / n): one partition takes T = s max(k / B_w, n / B_s) on every connection,
// partition j lands everywhere at j T + alpha and its pulls, which follow back to back, end at
// (j + 1) T + alpha, seen alpha later:
//   step = (P/k + 1) T + 2 alpha = max(S/B_w, n S/(k B_s)) (1 + k/P) + 2 alpha,
// the push bound of ps_push_time() plus one partition's pipeline fill.
double pipelined_ps_time(int n, int k, double bytes, int partitions, double worker_bandwidth,
                         double server_bandwidth, double alpha);

// A server colocated on each of the n nodes (one NIC of B per node, zero latency, the node's GPU
// reaching its own server over PCIe): a node's uplink carries its n-1 remote pushes and, from the
// first summed partition on, its server's n-1 remote pulls. The first push round and the last
// pull round run alone (s (n-1) / B each), the P/n - 1 rounds in between share the link with the
// other stream (2 s (n-1) / B), so
//   step = 2 (n-1) S / (n B),
// the ring all-reduce's bandwidth term (BytePS with no CPU machine), provided PCIe >= B.
double pipelined_colocated_ps_time(int n, double bytes, double bandwidth);

// One partition on one dedicated server (P = k = 1) whose CPU sums: the n pushes land together at
// T + alpha, T = S max(1/B_w, n/B_s); the engine thread that owns the key adds n-1 of them (3
// bytes of memory traffic per byte: two reads, one write) and copies the result to the store (2
// bytes per byte) at memory_bandwidth / threads; then the pulls take T + alpha again:
//   step = 2 (T + alpha) + (3 (n-1) + 2) S threads / memory_bandwidth.
double ps_sum_bound_time(int n, double bytes, double worker_bandwidth, double server_bandwidth,
                         double alpha, int threads, double memory_bandwidth);

}  // namespace ddpsim
