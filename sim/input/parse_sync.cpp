// The `sync:` section: how gradients are synchronised (all-reduce and its buckets, parameter
// servers, local SGD). Keys of the strategies not selected are read and checked but unused, so a
// sweep can switch `strategy` without editing the rest.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost/nccl_tuning.h"
#include "sim/scenario/collective_algorithms.h"
#include "sim/input/scenario_sections.h"

namespace ddpsim {
namespace {

void parse_ps(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  ParameterServerSpec& ps = scenario->sync.ps;
  YamlSection section(
      value,
      {"servers", "placement", "server_bandwidth", "mode", "staleness", "chunk", "key_placement",
       "update", "pull", "update_flops_per_param", "server_threads", "server_memory_bandwidth"},
      context);
  if (auto v = section.get("chunk"))
    fail(*v,
         "renamed: write sync.partition (the partition size of parameter servers and "
         "priority scheduling, default 4096000B)");
  std::optional<YamlValue> placement = section.get("placement");
  if (placement) ps.placement = as_enum<PsPlacement>(*placement);
  std::optional<YamlValue> servers = section.get("servers");
  // BytePS may run on the colocated servers alone: no CPU machine.
  if (servers)
    ps.servers = static_cast<int>(as_int(*servers, ps.placement == PsPlacement::kByteps ? 0 : 1));
  if (auto v = section.get("server_bandwidth")) {
    ps.server_nic_bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kNonNegative);
  }
  if (auto v = section.get("mode")) ps.mode = as_enum<PsMode>(*v);
  if (auto v = section.get("staleness")) ps.staleness = static_cast<int>(as_int(*v, 0));
  if (auto v = section.get("key_placement")) ps.key_placement = as_enum<KeyPlacement>(*v);
  if (auto v = section.get("update")) ps.update = as_enum<PsUpdate>(*v);
  if (auto v = section.get("pull")) ps.pull = as_enum<PsPull>(*v);
  if (auto v = section.get("update_flops_per_param")) ps.update_flops_per_param = as_real(*v, 0);
  if (auto v = section.get("server_threads")) ps.server_threads = static_cast<int>(as_int(*v, 1));
  if (auto v = section.get("server_memory_bandwidth")) {
    ps.server_memory_bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kNonNegative);
  }

  const int nodes = scenario->cluster.nodes;
  if (scenario->sync.strategy == SyncStrategy::kParameterServer &&
      ps.placement == PsPlacement::kColocated && ps.servers > nodes) {
    std::string message = "colocated servers run one per node: servers (" +
                          std::to_string(ps.servers) + ") must be <= cluster.nodes (" +
                          std::to_string(nodes) + ")";
    if (servers) fail(*servers, message);
    fail(*placement, message);
  }
}

void parse_fusion(const YamlValue& value, YamlContext* context, FusionSpec* fusion) {
  YamlSection section(value, {"threshold", "cycle_time", "coordination"}, context);
  fusion->enabled = true;
  if (auto v = section.get("threshold"))
    fusion->threshold = as_quantity(*v, units::Kind::kBytes, Sign::kNonNegative);
  if (auto v = section.get("cycle_time"))
    fusion->cycle_time = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  if (auto v = section.get("coordination")) {
    if (v->node.IsScalar() && v->node.Scalar() == "auto")
      fusion->coordination = -1;
    else
      fusion->coordination = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  }
}

// sync.fsdp.wrap: "per-layer" or a parameter count (100000000, 100M, 1.5B).
int64_t wrap_min_params(const YamlValue& value) {
  const char* allowed = "allowed: per-layer, or a parameter count such as 100000000 or 100M";
  const std::string text = scalar_text(value, std::string("a wrap policy; ") + allowed);
  if (text == "per-layer") return 0;
  double scale = 1;
  std::string digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
        scale = 1e3;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'B':
        scale = 1e9;
        break;
      default:
        break;
    }
    if (scale != 1) digits.pop_back();
  }
  char* end = nullptr;
  const double n = digits.empty() ? 0 : std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || !(n * scale >= 1) ||
      n * scale > 1e15)
    fail(value, "unknown value '" + text + "'; " + allowed);
  return static_cast<int64_t>(n * scale);
}

void parse_fsdp(const YamlValue& value, YamlContext* context, ShardingSpec* sharding) {
  YamlSection section(value, {"wrap", "backward_prefetch", "forward_prefetch", "limit_all_gathers"},
                      context);
  if (auto v = section.get("wrap")) sharding->wrap_min_params = wrap_min_params(*v);
  if (auto v = section.get("backward_prefetch"))
    sharding->backward_prefetch = as_enum<BackwardPrefetch>(*v);
  if (auto v = section.get("forward_prefetch")) sharding->forward_prefetch = as_bool(*v);
  if (auto v = section.get("limit_all_gathers")) sharding->limit_all_gathers = as_bool(*v);
}

