#include "sim/scenario/enum_names.h"

#include "sim/scenario/collective_algorithms.h"

namespace ddpsim {

template <>
const std::vector<NamedValue<IntraNodeKind>>& enum_table<IntraNodeKind>() {
  static const std::vector<NamedValue<IntraNodeKind>> t = {
      {IntraNodeKind::kNvSwitch, "nvswitch"},
      {IntraNodeKind::kNvLinkMesh, "nvlink-mesh"},
      {IntraNodeKind::kPcie, "pcie"}};
  return t;
}

template <>
const std::vector<NamedValue<CpuVendor>>& enum_table<CpuVendor>() {
  static const std::vector<NamedValue<CpuVendor>> t = {{CpuVendor::kIntel, "intel"},
                                                       {CpuVendor::kAmd, "amd"}};
  return t;
}

template <>
const std::vector<NamedValue<NicTransport>>& enum_table<NicTransport>() {
  static const std::vector<NamedValue<NicTransport>> t = {{NicTransport::kRdma, "rdma"},
                                                          {NicTransport::kTcp, "tcp"}};
  return t;
}

template <>
const std::vector<NamedValue<LatencyModel>>& enum_table<LatencyModel>() {
  static const std::vector<NamedValue<LatencyModel>> t = {{LatencyModel::kNccl, "nccl"},
                                                          {LatencyModel::kAlpha, "alpha"}};
  return t;
}

template <>
const std::vector<NamedValue<NcclProtocol>>& enum_table<NcclProtocol>() {
  static const std::vector<NamedValue<NcclProtocol>> t = {{NcclProtocol::kAuto, "auto"},
                                                          {NcclProtocol::kLL, "ll"},
                                                          {NcclProtocol::kLL128, "ll128"},
                                                          {NcclProtocol::kSimple, "simple"}};
  return t;
}

template <>
const std::vector<NamedValue<FabricKind>>& enum_table<FabricKind>() {
  static const std::vector<NamedValue<FabricKind>> t = {{FabricKind::kLeafSpine, "leaf-spine"}};
  return t;
}

template <>
const std::vector<NamedValue<Precision>>& enum_table<Precision>() {
  static const std::vector<NamedValue<Precision>> t = {{Precision::kFp32, "fp32"},
                                                       {Precision::kTf32, "tf32"},
                                                       {Precision::kFp16, "fp16"},
                                                       {Precision::kBf16, "bf16"},
                                                       {Precision::kFp8, "fp8"}};
  return t;
}

template <>
const std::vector<NamedValue<Optimizer>>& enum_table<Optimizer>() {
  static const std::vector<NamedValue<Optimizer>> t = {
      {Optimizer::kSgd, "sgd"}, {Optimizer::kMomentum, "momentum"}, {Optimizer::kAdam, "adam"}};
  return t;
}

// PyTorch's dtype names (torch.bfloat16, torch.float16 == torch.half, torch.float32 ==
// torch.float) and the short forms in mixed-precision configs.
template <>
const std::vector<NamedValue<Precision>>& enum_aliases<Precision>() {
  static const std::vector<NamedValue<Precision>> t = {{Precision::kFp32, "float32"},
                                                       {Precision::kFp32, "float"},
                                                       {Precision::kFp16, "float16"},
                                                       {Precision::kFp16, "half"},
                                                       {Precision::kBf16, "bfloat16"}};
  return t;
}

// torch.optim.AdamW keeps Adam's two moments and does Adam's update plus a decoupled weight
// decay (an element-wise multiply-add): the same memory and, within a few FLOPs per parameter,
// the same update (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", Algorithm 2).
template <>
const std::vector<NamedValue<Optimizer>>& enum_aliases<Optimizer>() {
  static const std::vector<NamedValue<Optimizer>> t = {{Optimizer::kAdam, "adamw"}};
  return t;
}

// PyTorch FSDP's ShardingStrategy names (torch/distributed/fsdp/api.py): FULL_SHARD shards
// parameters, gradients and optimizer state (ZeRO-3), HYBRID_SHARD does so inside a node and
// replicates across nodes, NO_SHARD is DDP. One table for the scenario and `compare --strategies`.
template <>
const std::vector<NamedValue<Sharding>>& enum_aliases<Sharding>() {
  static const std::vector<NamedValue<Sharding>> t = {{Sharding::kZero3, "full_shard"},
                                                      {Sharding::kHybrid, "hybrid_shard"},
                                                      {Sharding::kNone, "no_shard"}};
  return t;
}

template <>
const std::vector<NamedValue<SyncStrategy>>& enum_table<SyncStrategy>() {
  static const std::vector<NamedValue<SyncStrategy>> t = {{SyncStrategy::kAllReduce, "allreduce"},
                                                          {SyncStrategy::kParameterServer, "ps"},
                                                          {SyncStrategy::kLocalSgd, "local-sgd"}};
  return t;
}

template <>
const std::vector<NamedValue<AllReduceAlgorithm>>& enum_table<AllReduceAlgorithm>() {
  static const std::vector<NamedValue<AllReduceAlgorithm>> t = [] {
    std::vector<NamedValue<AllReduceAlgorithm>> names;
    for (const CollectiveAlgorithm& row : collective_algorithms())
      names.push_back({row.id, row.name});
    return names;
  }();
  return t;
}

template <>
const std::vector<NamedValue<CollectiveMode>>& enum_table<CollectiveMode>() {
  static const std::vector<NamedValue<CollectiveMode>> t = {{CollectiveMode::kFlow, "flow"},
                                                            {CollectiveMode::kChunked, "chunked"}};
  return t;
}

template <>
const std::vector<NamedValue<SimulationScope>>& enum_table<SimulationScope>() {
  static const std::vector<NamedValue<SimulationScope>> t = {
      {SimulationScope::kAuto, "auto"},
      {SimulationScope::kFull, "full"},
      {SimulationScope::kSymmetric, "symmetric"}};
  return t;
}

template <>
const std::vector<NamedValue<PsPlacement>>& enum_table<PsPlacement>() {
  static const std::vector<NamedValue<PsPlacement>> t = {{PsPlacement::kDedicated, "dedicated"},
                                                         {PsPlacement::kColocated, "colocated"},
                                                         {PsPlacement::kByteps, "byteps"}};
  return t;
}

template <>
const std::vector<NamedValue<PsMode>>& enum_table<PsMode>() {
  static const std::vector<NamedValue<PsMode>> t = {{PsMode::kSync, "sync"},
                                                    {PsMode::kAsync, "async"}};
  return t;
}

template <>
const std::vector<NamedValue<KeyPlacement>>& enum_table<KeyPlacement>() {
  static const std::vector<NamedValue<KeyPlacement>> t = {
      {KeyPlacement::kHash, "hash"},
      {KeyPlacement::kLeastLoaded, "least-loaded"},
      {KeyPlacement::kRoundRobin, "round-robin"}};
  return t;
}

template <>
const std::vector<NamedValue<PsUpdate>>& enum_table<PsUpdate>() {
  static const std::vector<NamedValue<PsUpdate>> t = {{PsUpdate::kServer, "server"},
                                                      {PsUpdate::kWorker, "worker"}};
  return t;
}

template <>
const std::vector<NamedValue<PsPull>>& enum_table<PsPull>() {
  static const std::vector<NamedValue<PsPull>> t = {{PsPull::kEager, "eager"},
                                                    {PsPull::kForward, "forward"}};
  return t;
}

template <>
const std::vector<NamedValue<CommSchedule>>& enum_table<CommSchedule>() {
  static const std::vector<NamedValue<CommSchedule>> t = {{CommSchedule::kFifo, "fifo"},
                                                          {CommSchedule::kPriority, "priority"}};
  return t;
}

template <>
const std::vector<NamedValue<Sharding>>& enum_table<Sharding>() {
  static const std::vector<NamedValue<Sharding>> t = {{Sharding::kNone, "none"},
                                                      {Sharding::kZero1, "zero1"},
                                                      {Sharding::kZero2, "zero2"},
                                                      {Sharding::kZero3, "zero3"},
                                                      {Sharding::kHybrid, "fsdp-hybrid"}};
  return t;
}

template <>
const std::vector<NamedValue<BackwardPrefetch>>& enum_table<BackwardPrefetch>() {
  static const std::vector<NamedValue<BackwardPrefetch>> t = {{BackwardPrefetch::kPre, "pre"},
                                                              {BackwardPrefetch::kPost, "post"},
                                                              {BackwardPrefetch::kNone, "none"}};
  return t;
}

template <>
const std::vector<NamedValue<ComputeMode>>& enum_table<ComputeMode>() {
  static const std::vector<NamedValue<ComputeMode>> t = {{ComputeMode::kRoofline, "roofline"},
                                                         {ComputeMode::kMeasured, "measured"},
                                                         {ComputeMode::kProfile, "profile"}};
  return t;
}

template <>
const std::vector<NamedValue<Attention>>& enum_table<Attention>() {
  static const std::vector<NamedValue<Attention>> t = {
      {Attention::kEager, "eager"}, {Attention::kSdpa, "sdpa"}, {Attention::kFlash, "flash"}};
  return t;
}

template <>
const std::vector<NamedValue<StorageKind>>& enum_table<StorageKind>() {
  static const std::vector<NamedValue<StorageKind>> t = {{StorageKind::kLocal, "local"},
                                                         {StorageKind::kShared, "shared"}};
  return t;
}

template <>
const std::vector<NamedValue<DecodeKind>>& enum_table<DecodeKind>() {
  static const std::vector<NamedValue<DecodeKind>> t = {{DecodeKind::kCpu, "cpu"},
                                                        {DecodeKind::kGpu, "gpu"}};
  return t;
}

template <>
const std::vector<NamedValue<StragglerKind>>& enum_table<StragglerKind>() {
  static const std::vector<NamedValue<StragglerKind>> t = {{StragglerKind::kNone, "none"},
                                                           {StragglerKind::kFixed, "fixed"},
                                                           {StragglerKind::kLognormal, "lognormal"},
                                                           {StragglerKind::kUniform, "uniform"}};
  return t;
}

}  // namespace ddpsim
