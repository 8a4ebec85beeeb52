// A scaling efficiency above 100 % says why: the parts of one GPU's step shorter than in the
// 1-GPU baseline, with both times and the cause the model can state.
#include "sim/results/scaling_note.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

TEST(ScalingNote, SuperlinearNamesTheShorterPartsAndWhy) {
  Scenario s;
  s.sync.sharding.strategy = Sharding::kZero3;
  SimulationResult many, one;
  many.scaling_efficiency = 1.2;
  many.breakdown.forward = one.breakdown.forward = 10e-3;
  many.breakdown.backward = one.breakdown.backward = 20e-3;
  many.breakdown.optimizer = 1e-3;
  one.breakdown.optimizer = 8e-3;
  EXPECT_EQ(superlinear_note(s, many, one),
            "scaling efficiency 120.0 % is above 100 %: optimizer update 1.00 ms per step on each "
            "GPU against 8.00 ms alone (sync.sharding divides the optimizer state and its update "
            "over the GPUs)");
  one.breakdown.data_wait = 5e-3;
  EXPECT_NE(superlinear_note(s, many, one)
                .find("data wait 0.00 ns per step on each GPU against 5.00 ms alone (the lone "
                      "GPU's input pipeline fed it more slowly)"),
            std::string::npos);
}

TEST(ScalingNote, AtOrBelowAHundredPercentThereIsNoNote) {
  Scenario s;
  SimulationResult many, one;
  many.scaling_efficiency = 1.0;
  EXPECT_EQ(superlinear_note(s, many, one), "");
  many.scaling_efficiency = 0.93;
  EXPECT_EQ(superlinear_note(s, many, one), "");
}

}  // namespace
}  // namespace ddpsim
