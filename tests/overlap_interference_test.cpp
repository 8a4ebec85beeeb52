// Compute slowed down while its GPU communicates (compute.overlap_slowdown, or the factor a
// calibration profile measured): whole iterations against a piecewise closed form of the DDP
// pipeline in which backward work progresses at 1/f of its rate while a bucket is being reduced.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/text/input_error.h"
#include "tests/nic_bound_cluster.h"

namespace ddpsim {
namespace {

using testing::plan_of;
using testing::ring_time;

Scenario scenario(const std::vector<std::string>& overrides = {}) {
  return testing::nic_bound(overrides);
}

// The DDP step with interference, event by event: buckets are reduced one at a time in order,
// each from when it is full; backward work done while a reduction runs takes f times as long.
double expected_step(const IterationPlan& plan, int p, double bw, double alpha, double f) {
  double t = plan.compute.forward;  // no communication runs during forward
  double comm_end = -1;             // end of the reduction in progress (t < comm_end: busy)
  std::deque<double> queued;        // durations of full buckets waiting for the stream
  auto start_next = [&](double at) {
    if (queued.empty()) return;
    comm_end = at + queued.front();
    queued.pop_front();
  };
  auto work = [&](double seconds) {
    while (seconds > 0) {
      if (t < comm_end) {
        const double slowed = seconds * f;
        if (t + slowed <= comm_end) {
          t += slowed;
          seconds = 0;
        } else {
          seconds -= (comm_end - t) / f;
          t = comm_end;
          start_next(t);
        }
      } else {
        t += seconds;
        seconds = 0;
      }
    }
  };
  for (size_t b = 0; b < plan.buckets.size(); ++b) {
    work(plan.backward_segments[b]);
    queued.push_back(ring_time(p, plan.buckets[b].bytes, bw, alpha));
    if (t >= comm_end) start_next(t);
  }
  work(plan.backward_segments.back());
  while (!queued.empty()) start_next(std::max(t, comm_end));
  return std::max(t, comm_end) + plan.compute.optimizer;
}

TEST(OverlapInterference, IterationsMatchThePiecewiseClosedForm) {
  for (double f : {1.25, 2.0, 4.0}) {
    const Scenario s = scenario({"compute.overlap_slowdown=" + std::to_string(f)});
    const IterationPlan plan = plan_of(s);
    EXPECT_DOUBLE_EQ(plan.compute.overlap_slowdown, f);
    const SimulationResult r = simulate(s, {TraceGpus::none(), false});
    const double expected = expected_step(plan, 8, 25e9 / 8, 5e-6, f);
    EXPECT_NEAR(r.iteration_time, expected, 1e-6 * expected) << "f = " << f;
    // The slowed work is backward compute, and the breakdown still adds up.
    EXPECT_GT(r.breakdown.backward, plan.compute.backward * (1 + 1e-3)) << f;
    EXPECT_NEAR(r.breakdown.total(), r.iteration_time, 1e-9 * r.iteration_time);
    EXPECT_NE(r.notes.find("slower while its GPU communicates (compute.overlap_slowdown)"),
              std::string::npos)
        << r.notes;
  }
}

TEST(OverlapInterference, AFactorOfOneChangesNothing) {
  const SimulationResult plain = simulate(scenario(), {TraceGpus::none(), false});
  const SimulationResult one =
      simulate(scenario({"compute.overlap_slowdown=1"}), {TraceGpus::none(), false});
  EXPECT_EQ(one.iteration_time, plain.iteration_time);
  EXPECT_EQ(one.breakdown.backward, plain.breakdown.backward);
}

TEST(OverlapInterference, ALargerFactorIsNeverFaster) {
  double previous = 0;
  for (double f : {1.0, 1.1, 1.5, 2.0, 3.0}) {
    const double t = simulate(scenario({"compute.overlap_slowdown=" + std::to_string(f)}),
                              {TraceGpus::none(), false})
                         .iteration_time;
    EXPECT_GE(t, previous * (1 - 1e-12)) << f;
    previous = t;
  }
}

TEST(OverlapInterference, NothingIsSlowedWhereNothingOverlaps) {
  // One GPU never communicates; without overlap, DDP reduces only after backward.
  const Scenario alone = scenario({"cluster.nodes=1", "compute.overlap_slowdown=3"});
  EXPECT_NEAR(simulate(alone).iteration_time, plan_of(alone).compute.step_time(1), 1e-12);
  const double off =
      simulate(scenario({"sync.overlap=false"}), {TraceGpus::none(), false}).iteration_time;
  const double off_slowed = simulate(scenario({"sync.overlap=false", "compute.overlap_slowdown=3"}),
                                     {TraceGpus::none(), false})
                                .iteration_time;
  EXPECT_NEAR(off_slowed, off, 1e-12 * off);
}

TEST(OverlapInterference, ParameterServerPushesSlowTheirGpu) {
  const std::vector<std::string> ps = {"sync.strategy=ps", "sync.ps.servers=2"};
  auto slowed = ps;
  slowed.push_back("compute.overlap_slowdown=2");
  const SimulationResult a = simulate(scenario(ps), {TraceGpus::none(), false});
  const SimulationResult b = simulate(scenario(slowed), {TraceGpus::none(), false});
  EXPECT_GT(b.breakdown.backward, a.breakdown.backward * (1 + 1e-3));
  EXPECT_GE(b.iteration_time, a.iteration_time);
}

TEST(OverlapInterference, TheFactorIsAtLeastOne) {
  try {
    scenario({"compute.overlap_slowdown=0.5"});
    FAIL() << "a factor below 1 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("overlap_slowdown"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ddpsim