// sync.sharding, also under PyTorch FSDP's ShardingStrategy names.
Sharding sharding(const YamlValue& value) {
  const std::string text = scalar_text(value, "one of: " + enum_choices<Sharding>());
  if (text == "full_shard" || text == "FULL_SHARD") return Sharding::kZero3;
  if (text == "hybrid_shard" || text == "HYBRID_SHARD") return Sharding::kHybrid;
  if (text == "no_shard" || text == "NO_SHARD") return Sharding::kNone;
  if (auto e = enum_from_name<Sharding>(text)) return *e;
  fail(value, "unknown value '" + text + "'; allowed: " + enum_choices<Sharding>() +
                  " (or FSDP's no_shard, full_shard, hybrid_shard)");
}

// sync.gradient_dtype when not stated: what PyTorch reduces in. DDP all-reduces .grad, which has
// the parameters' dtype: fp32, under AMP too (a compression hook is what makes it 16-bit). FSDP
// reduces in MixedPrecision's reduce_dtype, which defaults to param_dtype; ddpsim's FSDP (zero3,
// fsdp-hybrid) gathers parameters at the compute dtype under mixed precision (param_dtype bf16
// or fp16), so it reduces in 2 bytes there. ZeRO-1/2 keep fp32. Sources: docs/sharding.md.
int default_gradient_bytes(const Scenario& scenario) {
  const Sharding sharding = scenario.sync.sharding.strategy;
  const Precision p = scenario.training.precision;
  const bool mixed = p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8;
  return mixed && (sharding == Sharding::kZero3 || sharding == Sharding::kHybrid) ? 2 : 4;
}

// NVLS is a property of the node's switch; ddpsim models it for all-reduce, with Simple.
void check_nvls(const YamlValue& algorithm, const std::optional<YamlValue>& protocol,
                const Scenario& scenario) {
  const SyncSpec& s = scenario.sync;
  const std::string unsupported = nvls_unsupported_reason(scenario.cluster);
  if (!unsupported.empty()) fail(algorithm, unsupported);
  if (protocol && s.protocol != NcclProtocol::kAuto && s.protocol != NcclProtocol::kSimple)
    fail(*protocol, std::string("NCCL runs NVLS with the Simple protocol only, not ") +
                        enum_name(s.protocol) + "; allowed with sync.algorithm nvls: auto, simple");
  if (s.sharding.strategy != Sharding::kNone)
    fail(algorithm,
         std::string("nvls is modelled for all-reduce only, and ") +
             enum_name(s.sharding.strategy) +
             " also runs reduce-scatter and all-gather; allowed with sharding: ring, auto");
}

}  // namespace

int gradient_dtype_bytes(const YamlValue& value) {
  std::string dtype = scalar_text(value, "one of: fp32, fp16, bf16");
  if (dtype == "fp32") return 4;
  if (dtype == "fp16" || dtype == "bf16") return 2;
  fail(value, "unknown value '" + dtype + "'; allowed: fp32, fp16, bf16");
}

