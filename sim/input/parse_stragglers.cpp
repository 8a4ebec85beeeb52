// The `stragglers:` section: per-GPU compute slowdowns, fixed or drawn from a seeded
// distribution. Without `kind`, the kind follows from the one parameter given.
#include "sim/input/scenario_sections.h"

namespace ddpsim {
namespace {

void parse_fixed(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  if (!value.node.IsMap()) fail(value, "expected a mapping of GPU rank to slowdown, e.g. {3: 1.5}");
  YamlSection fixed(value, {}, context);
  const int total = scenario->cluster.total_gpus();
  for (const auto& [key, factor] : fixed.entries()) {
    int64_t rank = as_int(key, 0);
    if (rank >= total) {
      fail(key, "no GPU rank " + std::to_string(rank) + ": ranks run from 0 to " +
                    std::to_string(total - 1) + " (cluster has " + std::to_string(total) +
                    " GPUs)");
    }
    scenario->stragglers.fixed[static_cast<int>(rank)] =
        as_real(factor, 1.0, false, kMaxStragglerFactor);
  }
}

}  // namespace

void parse_stragglers(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  StragglerSpec& s = scenario->stragglers;
  YamlSection stragglers(value, {"kind", "fixed", "sigma", "max", "per_iteration"}, context);
  std::optional<YamlValue> kind = stragglers.get("kind");
  std::optional<YamlValue> fixed = stragglers.get("fixed");
  std::optional<YamlValue> sigma = stragglers.get("sigma");
  std::optional<YamlValue> max = stragglers.get("max");
  if (kind) {
    s.kind = as_enum<StragglerKind>(*kind);
  } else {
    int given = (fixed ? 1 : 0) + (sigma ? 1 : 0) + (max ? 1 : 0);
    if (given > 1) {
      stragglers.require("kind",
                         "fixed, sigma and max belong to different kinds: say which one "
                         "(" +
                             enum_choices<StragglerKind>() + ")");
    }
    if (fixed) s.kind = StragglerKind::kFixed;
    if (sigma) s.kind = StragglerKind::kLognormal;
    if (max) s.kind = StragglerKind::kUniform;
  }
  if (fixed) parse_fixed(*fixed, context, scenario);
  if (sigma) s.sigma = as_real(*sigma, 0, false, kMaxStragglerSigma);
  if (max) s.max = as_real(*max, 1.0, false, kMaxStragglerFactor);
  if (auto v = stragglers.get("per_iteration")) s.per_iteration = as_bool(*v);

  if (s.kind == StragglerKind::kFixed && s.fixed.empty()) {
    if (fixed) fail(*fixed, "kind fixed needs at least one GPU rank: slowdown, e.g. {3: 1.5}");
    stragglers.require("fixed", "GPU rank: slowdown factor (>= 1), e.g. {3: 1.5}");
  }
  if (s.kind == StragglerKind::kLognormal && s.sigma <= 0) {
    if (sigma) fail(*sigma, "kind lognormal needs sigma > 0, got " + sigma->node.Scalar());
    stragglers.require("sigma", "sigma of log(slowdown), e.g. 0.1");
  }
  if (s.kind == StragglerKind::kUniform && !max) {
    stragglers.require("max", "largest slowdown factor (>= 1); factors are drawn in [1, max]");
  }
}

}  // namespace ddpsim
