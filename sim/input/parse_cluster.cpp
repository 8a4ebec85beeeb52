// The `cluster:` section: nodes, GPUs, and the links between them.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "sim/cost/transport_rates.h"
#include "sim/input/bits_for_bytes.h"
#include "sim/input/scenario_sections.h"
#include "sim/measurements/platform_file.h"
#include "sim/scenario/gpu_aliases.h"
#include "sim/scenario/gpu_presets.h"

namespace ddpsim {
namespace {

const GpuPreset& require_preset(const YamlValue& value) {
  std::string key = as_string(value);
  const GpuPreset* preset = find_gpu_preset_or_alias(key);
  if (preset == nullptr) {
    const std::vector<std::string> candidates = gpu_preset_candidates(key);
    if (!candidates.empty()) {
      std::string list;
      for (const std::string& c : candidates) list += (list.empty() ? "" : ", ") + c;
      fail(value, "'" + key + "' " +
                      (candidates.size() > 1
                           ? "names more than one GPU preset: " + list + "; write one of them"
                           : "is not a preset name: did you mean " + list + "?"));
    }
    fail(value, "unknown GPU preset '" + key + "'; presets: " + gpu_preset_names() +
                    ", or a name as nvidia-smi prints it for one of them (docs/cli.md lists "
                    "them; or give the fields: {fp32: 19.5TFLOPS, memory: 40GiB, hbm_bandwidth: "
                    "1555GB/s, ...})");
  }
  return *preset;
}

GpuSpec parse_gpu(const YamlValue& value, YamlContext* context) {
  if (value.node.IsScalar()) return require_preset(value).spec;
  if (!value.node.IsMap()) {
    fail(value, "expected a GPU preset name (" + gpu_preset_names() +
                    ") or a mapping of preset, fp32, tf32, fp16, bf16, fp8, memory, hbm_bandwidth, "
                    "compute_capability");
  }
  YamlSection gpu(value,
                  {"preset", "name", "fp32", "tf32", "fp16", "bf16", "fp8", "memory",
                   "hbm_bandwidth", "compute_capability"},
                  context);
  GpuSpec spec;
  spec.name = "custom";
  bool modified = false;
  if (auto preset = gpu.get("preset")) {
    spec = require_preset(*preset).spec;
  } else {
    for (const char* key : {"fp32", "memory", "hbm_bandwidth"}) {
      gpu.require(key, "a GPU without a preset needs fp32, memory and hbm_bandwidth");
    }
  }
  auto read_flops = [&](const char* key, double* out, Sign sign) {
    if (auto v = gpu.get(key)) {
      *out = as_quantity(*v, units::Kind::kFlopRate, sign);
      modified = true;
    }
  };
  read_flops("fp32", &spec.fp32_flops, Sign::kPositive);
  read_flops("tf32", &spec.tf32_flops, Sign::kNonNegative);
  read_flops("bf16", &spec.bf16_flops, Sign::kNonNegative);
  read_flops("fp8", &spec.fp8_flops, Sign::kNonNegative);
  if (auto v = gpu.get("fp16")) {
    spec.fp16_flops = as_quantity(*v, units::Kind::kFlopRate, Sign::kPositive);
    modified = true;
  } else if (!gpu.has("preset")) {
    spec.fp16_flops = spec.fp32_flops;  // no tensor cores: half precision runs at the fp32 rate
  }
  if (auto v = gpu.get("memory")) {
    spec.memory_bytes = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
    modified = true;
  }
  if (auto v = gpu.get("hbm_bandwidth")) {
    spec.hbm_bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
    modified = true;
  }
  if (auto v = gpu.get("compute_capability")) {
    // Written as CUDA prints it (8.0, 8.6, 9.0); stored as NCCL does (80, 86, 90).
    spec.compute_capability = static_cast<int>(std::lround(as_real(*v, 1.0, false, 20.0) * 10));
    modified = true;
  }
  if (auto v = gpu.get("name")) {
    spec.name = as_string(*v);
  } else if (modified && gpu.has("preset")) {
    spec.name += " (modified)";
  }
  return spec;
}

void note_bits_for_bytes(const YamlValue& value, double bytes_per_second,
                         const std::string& technology, ClusterSpec* c) {
  if (!value.node.IsScalar()) return;
  if (auto w =
          bits_for_bytes_warning(value.path, value.node.Scalar(), bytes_per_second, technology))
    c->input_warnings.push_back(*w);
}

void parse_intra_node(const YamlSection& cluster, YamlContext* context, ClusterSpec* c) {
  auto value = cluster.get("intra_node");
  if (!value) {
    if (c->gpus_per_node > 1) {
      cluster.require("intra_node",
                      "GPUs in a node talk over it: {kind: nvswitch|nvlink-mesh|pcie, bandwidth: "
                      "300GB/s, latency: 1us}");
    }
    // A lone GPU has no peers; its PCIe link is the only path it has.
    c->intra_node.kind = IntraNodeKind::kPcie;
    c->intra_node.bandwidth = c->pcie_bandwidth;
    return;
  }
  YamlSection intra(*value, {"kind", "bandwidth", "latency", "p2p"}, context);
  if (auto v = intra.get("kind")) c->intra_node.kind = as_enum<IntraNodeKind>(*v);
  if (auto v = intra.get("p2p")) {
    if (c->intra_node.kind != IntraNodeKind::kPcie)
      fail(*v, "p2p applies to kind: pcie (NVLink GPUs reach each other directly)");
    c->intra_node.p2p = as_bool(*v);
  }
  if (auto v = intra.get("bandwidth")) {
    c->intra_node.bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
    note_bits_for_bytes(*v, c->intra_node.bandwidth, enum_name(c->intra_node.kind), c);
  } else if (c->intra_node.kind == IntraNodeKind::kPcie) {
    c->intra_node.bandwidth = c->pcie_bandwidth;  // GPU-to-GPU traffic crosses PCIe
  } else {
    intra.require("bandwidth", "per GPU and direction, e.g. 300GB/s for A100 NVSwitch");
  }
  if (auto v = intra.get("latency")) {
    c->intra_node.latency = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  }
}

// TCP defaults (docs/transports.md): what one NCCL socket stream moves (sjeaugey,
// NVIDIA/nccl-tests#83: one socket at 25 Gb/s). No extra CPU cost per message by default: NCCL's
// own tuner charges a socket hop what it charges an InfiniBand hop (tuning.cc has one network
// row); set nic.message_cost from a measurement of the cluster.
constexpr double kTcpStreamBandwidth = 25e9 / 8;

void parse_transport(const YamlSection& nic, NicSpec* n) {
  if (auto v = nic.get("transport")) n->transport = as_enum<NicTransport>(*v);
  const bool tcp = n->transport == NicTransport::kTcp;
  n->gpudirect = !tcp;
  if (auto v = nic.get("gpudirect")) {
    n->gpudirect = as_bool(*v);
    if (tcp && n->gpudirect)
      fail(*v, "GPUDirect RDMA needs transport: rdma; TCP always stages through host memory");
  }
  n->stream_bandwidth = kTcpStreamBandwidth;
  n->message_cost = 0;
  if (auto v = nic.get("streams")) n->streams = static_cast<int>(as_int(*v, 1, 64));
  if (auto v = nic.get("stream_bandwidth"))
    n->stream_bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
  if (auto v = nic.get("message_cost"))
    n->message_cost = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  if (auto v = nic.get("efficiency")) {
    n->efficiency = as_real(*v, 0.0, /*min_exclusive=*/true, 1.0);
  } else if (tcp) {
    n->efficiency = tcp_efficiency(n->bandwidth, n->streams, n->stream_bandwidth);
  }
}

void parse_nic(const YamlValue& value, YamlContext* context, ClusterSpec* c) {
  YamlSection nic(value,
                  {"count", "bandwidth", "latency", "transport", "gpudirect", "efficiency",
                   "streams", "stream_bandwidth", "message_cost"},
                  context);
  if (auto v = nic.get("count")) {
    c->nic.count = static_cast<int>(as_int(*v, 1));
    if (c->nic.count > c->gpus_per_node) {
      fail(*v, "at most one NIC per GPU: count must be <= cluster.gpus_per_node (" +
                   std::to_string(c->gpus_per_node) + "), got " + std::to_string(c->nic.count));
    }
  }
  c->nic.bandwidth = as_quantity(nic.require("bandwidth", "per NIC and direction, e.g. 200Gbps"),
                                 units::Kind::kBandwidth, Sign::kPositive);
  if (auto v = nic.get("latency")) {
    c->nic.latency = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  }
  parse_transport(nic, &c->nic);
}

void parse_pcie_switch(const YamlValue& value, YamlContext* context, ClusterSpec* c) {
  YamlSection sw(value, {"gpus", "uplink"}, context);
  YamlValue gpus = sw.require("gpus", "GPUs behind one switch, e.g. 4");
  c->pcie_switch.gpus = static_cast<int>(as_int(gpus, 1));
  const int per_socket = c->gpus_per_node / c->host.sockets;
  if (per_socket % c->pcie_switch.gpus != 0) {
    fail(gpus, "a switch sits under one socket: gpus (" + std::to_string(c->pcie_switch.gpus) +
                   ") must divide the GPUs per socket (" + std::to_string(per_socket) + ")");
  }
  c->pcie_switch.uplink =
      as_quantity(sw.require("uplink", "the switch's link to the CPU, e.g. 24GB/s for Gen4 x16"),
                  units::Kind::kBandwidth, Sign::kPositive);
}

void parse_host(const YamlValue& value, YamlContext* context, ClusterSpec* c) {
  YamlSection host(value, {"sockets", "bandwidth", "socket_link", "cpu"}, context);
  if (auto v = host.get("sockets")) {
    c->host.sockets = static_cast<int>(as_int(*v, 1, 2));
    if (c->gpus_per_node % c->host.sockets != 0)
      fail(*v,
           "the GPUs are split evenly over the sockets: sockets must divide "
           "cluster.gpus_per_node (" +
               std::to_string(c->gpus_per_node) + ")");
  }
  if (auto v = host.get("cpu")) c->host.cpu = as_enum<CpuVendor>(*v);
  // NCCL's figures for the link between sockets (src/graph/topo.h): Skylake-class UPI 10 GB/s,
  // AMD Infinity Fabric 16 GB/s.
  c->host.socket_link = c->host.cpu == CpuVendor::kAmd ? 16e9 : 10e9;
  if (auto v = host.get("bandwidth"))
    c->host.bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
  if (auto v = host.get("socket_link"))
    c->host.socket_link = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
}

void parse_fabric(const YamlValue& value, YamlContext* context, ClusterSpec* c) {
  YamlSection fabric(value, {"kind", "nodes_per_leaf", "oversubscription"}, context);
  if (auto v = fabric.get("kind")) c->fabric.kind = as_enum<FabricKind>(*v);
  if (auto v = fabric.get("nodes_per_leaf")) c->fabric.nodes_per_leaf = as_int(*v, 1);
  if (auto v = fabric.get("oversubscription")) c->fabric.oversubscription = as_real(*v, 1.0);
}

}  // namespace

void parse_cluster(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  ClusterSpec& c = scenario->cluster;
  YamlSection cluster(value,
                      {"nodes", "gpus_per_node", "gpu", "intra_node", "pcie", "pcie_switch", "host",
                       "cpu_cores", "nic", "fabric", "calibration"},
                      context);
  if (auto v = cluster.get("nodes")) c.nodes = static_cast<int>(as_int(*v, 1));
  std::optional<YamlValue> gpus_per_node = cluster.get("gpus_per_node");
  if (gpus_per_node) c.gpus_per_node = static_cast<int>(as_int(*gpus_per_node, 1));
  // Far beyond what can be simulated; the bound keeps GPU ranks inside an int.
  constexpr int64_t kMaxGpus = int64_t{1} << 20;
  if (int64_t{c.nodes} * c.gpus_per_node > kMaxGpus) {
    fail_at(cluster.where(), "cluster: nodes x gpus_per_node = " +
                                 std::to_string(int64_t{c.nodes} * c.gpus_per_node) +
                                 " GPUs; at most " + std::to_string(kMaxGpus) + " are supported");
  }
  c.gpu = parse_gpu(cluster.require("gpu", "a preset name such as a100-sxm-40gb, or its fields"),
                    context);
  const YamlValue pcie =
      cluster.require("pcie", "PCIe bandwidth per GPU and direction, e.g. 32GB/s for Gen4 x16");
  c.pcie_bandwidth = as_quantity(pcie, units::Kind::kBandwidth, Sign::kPositive);
  note_bits_for_bytes(pcie, c.pcie_bandwidth, "pcie", &c);
  c.intra_node.p2p = c.gpu.pcie_p2p;
  parse_intra_node(cluster, context, &c);
  if (auto v = cluster.get("host")) parse_host(*v, context, &c);
  if (auto v = cluster.get("pcie_switch")) parse_pcie_switch(*v, context, &c);
  if (auto v = cluster.get("cpu_cores")) c.cpu_cores_per_node = static_cast<int>(as_int(*v, 1));
  if (auto v = cluster.get("nic")) parse_nic(*v, context, &c);
  if (auto v = cluster.get("fabric")) parse_fabric(*v, context, &c);
  // Fitted link parameters replace the specs above (profile/platform_file.h). The file is read
  // here, once: the ledger uses the typed value for the device each parameter was fitted on.
  if (auto v = cluster.get("calibration")) {
    c.calibration = as_existing_path(*v, *context);
    auto fitted =
        std::make_shared<const PlatformCalibration>(load_platform_calibration(c.calibration));
    c.calibration_notes = apply_platform_calibration(*fitted, &c, &c.calibration_warnings);
    c.fitted_platform = std::move(fitted);
    if (c.intra_node.kind == IntraNodeKind::kPcie) c.intra_node.bandwidth = c.pcie_bandwidth;
  }
}

}  // namespace ddpsim
