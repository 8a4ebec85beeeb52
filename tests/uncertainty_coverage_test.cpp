// Honest bands on a fixed subset of the validation cases (docs/assumptions.md): `ddpsim validate
// --uncertainty` on one scenario per validation group, chosen by a rule fixed before any band was
// computed (per group folder, the scenario with the most GPUs up to 16, ties by name), must put
// the measured value inside p10-p90 for a share of cases near the nominal 80 % without bands so
// wide they say nothing (the coverage target is not met yet: see the floor below). The full run
// over every case is a command (docs/assumptions.md), not a test. Fewer draws than the default keep
// this within CI's time.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
const std::string kSourceDir = DDPSIM_SOURCE_DIR;
ddpsim::testing::ScratchFolder scratch("ddpsim-coverage");

const char* kSubset[] = {
    "bugliarello-2017/bug-p28-inceptionv3-16.yaml",
    "dle-bert/dle-pt-bertl-a100-amp-s128-16.yaml",
    "dle-resnet50/dle-mx-rn50-dgx-2-amp-16.yaml",
    "dle-transformer/dle-pt-xfmr-dgx2-amp-16.yaml",
    "llm-foundry-fsdp/llmf-a100-40-13b-8.yaml",
    "nccl-allreduce/nccl-a100-16-meas.yaml",
    "pytorch-ddp-bench-wgp/wgp-a100-resnet152-8.yaml",
    "pytorch-ddp-benchmark/ptddpb-bucket1mb-resnet101-16.yaml",
    "tensorpack-benchmarks/tpk-p100-resnet50-ps-8.yaml",
    "tf-benchmarks-2017/tfb-awsk80-inceptionv3-16.yaml",
    "tf-dgx1-real-vs-synthetic/tfb-p100-inceptionv3-real-8.yaml",
};

TEST(UncertaintyCoverage, FixedSubsetBandsCoverWithoutBeingHuge) {
  const fs::path dir = scratch.root() / "subset";
  for (const char* file : kSubset) {
    const fs::path from = fs::path(kSourceDir) / "scenarios/validation" / file;
    fs::create_directories((dir / file).parent_path());
    fs::copy_file(from, dir / file, fs::copy_options::overwrite_existing);
  }
  // Hugging Face configs and other files the scenarios name by relative path.
  fs::create_directory_symlink(fs::path(kSourceDir) / "scenarios/models",
                               scratch.root() / "models");
  const std::string out = (scratch.root() / "out").string();
  const std::string cmd = "'" + std::string(DDPSIM_BINARY) + "' validate '" + dir.string() +
                          "' -o '" + out + "' -j 2 --no-plot --uncertainty 8";
  const ddpsim::testing::ShellRun run = ddpsim::testing::run_shell(cmd);
  ASSERT_EQ(run.code, 0) << run.output;
  std::smatch m;
  const std::regex overall(R"(overall\s+(\d+)\s+([0-9.]+)%\s+([0-9.]+)%)");
  const size_t bands = run.output.find("uncertainty bands");
  ASSERT_NE(bands, std::string::npos) << run.output;
  const std::string table = run.output.substr(bands);  // not the error table's "overall"
  ASSERT_TRUE(std::regex_search(table, m, overall)) << run.output;
  const int cases = std::stoi(m[1]);
  const double coverage = std::stod(m[2]), width = std::stod(m[3]);
  EXPECT_GE(cases, 10);
  RecordProperty("coverage", std::to_string(coverage));
  RecordProperty("median_width", std::to_string(width));
  // Bands that say something: the issue's bound on the median width (30 % of the prediction),
  // and no more than 90 % coverage (bands that always cover are as wrong as bands that never do).
  EXPECT_LE(width, 30.0);
  EXPECT_LE(coverage, 90.0);
  // The issue's target is 70-90 % coverage; this subset measured 36.4 % (4 of 11 cases) with a
  // median width of 7.0 % (8 draws, seed 1; 2026-11-28, with compute.framework_overhead's row),
  // then 27.3 % (3 of 11) and 5.8 % with every row of the table and the triangular draws of the
  // rows whose sources publish a mean (the overlap slowdown, the slowest GPU): narrower bands
  // around the sources' means, two cases now outside by less than 1 % (docs/assumptions.md,
  // "How honest the bands are"). The ranges come from public sources and were not widened to
  // reach the target, so the bands are honestly too narrow. These floors keep them from
  // narrowing or covering less without a change that says so.
  EXPECT_GE(coverage, 27.0);
  EXPECT_GE(width, 5.5);
}

}  // namespace
