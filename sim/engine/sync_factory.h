// Chooses, from the scenario, the synchronisation strategy, the all-reduce algorithm and the
// extra hosts the platform needs: the one place that maps sync knobs to engine components.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/cost/bucketing.h"
#include "sim/engine/run_context.h"
#include "sim/platform/cluster_platform.h"

namespace ddpsim {

PlatformExtras platform_extras(const Scenario& scenario);
std::unique_ptr<AllReduce> make_allreduce(const Scenario& scenario, Transport* transport);
std::unique_ptr<GradientSync> make_gradient_sync(RunContext* ctx);
// A measured all-reduce table (sync.alpha_beta) checked against the scenario that uses it
// (profile/alpha_beta_use.h): InputError when a bucket lies outside its measured sizes, else the
// warnings (another scale, another GPU). Empty when no table is used.
std::vector<std::string> alpha_beta_warnings(const Scenario& scenario,
                                             const std::vector<Bucket>& buckets);
// One line on how synchronisation was modelled, for results.notes.
std::string sync_notes(const Scenario& scenario);

}  // namespace ddpsim
