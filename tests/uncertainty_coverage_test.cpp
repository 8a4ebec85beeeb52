// Honest bands on a fixed subset of the validation cases (docs/model-error.md): `ddpsim validate
// --uncertainty` on one scenario per validation folder, chosen by a rule fixed before any band was
// computed (per folder, the scenario with the most GPUs up to 16, ties by name). Each case is
// banded with its draws x the model error measured on the OTHER sources' cases (this run's rows
// and the repository's discrepancy.csv for the cases it does not run). The test checks that the
// measured values fall inside p10-p90 about as often as claimed (80 % inside the 95 %
// Clopper-Pearson interval of the subset's coverage), that the bands say something (median width
// at most 30 %), and that the rows this run writes are byte for byte the repository file's: the
// data file regenerates from `validate` output. The full run over every case is a command
// (docs/model-error.md), not a test. Fewer draws than the default keep this within CI's time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
const std::string kSourceDir = DDPSIM_SOURCE_DIR;
ddpsim::testing::ScratchFolder scratch("ddpsim-coverage");

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
  const std::regex overall(
      R"(overall\s+(\d+)\s+([0-9.]+)%\s+([0-9.]+)-\s*([0-9.]+)%\s+([0-9.]+)%\s+(\d+)\s+(\d+))");
  const size_t bands = run.output.find("uncertainty bands");
  ASSERT_NE(bands, std::string::npos) << run.output;
  const std::string table = run.output.substr(bands);  // not the error table's "overall"
  ASSERT_TRUE(std::regex_search(table, m, overall)) << run.output;
  const int cases = std::stoi(m[1]);
  const double coverage = std::stod(m[2]), low = std::stod(m[3]), high = std::stod(m[4]);
  const double width = std::stod(m[5]);
  EXPECT_GE(cases, 10);
  RecordProperty("coverage", std::to_string(coverage));
  RecordProperty("median_width", std::to_string(width));
  // The nominal 80 % lies inside the coverage's 95 % interval (at 11 cases: 6 to 11 inside), and
  // the bands stay narrow enough to say something (the issue's 30 % of the headline). Measured
  // when written (2026-11-29, 8 draws, seed 1): see docs/model-error.md.
  EXPECT_LE(low, 80.0) << table;
  EXPECT_GE(high, 80.0) << table;
  EXPECT_LE(width, 30.0) << table;

  // The rows of this run are the repository's rows of the same cases, byte for byte.
  auto lines = [](const std::string& text) {
    std::map<std::string, std::string> by_case;
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line))
      if (!line.empty()) by_case[line.substr(0, line.find(','))] = line;
    return by_case;
  };
  const auto fresh = lines(read(out + "/discrepancy.csv"));
  const auto stored = lines(read(kSourceDir + "/scenarios/validation/discrepancy.csv"));
  ASSERT_GE(fresh.size(), 10u);
  for (const auto& [id, line] : fresh) {
    ASSERT_TRUE(stored.count(id)) << id << " is not in scenarios/validation/discrepancy.csv";
    EXPECT_EQ(line, stored.at(id)) << "regenerate it: docs/model-error.md";
  }
}

}  // namespace
