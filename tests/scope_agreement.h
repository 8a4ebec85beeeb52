// What the symmetric scope must reproduce of a full run (docs/scale.md, issues 16 and 27): the
// iteration time, samples/s, communication time, every breakdown item and every bucket's (or
// FSDP unit's) collective time within 1 %, the same bottleneck and algorithms. Shared by the
// DDP and the sharded symmetry tests, and by the tests of what a headline-only run (an
// uncertainty draw) may do differently: auto fold and parameter-server node lanes.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim/engine/simulation.h"

namespace ddpsim {

inline double rel(double a, double b) {
  return b == 0 ? std::fabs(a) : std::fabs(a - b) / std::fabs(b);
}

constexpr double kAgreement = 0.01;

// The options of a run that reports headline figures only, as every uncertainty draw does: no
// trace, no links, no single-GPU baseline.
inline SimOptions headline_only() {
  SimOptions o;
  o.trace = TraceGpus::none();
  o.baseline = false;
  o.measure_links = false;
  return o;
}

// `s` ran symmetric, `f` full, on the same scenario.
inline void expect_scopes_agree(const SimulationResult& s, const SimulationResult& f) {
  EXPECT_NE(f.notes.find("full: simulation.scope full"), std::string::npos) << f.notes;
  EXPECT_NE(s.notes.find("symmetric: "), std::string::npos) << s.notes;
  EXPECT_EQ(s.gpus, f.gpus);
  EXPECT_EQ(s.global_batch, f.global_batch);
  ASSERT_GT(f.iteration_time, 0);
  EXPECT_LE(rel(s.iteration_time, f.iteration_time), kAgreement)
      << s.iteration_time << " vs " << f.iteration_time;
  EXPECT_LE(rel(s.samples_per_second, f.samples_per_second), kAgreement);
  EXPECT_LE(rel(s.comm_time, f.comm_time), kAgreement) << s.comm_time << " vs " << f.comm_time;
  const Breakdown &a = s.breakdown, &b = f.breakdown;
  EXPECT_LE(rel(a.data_wait, b.data_wait), kAgreement) << a.data_wait << " vs " << b.data_wait;
  EXPECT_LE(rel(a.forward, b.forward), kAgreement);
  EXPECT_LE(rel(a.backward, b.backward), kAgreement);
  EXPECT_LE(rel(a.exposed_comm, b.exposed_comm), kAgreement)
      << a.exposed_comm << " vs " << b.exposed_comm;
  EXPECT_LE(rel(a.straggler_wait, b.straggler_wait), kAgreement);
  EXPECT_LE(rel(a.optimizer, b.optimizer), kAgreement) << a.optimizer << " vs " << b.optimizer;
  EXPECT_EQ(s.bottleneck, f.bottleneck);
  ASSERT_EQ(s.buckets.size(), f.buckets.size());
  for (size_t i = 0; i < f.buckets.size(); ++i) {
    EXPECT_LE(rel(s.buckets[i].comm_time, f.buckets[i].comm_time), kAgreement) << "bucket " << i;
    EXPECT_EQ(s.buckets[i].algorithm, f.buckets[i].algorithm) << "bucket " << i;
  }
}

}  // namespace ddpsim
