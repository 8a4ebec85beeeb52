// Importing nccl-tests output: the bundled hand-made 2x8 A100 log (its header says so), older
// and newer column layouts, malformed logs with line:column errors, and the CLI round trip.
#include "sim/profile/nccl_tests_import.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/profile/profile_yaml.h"
#include "sim/util/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

const std::string kLog =
    std::string(DDPSIM_SOURCE_DIR) + "/tests/data/nccl-tests/all_reduce_2x8_a100_ib.log";

std::string header_v2() {
  return "# nThread 1 nGpus 8 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20\n"
         "#                                                              out-of-place     "
         "                  in-place          \n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong"
         "     time   algbw   busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)     "
         "       (us)  (GB/s)  (GB/s)       \n";
}

// Expects parse to fail at `line`:`column` with a message containing `what`.
void expect_error(const std::string& text, int line, int column, const std::string& what,
                  CollectiveOp op = CollectiveOp::kAllReduce) {
  try {
    parse_nccl_tests_log(text, "bad.log", op);
    FAIL() << "expected an InputError containing '" << what << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "bad.log");
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(NcclTestsImport, ReadsEveryRowRankAndHostOfTheBundledLog) {
  std::ifstream in(kLog);
  ASSERT_TRUE(in) << kLog;
  std::stringstream ss;
  ss << in.rdbuf();
  const NcclTestsLog log = parse_nccl_tests_log(ss.str(), kLog);
  ASSERT_EQ(log.samples.size(), 30u);  // 8 B .. 4 GiB, factor 2
  EXPECT_EQ(log.samples.front().bytes, 8);
  EXPECT_DOUBLE_EQ(log.samples.front().seconds, 23.98e-6);
  EXPECT_EQ(log.samples.back().bytes, 4294967296.0);
  EXPECT_DOUBLE_EQ(log.samples.back().seconds, 92563e-6);
  EXPECT_EQ(log.ranks, 16);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.device, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(log.nccl_version, "2.18.5+cuda12.2");
}

TEST(NcclTestsImport, TimesAreMicrosecondsSoBusBandwidthMatchesTheLogsColumn) {
  const CollectiveSweep sweep =
      import_nccl_tests(kLog, CollectiveOp::kAllReduce, AllReduceAlgorithm::kAuto);
  // The 4 GiB row prints busbw 87.00 GB/s; recompute it from size and time as nccl-tests does.
  const CollectiveSample& last = sweep.samples.back();
  const double busbw =
      last.bytes / last.seconds / 1e9 * bus_bandwidth_factor(CollectiveOp::kAllReduce, 16);
  EXPECT_NEAR(busbw, 87.00, 0.01);
}

TEST(NcclTestsImport, FitIsWithinFivePercentOfEveryPointAboveOneMiB) {
  const CollectiveSweep sweep =
      import_nccl_tests(kLog, CollectiveOp::kAllReduce, AllReduceAlgorithm::kAuto);
  EXPECT_EQ(sweep.gpus, 16);
  EXPECT_EQ(sweep.nodes, 2);
  ASSERT_FALSE(sweep.fit.empty());
  int checked = 0;
  for (const CollectiveSample& s : sweep.samples) {
    const double predicted = alpha_beta_predict(sweep.fit, s.bytes);
    EXPECT_NEAR(s.fit_error, (predicted - s.seconds) / s.seconds, 1e-12);
    if (s.bytes > 1024 * 1024) {
      ++checked;
      EXPECT_LT(std::abs(s.fit_error), 0.05) << "size " << s.bytes;
    }
  }
  EXPECT_EQ(checked, 12);  // 2 MiB .. 4 GiB
  // The large-message bandwidth term is the ring's: busbw ~87 GB/s -> algbw ~46.4 GB/s.
  EXPECT_NEAR(1 / sweep.fit.back().beta / 1e9, 46.4, 1.0);
}

TEST(NcclTestsImport, ReadsTheOlderLayoutWithoutRootAndWithAnErrorColumn) {
  const std::string text =
      "#                                                     out-of-place                    "
      "   in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   "
      "algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  "
      "(GB/s)  (GB/s)\n"
      "          32             8   float     sum    21.30    0.00    0.00  0e+00    21.01    "
      "0.00    0.00  0e+00\n"
      "          64            16   float     sum    21.52    0.00    0.01  0e+00    21.33    "
      "0.00    0.01  0e+00\n"
      "         128            32   float     sum    21.90    0.01    0.01  0e+00    21.74    "
      "0.01    0.01  0e+00\n";
  const NcclTestsLog log = parse_nccl_tests_log(text, "old.log");
  ASSERT_EQ(log.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(log.samples[1].seconds, 21.52e-6);
  EXPECT_EQ(log.ranks, 0);
}

TEST(NcclTestsImport, RowWithTooFewColumnsIsAnErrorAtItsEnd) {
  const std::string row = "           8             2     float     sum      -1    35.12    0.00";
  expect_error(header_v2() + row + "\n", 5, static_cast<int>(row.size()) + 1,
               "expected 13 columns");
}

TEST(NcclTestsImport, NonNumericTimeIsAnErrorAtTheTimeColumn) {
  const std::string row =
      "           8             2     float     sum      -1    fast    0.00    0.00      0    "
      "34.87    0.00    0.00      0";
  expect_error(header_v2() + row + "\n", 5, static_cast<int>(row.find("fast")) + 1,
               "time: expected a positive number of microseconds");
}

TEST(NcclTestsImport, AllGatherLogPassedAsAllReduceIsCaughtByTheCountCheck) {
  // all_gather_perf prints the per-rank count: 8 ranks x 2 floats = 64 bytes.
  const std::string row =
      "          64             2     float    none      -1    35.12    0.00    0.00      0    "
      "34.87    0.00    0.00      0";
  expect_error(header_v2() + row + "\n", 5, static_cast<int>(row.find(" 2 ")) + 2,
               "not an all_reduce log");
  // The same rows are accepted when the right collective is named.
  const std::string two_rows =
      row + "\n" +
      "         128             4     float    none      -1    36.00    0.00    0.00      0    "
      "35.90    0.00    0.00      0\n";
  EXPECT_EQ(parse_nccl_tests_log(header_v2() + two_rows, "ag.log", CollectiveOp::kAllGather)
                .samples.size(),
            2u);
}

TEST(NcclTestsImport, WrongResultsMakeTheRunUnusable) {
  const std::string row =
      "           8             2     float     sum      -1    35.12    0.00    0.00      3    "
      "34.87    0.00    0.00      0";
  expect_error(header_v2() + row + "\n", 5, static_cast<int>(row.find(" 3 ")) + 2,
               "3 wrong results");
}

TEST(NcclTestsImport, SizesMustIncrease) {
  const std::string a =
      "          16             4     float     sum      -1    35.12    0.00    0.00      0    "
      "34.87    0.00    0.00      0\n";
  const std::string b =
      "           8             2     float     sum      -1    35.12    0.00    0.00      0    "
      "34.87    0.00    0.00      0\n";
  expect_error(header_v2() + a + b, 6, 12, "not larger than the previous row");
}

TEST(NcclTestsImport, NoHeaderDataBeforeHeaderAndTooFewRowsAreErrors) {
  expect_error("hello\nworld\n", 1, 1, "not an nccl-tests log");
  expect_error("  8  2  float  sum  -1  35.1  0.00  0.00  0\n" + header_v2(), 1, 3,
               "before the column header");
  const std::string one_row =
      "           8             2     float     sum      -1    35.12    0.00    0.00      0    "
      "34.87    0.00    0.00      0\n";
  expect_error(header_v2() + one_row, 5, 1, "at least 2 data rows");
}

TEST(NcclTestsImport, MissingFileNamesThePath) {
  try {
    import_nccl_tests("/nonexistent/x.log", CollectiveOp::kAllReduce, AllReduceAlgorithm::kAuto);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/x.log");
  }
}

// ---------------------------------------------------------------- the CLI

using CliRun = testing::ShellRun;

CliRun run_ddpsim(const std::string& args, const std::string& env = "",
                  const std::string& binary = DDPSIM_BINARY) {
  return testing::run_shell(env + " '" + binary + "' " + args);
}

const testing::ScratchFolder kScratch("ddpsim-nccl-import-test");
fs::path fresh_dir(const std::string& name) { return kScratch.fresh(name); }

TEST(CalibrateCommand, ImportWritesAProfileWhoseTableIsTheFit) {
  const fs::path dir = fresh_dir("import");
  const std::string out = (dir / "p.yaml").string();
  const CliRun r = run_ddpsim("calibrate --import-nccl-tests '" + kLog + "' -o '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("4294967296"), std::string::npos) << r.output;
  const auto table = load_alpha_beta_table(out);
  ASSERT_EQ(table.count(AllReduceAlgorithm::kAuto), 1u);
  const CollectiveSweep expected =
      import_nccl_tests(kLog, CollectiveOp::kAllReduce, AllReduceAlgorithm::kAuto);
  const auto& got = table.at(AllReduceAlgorithm::kAuto);
  ASSERT_EQ(got.size(), expected.fit.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].alpha, expected.fit[i].alpha);
    EXPECT_EQ(got[i].beta, expected.fit[i].beta);
    EXPECT_EQ(got[i].min_bytes, expected.fit[i].min_bytes);
  }
  fs::remove_all(dir);
}

TEST(CalibrateCommand, ImportIntoAnExistingProfileKeepsItsOtherContent) {
  const fs::path dir = fresh_dir("merge");
  const std::string out = (dir / "p.yaml").string();
  CalibrationProfile before;
  before.device.name = "NVIDIA H100 80GB HBM3";
  before.notes.push_back("measured earlier");
  CollectiveSweep ring;
  ring.algorithm = AllReduceAlgorithm::kRing;
  ring.fit = {{0, std::numeric_limits<double>::infinity(), 1e-5, 1e-10}};
  before.collectives.push_back(ring);
  write_profile(before, out);

  const CliRun r = run_ddpsim("calibrate --import-nccl-tests '" + kLog + "' -o '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  const CalibrationProfile after = load_profile(out);
  EXPECT_EQ(after.device.name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(after.notes.size(), 1u);
  ASSERT_EQ(after.collectives.size(), 2u);
  EXPECT_EQ(after.collectives[0].algorithm, AllReduceAlgorithm::kRing);
  EXPECT_EQ(after.collectives[1].algorithm, AllReduceAlgorithm::kAuto);
  EXPECT_EQ(after.collectives[1].samples.size(), 30u);
  fs::remove_all(dir);
}

TEST(CalibrateCommand, MalformedLogExitsTwoWithLineAndColumn) {
  const fs::path dir = fresh_dir("malformed");
  const std::string log = (dir / "bad.log").string();
  std::ofstream(log) << header_v2()
                     << "           8             2     float     sum      -1    x    0.00    "
                        "0.00      0    34.87    0.00    0.00      0\n";
  const CliRun r = run_ddpsim("calibrate --import-nccl-tests '" + log + "' -o '" +
                              (dir / "p.yaml").string() + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(log + ":5:57"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "p.yaml"));
  fs::remove_all(dir);
}

TEST(CalibrateCommand, WithoutTheHarnessBinaryExitsThreeSayingItWasNotBuilt) {
  // A copy of ddpsim in an empty directory has no ddpsim-calibrate next to it.
  const fs::path dir = fresh_dir("noharness");
  const fs::path copy = dir / "ddpsim";
  fs::copy_file(DDPSIM_BINARY, copy);
  fs::permissions(copy, fs::perms::owner_all);
  const CliRun r =
      run_ddpsim("calibrate --model resnet50 --batch 8 -o '" + (dir / "p.yaml").string() + "'",
                 "env -u DDPSIM_CALIBRATE", copy.string());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("calibrate was not built: CUDA toolkit not found at configure time"),
            std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

TEST(CalibrateCommand, UnknownModelIsBadInputBeforeAnyGpuWork) {
  const CliRun r = run_ddpsim("calibrate --model resnet5O -o /tmp/never.yaml");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("resnet5O"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ddpsim
