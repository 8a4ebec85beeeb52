// What a NIC's transport delivers (docs/transports.md). TCP moves its payload in Ethernet frames
// whose headers it cannot avoid, and each NCCL socket stream (a helper thread and its socket)
// moves only so much: the effective rate is
//   B_tcp = B * min(header_efficiency, streams * stream_bandwidth / B)
// with header_efficiency = 1448 / 1538 at a 1500-byte MTU (1500 - 20 IP - 32 TCP with
// timestamps, over 1500 + 38 bytes of Ethernet framing, preamble and gap). RDMA delivers the
// NIC's bandwidth (efficiency 1): `nic.bandwidth` is what the fabric gives NCCL.
#pragma once

namespace ddpsim {

constexpr double kTcpHeaderEfficiency = 1448.0 / 1538.0;

double tcp_efficiency(double nic_bandwidth, int streams, double stream_bandwidth);

}  // namespace ddpsim
