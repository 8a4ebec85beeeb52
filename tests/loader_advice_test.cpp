// "How many CPU cores?" (issue 35, item 4): the smallest cores per node and loader workers per
// GPU that keep the GPUs fed, by closed form and checked by simulation; a warning when a worker
// cap or the store binds instead; a scaling efficiency against a loader-starved baseline says so.
#include "sim/data/loader_advice.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/input/scenario_loader.h"
#include "sim/ledger/assumptions.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

using testing::run_program;

const testing::ScratchFolder scratch("ddpsim-loader-advice");
const std::string kScenario = DDPSIM_SOURCE_DIR "/scenarios/data-loading.yaml";
// The decode row's range, as dataload --find cores reads it from the ledger.
const DecodeRange kDecode = {find_assumption_row("data.decode.samples_per_core")->low,
                             find_assumption_row("data.decode.samples_per_core")->high};

// scenarios/data-loading.yaml: 8 A100s per node each training 2470 images/s, 275 images/s per
// core. By hand: workers per GPU ceil(2470 / 275) = ceil(8.98) = 9; cores per node
// ceil(8 x 2470 / 275) = ceil(71.85) = 72; at the decode row's 2x (550/core) ceil(35.93) = 36,
// at its 0.5x (137.5/core) ceil(143.7) = 144.
TEST(LoaderAdvice, CoresToFeedEightA100sByHand) {
  const Scenario s = load_scenario(kScenario, {});
  const CoresAnswer a = cores_to_feed(s, 2470, kDecode);
  EXPECT_EQ(a.workers_per_gpu, 9);
  EXPECT_EQ(a.cores_per_node, 72);
  EXPECT_EQ(a.cores_fast, 36);
  EXPECT_EQ(a.cores_slow, 144);
  EXPECT_DOUBLE_EQ(a.rate_high, 550);
  EXPECT_DOUBLE_EQ(a.rate_low, 137.5);
  EXPECT_EQ(a.other_limit, "");
  // A shared store of 1 GB/s for the node's 8 GPUs: 125 MB/s each / 110 KB = 1,136 images/s.
  const Scenario shared =
      load_scenario(kScenario, {"data.storage.kind=shared", "data.storage.bandwidth=1GB/s"});
  EXPECT_EQ(cores_to_feed(shared, 2470, kDecode).other_limit, "storage 1,136 samples/s per GPU");
}

TEST(LoaderAdvice, WarnsWhenTheWorkerCapOrTheStoreBindsNotWhenCoresDo) {
  // 160 cores, 4 workers per GPU: 4 x 275 = 1,100 images/s per GPU; 128 of the cores idle.
  const Scenario capped =
      load_scenario(kScenario, {"cluster.cpu_cores=160", "data.decode.workers_per_gpu=4"});
  const std::string w = loader_limit_warning(capped, 2470);
  EXPECT_NE(w.find("data.workers_per_gpu 4 caps decoding at 1,100 samples/s per GPU against "
                   "2,470 trained: cores beyond 4 x 8 = 32 per node stay idle"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("takes 9 workers per GPU"), std::string::npos) << w;
  // 48 cores, 12 workers: the cores bind (6 per GPU), more cores would help: no warning.
  EXPECT_EQ(loader_limit_warning(load_scenario(kScenario, {}), 2470), "");
  // Fed: no warning either.
  EXPECT_EQ(loader_limit_warning(load_scenario(kScenario, {"cluster.cpu_cores=96"}), 2470), "");
  const Scenario shared =
      load_scenario(kScenario, {"data.storage.kind=shared", "data.storage.bandwidth=1GB/s"});
  EXPECT_NE(loader_limit_warning(shared, 2470)
                .find("the store limits loading below the 2,470 samples/s one GPU trains"),
            std::string::npos);
}

TEST(LoaderAdvice, DataloadFindCoresAnswersAndChecksBySimulation) {
  const auto run = run_program({DDPSIM_BINARY, "dataload", kScenario, "--find", "cores"}, scratch);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("cores     72 per node (8 GPUs x 9 loader workers) keep the GPUs fed"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("band      36 - 144 cores per node"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("checked   72 cores: data wait 0.0 % (compute-bound); 71 cores: data "
                         "wait "),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("71 cores: data wait 0.0 %"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("warning"), std::string::npos) << run.out;
  // The scenario's cap of 4 workers is below the 9 needed: said.
  const auto capped = run_program({DDPSIM_BINARY, "dataload", kScenario, "--find", "cores", "--set",
                                   "data.decode.workers_per_gpu=4"},
                                  scratch);
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  EXPECT_NE(capped.out.find("warning   data.workers_per_gpu is 4"), std::string::npos)
      << capped.out;
  const auto bad = run_program({DDPSIM_BINARY, "dataload", kScenario, "--find", "gpus"}, scratch);
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("cores"), std::string::npos) << bad.err;
}

// Today a sweep of 72-160 cores under a cap of 4 workers is flat with no word, and its scaling
// efficiency reads 100 % against a lone GPU that starves the same way.
TEST(LoaderAdvice, SweepOverCoresWarnsOfTheCapAndFlagsAStarvedBaseline) {
  const auto dir = scratch.fresh("cores-sweep");
  const auto run =
      run_program({DDPSIM_BINARY, "sweep", kScenario, "--set", "data.decode.workers_per_gpu=4",
                   "--sweep", "cluster.cpu_cores=72,160", "-o", (dir / "out").string()},
                  scratch);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("warning (points 0,1): data.workers_per_gpu 4 caps decoding"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("%~"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("~ against a loader-starved baseline"), std::string::npos) << run.out;
  const auto one = run_program({DDPSIM_BINARY, "simulate", kScenario, "--set",
                                "data.decode.workers_per_gpu=4", "-o", (dir / "one").string()},
                               scratch);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("scaling note    the 1-GPU baseline is data-loading-bound too"),
            std::string::npos)
      << one.out;
  // Fed (the scenario as written, 12 workers; 96 cores): no note.
  const auto fed = run_program({DDPSIM_BINARY, "simulate", kScenario, "--set",
                                "cluster.cpu_cores=96", "-o", (dir / "fed").string()},
                               scratch);
  ASSERT_EQ(fed.exit_code, 0) << fed.err;
  EXPECT_EQ(fed.out.find("scaling note"), std::string::npos) << fed.out;
}

}  // namespace
}  // namespace ddpsim
