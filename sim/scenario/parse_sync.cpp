// The `sync:` section: how gradients are synchronised (all-reduce and its buckets, parameter
// servers, local SGD). Keys of the strategies not selected are read and checked but unused, so a
// sweep can switch `strategy` without editing the rest.
#include "sim/scenario/scenario_sections.h"

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

int gradient_bytes(const YamlValue& value) {
  std::string dtype = scalar_text(value, "one of: fp32, fp16, bf16");
  if (dtype == "fp32") return 4;
  if (dtype == "fp16" || dtype == "bf16") return 2;
  fail(value, "unknown value '" + dtype + "'; allowed: fp32, fp16, bf16");
}

}  // namespace

void parse_sync(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  SyncSpec& s = scenario->sync;
  YamlSection sync(
      value,
      {"strategy", "algorithm", "mode", "bucket_cap", "first_bucket", "overlap", "gradient_dtype",
       "channels", "latency_model", "protocol", "schedule", "partition", "credit", "fusion", "ps",
       "local_sgd", "alpha_beta", "buffer_broadcast"},
      context);
  if (auto v = sync.get("strategy")) s.strategy = as_enum<SyncStrategy>(*v);
  if (auto v = sync.get("algorithm")) s.algorithm = as_enum<AllReduceAlgorithm>(*v);
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
  if (auto v = sync.get("gradient_dtype")) s.gradient_bytes = gradient_bytes(*v);
  if (auto v = sync.get("channels")) s.channels = static_cast<int>(as_int(*v, 0));
  if (auto v = sync.get("latency_model")) s.latency_model = as_enum<LatencyModel>(*v);
  if (auto v = sync.get("protocol")) s.protocol = as_enum<NcclProtocol>(*v);
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
  if (auto v = sync.get("alpha_beta")) {
    s.alpha_beta_table = as_existing_path(*v, *context);
    s.alpha_beta_where = v->where;
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
