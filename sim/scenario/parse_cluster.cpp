// The `cluster:` section: nodes, GPUs, and the links between them.
#include "sim/scenario/gpu_presets.h"
#include "sim/scenario/scenario_sections.h"

namespace ddpsim {
namespace {

const GpuPreset& require_preset(const YamlValue& value) {
  std::string key = as_string(value);
  const GpuPreset* preset = find_gpu_preset(key);
  if (preset == nullptr) {
    fail(value, "unknown GPU preset '" + key + "'; presets: " + gpu_preset_names() +
                    " (or give the fields: {fp32: 19.5TFLOPS, memory: 40GiB, hbm_bandwidth: "
                    "1555GB/s, ...})");
  }
  return *preset;
}

GpuSpec parse_gpu(const YamlValue& value, YamlContext* context) {
  if (value.node.IsScalar()) return require_preset(value).spec;
  if (!value.node.IsMap()) {
    fail(value, "expected a GPU preset name (" + gpu_preset_names() +
                    ") or a mapping of preset, fp32, tf32, fp16, bf16, memory, hbm_bandwidth");
  }
  YamlSection gpu(value,
                  {"preset", "name", "fp32", "tf32", "fp16", "bf16", "memory", "hbm_bandwidth"},
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
  if (auto v = gpu.get("name")) {
    spec.name = as_string(*v);
  } else if (modified && gpu.has("preset")) {
    spec.name += " (modified)";
  }
  return spec;
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
  YamlSection intra(*value, {"kind", "bandwidth", "latency"}, context);
  if (auto v = intra.get("kind")) c->intra_node.kind = as_enum<IntraNodeKind>(*v);
  if (auto v = intra.get("bandwidth")) {
    c->intra_node.bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
  } else if (c->intra_node.kind == IntraNodeKind::kPcie) {
    c->intra_node.bandwidth = c->pcie_bandwidth;  // GPU-to-GPU traffic crosses PCIe
  } else {
    intra.require("bandwidth", "per GPU and direction, e.g. 300GB/s for A100 NVSwitch");
  }
  if (auto v = intra.get("latency")) {
    c->intra_node.latency = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  }
}

void parse_nic(const YamlValue& value, YamlContext* context, ClusterSpec* c) {
  YamlSection nic(value, {"count", "bandwidth", "latency"}, context);
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
  YamlSection cluster(
      value, {"nodes", "gpus_per_node", "gpu", "intra_node", "pcie", "cpu_cores", "nic", "fabric"},
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
  c.pcie_bandwidth = as_quantity(
      cluster.require("pcie", "PCIe bandwidth per GPU and direction, e.g. 32GB/s for Gen4 x16"),
      units::Kind::kBandwidth, Sign::kPositive);
  parse_intra_node(cluster, context, &c);
  if (auto v = cluster.get("cpu_cores")) c.cpu_cores_per_node = static_cast<int>(as_int(*v, 1));
  if (auto v = cluster.get("nic")) parse_nic(*v, context, &c);
  if (auto v = cluster.get("fabric")) parse_fabric(*v, context, &c);
}

}  // namespace ddpsim
