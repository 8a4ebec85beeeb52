// Test helpers for the SimGrid layer. SimGrid allows one engine per process, so every simulation
// runs in a forked child (run_isolated) with its own engine, configured like the real runs
// (configure_network_model), and sends back a list of numbers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/traffic.h"
#include "sim/platform/cluster_platform.h"
#include "sim/process/isolated.h"
#include "sim/scenario/scenario.h"

namespace ddpsim::testing {

// Runs `body` in a child process after creating and configuring a SimGrid engine there (the
// engine is reachable with simgrid::s4u::Engine::get_instance()). Returns what body returned, or
// records a test failure with the child's error and returns an empty vector.
inline std::vector<double> run_in_engine(const std::function<std::vector<double>()>& body) {
  IsolatedResult result = run_isolated([&body]() {
    EngineCommandLine command_line;
    // Never destroyed: the child exits right after.
    new simgrid::s4u::Engine(&command_line.argc, command_line.argv);
    configure_network_model();
    std::string out;
    char buf[40];
    for (double v : body()) {
      std::snprintf(buf, sizeof buf, "%.17g ", v);
      out += buf;
    }
    return out;
  });
  if (!result.ok) {
    ADD_FAILURE() << "simulation child failed (exit " << result.exit_code
                  << "): " << result.payload;
    return {};
  }
  std::vector<double> values;
  std::istringstream in(result.payload);
  for (double v; in >> v;) values.push_back(v);
  return values;
}

// A cluster with round numbers (bytes/s and seconds) chosen per test.
inline ClusterSpec make_cluster(int nodes, int gpus_per_node, int nics = 1) {
  ClusterSpec c;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.gpu.name = "test";
  c.gpu.fp32_flops = 1e13;
  c.intra_node.kind = IntraNodeKind::kNvSwitch;
  c.intra_node.bandwidth = 200e9;
  c.intra_node.latency = 1e-6;
  c.pcie_bandwidth = 32e9;
  c.nic.count = nics;
  c.nic.bandwidth = 25e9;
  c.nic.latency = 3e-6;
  c.fabric.nodes_per_leaf = 16;
  c.fabric.oversubscription = 1.0;
  return c;
}

// The time the last rank returns from one all-reduce of `bytes` built by `make` on `spec`'s
// platform (every rank joins at t = 0), or -1 after a recorded failure.
inline double time_allreduce(const ClusterSpec& spec,
                             const std::function<std::unique_ptr<AllReduce>(Transport*)>& make,
                             double bytes) {
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, {});
    Transport transport(pf, nullptr);
    auto algorithm = make(&transport);
    double last = 0;
    for (size_t r = 0; r < pf.gpus.size(); ++r)
      simgrid::s4u::Actor::create("rank" + std::to_string(r), pf.gpus[r], [&, r] {
        algorithm->run(static_cast<int>(r), 1, bytes);
        last = std::max(last, simgrid::s4u::Engine::get_clock());
      });
    simgrid::s4u::Engine::get_instance()->run();
    return {last};
  });
  return v.size() == 1 ? v[0] : -1;
}

}  // namespace ddpsim::testing
