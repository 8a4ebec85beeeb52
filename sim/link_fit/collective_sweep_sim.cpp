#include "sim/link_fit/collective_sweep_sim.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "sim/collectives/allreduce.h"
#include "sim/engine/sync_factory.h"
#include "sim/platform/cluster_platform.h"
#include "sim/process/isolated.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

nlohmann::json run_sweep(const Scenario& s, CollectiveOp op, const std::vector<double>& sizes) {
  EngineCommandLine command_line;
  simgrid::s4u::Engine engine(&command_line.argc, command_line.argv);
  configure_network_model();
  ClusterPlatform platform = build_cluster_platform(s.cluster, PlatformExtras{});
  Transport transport(platform, nullptr);
  const std::unique_ptr<AllReduce> collective = make_collective(s, &transport, op);
  const int p = s.cluster.total_gpus();
  std::vector<double> start(sizes.size(), 0), end(sizes.size(), 0);
  simgrid::s4u::BarrierPtr barrier = simgrid::s4u::Barrier::create(p);
  for (int rank = 0; rank < p; ++rank) {
    simgrid::s4u::Actor::create("rank" + std::to_string(rank), platform.gpus[rank], [&, rank] {
      for (size_t i = 0; i < sizes.size(); ++i) {
        barrier->wait();
        const double t0 = simgrid::s4u::Engine::get_clock();
        start[i] = t0;  // every rank leaves the barrier at the same time
        collective->run(rank, i, sizes[i]);
        end[i] = std::max(end[i], simgrid::s4u::Engine::get_clock());
      }
    });
  }
  engine.run();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < sizes.size(); ++i)
    out.push_back({{"bytes", sizes[i]},
                   {"seconds", end[i] - start[i]},
                   {"algorithm", collective->algorithm_for(sizes[i])}});
  return out;
}

}  // namespace

bool collective_is_modelled(CollectiveOp op) { return op != CollectiveOp::kBroadcast; }

std::string modelled_collectives() { return "all_reduce, all_gather, reduce_scatter"; }

std::vector<SimulatedCollective> simulate_collective_sweep(const Scenario& scenario,
                                                           CollectiveOp op,
                                                           const std::vector<double>& sizes) {
  if (!collective_is_modelled(op))
    throw InputError({}, std::string("the model has no ") + collective_op_key(op) +
                             " yet; collectives it simulates: " + modelled_collectives());
  const IsolatedResult child = run_isolated([&] { return run_sweep(scenario, op, sizes).dump(); });
  if (!child.ok) {
    if (child.exit_code == kExitBadInput) throw InputError(child.payload);
    throw std::runtime_error("collective sweep simulation failed: " + child.payload);
  }
  std::vector<SimulatedCollective> sweep;
  for (const auto& j : nlohmann::json::parse(child.payload))
    sweep.push_back({j.at("bytes").get<double>(), j.at("seconds").get<double>(),
                     j.at("algorithm").get<std::string>()});
  return sweep;
}

std::function<std::vector<double>(const ClusterSpec&, const std::vector<double>&)> all_reduce_times(
    const Scenario& scenario) {
  Scenario links = scenario;
  links.sync.alpha_beta_table.clear();  // the fit is of the links: a table would replace them
  links.sync.alpha_beta.clear();
  links.sync.alpha_beta_file.reset();
  return [links](const ClusterSpec& cluster, const std::vector<double>& sizes) {
    Scenario s = links;
    s.cluster = cluster;
    std::vector<double> seconds;
    for (const SimulatedCollective& c :
         simulate_collective_sweep(s, CollectiveOp::kAllReduce, sizes))
      seconds.push_back(c.seconds);
    return seconds;
  };
}

std::vector<double> nccl_tests_sizes(double min_bytes, double max_bytes, double factor,
                                     int element_bytes) {
  std::vector<double> sizes;
  const double elem = std::max(1, element_bytes);
  for (double s = min_bytes; s <= max_bytes; s *= factor) {
    sizes.push_back(std::floor(s / elem) * elem);
    if (!(factor > 1)) break;
  }
  return sizes;
}

}  // namespace ddpsim
