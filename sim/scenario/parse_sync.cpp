// The `sync:` section: how gradients are synchronised (all-reduce and its buckets, parameter
// servers, local SGD). Keys of the strategies not selected are read and checked but unused, so a
// sweep can switch `strategy` without editing the rest.
#include "sim/scenario/scenario_sections.h"

namespace ddpsim {
namespace {

void parse_ps(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  ParameterServerSpec& ps = scenario->sync.ps;
  YamlSection section(value,
                      {"servers", "placement", "server_bandwidth", "mode", "staleness", "chunk",
                       "update_flops_per_param"},
                      context);
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
  if (auto v = section.get("chunk")) {
    ps.chunk_bytes = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  }
  if (auto v = section.get("update_flops_per_param")) ps.update_flops_per_param = as_real(*v, 0);

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

int gradient_bytes(const YamlValue& value) {
  std::string dtype = scalar_text(value, "one of: fp32, fp16, bf16");
  if (dtype == "fp32") return 4;
  if (dtype == "fp16" || dtype == "bf16") return 2;
  fail(value, "unknown value '" + dtype + "'; allowed: fp32, fp16, bf16");
}

}  // namespace

void parse_sync(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  SyncSpec& s = scenario->sync;
  YamlSection sync(value,
                   {"strategy", "algorithm", "mode", "bucket_cap", "first_bucket", "overlap",
                    "gradient_dtype", "channels", "ps", "local_sgd", "alpha_beta"},
                   context);
  if (auto v = sync.get("strategy")) s.strategy = as_enum<SyncStrategy>(*v);
  if (auto v = sync.get("algorithm")) s.algorithm = as_enum<AllReduceAlgorithm>(*v);
  if (auto v = sync.get("mode")) s.mode = as_enum<CollectiveMode>(*v);
  if (auto v = sync.get("bucket_cap")) {
    s.bucket_cap = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  }
  if (auto v = sync.get("first_bucket")) {
    s.first_bucket = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  }
  if (auto v = sync.get("overlap")) s.overlap = as_bool(*v);
  if (auto v = sync.get("gradient_dtype")) s.gradient_bytes = gradient_bytes(*v);
  if (auto v = sync.get("channels")) s.channels = static_cast<int>(as_int(*v, 0));
  if (auto v = sync.get("ps")) parse_ps(*v, context, scenario);
  if (auto v = sync.get("local_sgd")) {
    YamlSection local(*v, {"period"}, context);
    if (auto p = local.get("period")) s.local_sgd_period = static_cast<int>(as_int(*p, 1));
  }
  if (auto v = sync.get("alpha_beta")) s.alpha_beta_table = as_existing_path(*v, *context);
}

}  // namespace ddpsim