void parse_sync(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  SyncSpec& s = scenario->sync;
  YamlSection sync(value, {"strategy",       "algorithm",    "mode",
                           "bucket_cap",     "first_bucket", "overlap",
                           "gradient_dtype", "channels",     "latency_model",
                           "protocol",       "schedule",     "partition",
                           "credit",         "fusion",       "ps",
                           "local_sgd",      "alpha_beta",   "buffer_broadcast",
                           "sharding",       "fsdp",         "nccl_latency"},
                   context);
  if (auto v = sync.get("strategy")) s.strategy = as_enum<SyncStrategy>(*v);
  std::optional<YamlValue> algorithm = sync.get("algorithm");
  if (algorithm) s.algorithm = as_enum<AllReduceAlgorithm>(*algorithm);
  if (auto v = sync.get("mode")) s.mode = as_enum<CollectiveMode>(*v);
  if (auto v = sync.get("bucket_cap")) {
    s.bucket_cap = as_quantity(*v, units::Kind::kBytes, Sign::kNonNegative);
  }
  if (auto v = sync.get("first_bucket")) {
    s.first_bucket = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  }
  if (auto v = sync.get("overlap")) s.overlap = as_bool(*v);
  if (auto v = sync.get("buffer_broadcast")) {
    s.buffer_broadcast = as_quantity(*v, units::Kind::kBytes, Sign::kNonNegative);
  }
  // training.gradient_dtype (parsed before this section) is the same input under the name
  // issue 25 gave it: one of the two, never both.
  const std::vector<std::string> read = context->stated_paths();
  const bool in_training =
      std::find(read.begin(), read.end(), "training.gradient_dtype") != read.end();
  std::optional<YamlValue> dtype = sync.get("gradient_dtype");
  if (dtype && in_training)
    fail(*dtype, "sync.gradient_dtype and training.gradient_dtype (" +
                     context->where_first({"training.gradient_dtype"}, dtype->where).to_string() +
                     ") are the same input: write one of them");
  if (dtype) s.gradient_bytes = gradient_dtype_bytes(*dtype);
  if (auto v = sync.get("channels")) s.channels = static_cast<int>(as_int(*v, 0));
  if (auto v = sync.get("latency_model")) s.latency_model = as_enum<LatencyModel>(*v);
  // A multiplier on NCCL's latency table; beyond 10x no release's table or measurement reaches
  // (docs/assumptions.md), so a larger value is a mistake rather than a cluster.
  if (auto v = sync.get("nccl_latency")) s.nccl_latency = as_real(*v, 0, true, 10);
  std::optional<YamlValue> protocol = sync.get("protocol");
  if (protocol) s.protocol = as_enum<NcclProtocol>(*protocol);
  std::optional<YamlValue> schedule = sync.get("schedule");
  if (schedule) s.schedule = as_enum<CommSchedule>(*schedule);
  if (auto v = sync.get("partition")) {
    s.partition = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  }
  if (auto v = sync.get("credit"))
    s.credit = as_quantity(*v, units::Kind::kBytes, Sign::kNonNegative);
  std::optional<YamlValue> fusion = sync.get("fusion");
  if (fusion) parse_fusion(*fusion, context, &s.fusion);
  if (auto v = sync.get("ps")) parse_ps(*v, context, scenario);
  if (auto v = sync.get("local_sgd")) {
    YamlSection local(*v, {"period"}, context);
    if (auto p = local.get("period")) s.local_sgd_period = static_cast<int>(as_int(*p, 1));
  }
  std::optional<YamlValue> sharded = sync.get("sharding");
  if (sharded) s.sharding.strategy = sharding(*sharded);
  if (auto v = sync.get("fsdp")) parse_fsdp(*v, context, &s.sharding);
  if (auto v = sync.get("alpha_beta")) {
    s.alpha_beta_table = as_existing_path(*v, *context);
    s.alpha_beta_where = v->where;
  }

  if (s.algorithm == AllReduceAlgorithm::kNvls) check_nvls(*algorithm, protocol, *scenario);
  const CollectiveAlgorithm& row = collective_algorithm(s.algorithm);
  if (!row.all_reduce &&
      (s.sharding.strategy == Sharding::kNone || s.sharding.strategy == Sharding::kHybrid))
    fail(*algorithm, std::string(row.name) +
                         " prices all-gather and reduce-scatter only, which zero1, zero2 and "
                         "zero3 run over the whole cluster: state sync.sharding zero1, zero2 or "
                         "zero3, or choose an all-reduce algorithm (" +
                         all_reduce_algorithm_names() + ")");
  if (row.unsupported != nullptr) {
    const std::string why = row.unsupported(scenario->cluster);
    if (!why.empty()) fail(*algorithm, why);
  }
  if (!dtype && !in_training) s.gradient_bytes = default_gradient_bytes(*scenario);

  if (s.sharding.strategy != Sharding::kNone) {
    // Sharding replaces how gradients are synchronised; the features below decide that too.
    auto refuse = [&](const char* what) {
      fail(*sharded, std::string(enum_name(s.sharding.strategy)) +
                         " is data parallelism over all-reduce collectives and does not combine "
                         "with " +
                         what + "; allowed with sharding: sync.strategy allreduce");
    };
    if (s.strategy == SyncStrategy::kParameterServer) refuse("sync.strategy ps");
    if (s.strategy == SyncStrategy::kLocalSgd) refuse("sync.strategy local-sgd");
    if (s.fusion.enabled) refuse("sync.fusion (Horovod)");
    if (s.schedule == CommSchedule::kPriority) refuse("sync.schedule priority");
    if (!s.alpha_beta_table.empty()) refuse("sync.alpha_beta (a table of all-reduce times)");
  }

  // Horovod's cycle and ByteScheduler's priority queue both decide what an all-reduce carries.
  if (s.strategy != SyncStrategy::kParameterServer && s.fusion.enabled &&
      s.schedule == CommSchedule::kPriority) {
    fail(*schedule,
         "sync.fusion (Horovod's tensor fusion) and sync.schedule: priority (ByteScheduler) are "
         "alternatives for all-reduce: remove one");
  }
}

}  // namespace ddpsim
