// Importing nccl-tests output: real logs as published (tests/data/nccl-tests/README.md gives each
// one's source), the bundled hand-made 2x8 A100 log (its header says so), every column layout,
// launcher prefixes, several tables in one file, malformed logs with line:column errors, and the
// CLI round trip.
#include "sim/measurements/nccl_tests_import.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/measurements/profile_yaml.h"
#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(DDPSIM_SOURCE_DIR) + "/tests/data/nccl-tests/";
const std::string kLog = kData + "all_reduce_2x8_a100_ib.log";

NcclTestsLog parse_fixture(const std::string& name, CollectiveOp op = CollectiveOp::kAllReduce,
                           int table = 0) {
  return parse_nccl_tests_log(testing::read_text(kData + name), name, op, table);
}

// Expects parsing the fixture to fail at `line` with a message containing `what`.
void expect_fixture_error(const std::string& name, CollectiveOp op, int line,
                          const std::string& what) {
  try {
    parse_fixture(name, op);
    FAIL() << "expected an InputError containing '" << what << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

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

// calibrate/pytorch's torch.distributed sweep prints nccl-tests' layout with a "# Backend" line:
// the table records Gloo, not NCCL; the namespaces' addresses are the hosts (2 nodes).
TEST(NcclTestsImport, TorchDistributedSweepRecordsItsBackend) {
  const NcclTestsLog log = parse_fixture("gloo_2x1_cpu_100mbit.log");
  ASSERT_EQ(log.samples.size(), 21u);  // 8 B .. 8 MiB
  EXPECT_DOUBLE_EQ(log.samples.front().seconds, 289.0e-6);
  EXPECT_DOUBLE_EQ(log.samples.back().seconds, 735082e-6);
  EXPECT_EQ(log.ranks, 2);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.device, "cpu (AMD EPYC, 1 threads)");
  EXPECT_EQ(log.backend, "gloo (torch.distributed, PyTorch 1.13.0a0)");
  const CollectiveSweep sweep = import_nccl_tests(
      kData + "gloo_2x1_cpu_100mbit.log", CollectiveOp::kAllReduce, AllReduceAlgorithm::kAuto);
  EXPECT_EQ(sweep.backend, "gloo (torch.distributed, PyTorch 1.13.0a0)");
  EXPECT_EQ(sweep.gpus, 2);
  EXPECT_EQ(sweep.nodes, 2);
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

// ---------------------------------------------------------------- real logs as published

TEST(NcclTestsImport, MarkdownPageWithTheCurrentHeaderAndRankLines) {
  // GCP A3 Mega, 2 x 8 H100, NCCL tests 2.x: prose and a quoted mpirun line around the table.
  const NcclTestsLog log = parse_fixture("a3mega_h100_2x8_markdown.log");
  ASSERT_EQ(log.samples.size(), 31u);  // 8 B .. 8 GiB
  EXPECT_EQ(log.samples.front().bytes, 8);
  EXPECT_DOUBLE_EQ(log.samples.front().seconds, 135.8e-6);
  EXPECT_EQ(log.samples.back().bytes, 8589934592.0);
  EXPECT_DOUBLE_EQ(log.samples.back().seconds, 47535e-6);
  EXPECT_EQ(log.ranks, 16);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.gpus_per_node(), 8);
  EXPECT_EQ(log.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(log.host, "ztan-mig-235z");
  EXPECT_EQ(log.table_line, 30);
}

TEST(NcclTestsImport, OpenMpiTagOutputOldHeaderWithoutRootAndInterleavedInfoLines) {
  // AWS p4d, 2 x 8 A100, NCCL 2.8.3: every line "[1,r]<stdout>:", header "size count type redop
  // time ... error", NCCL INFO lines of other ranks between the header and the rows.
  const NcclTestsLog log = parse_fixture("p4d_a100_2x8_efa_tag_output.log");
  ASSERT_EQ(log.samples.size(), 28u);                  // 8 B .. 1 GiB
  EXPECT_DOUBLE_EQ(log.samples[6].seconds, 374.7e-6);  // 512 B, as printed
  EXPECT_DOUBLE_EQ(log.samples.back().seconds, 61556e-6);
  EXPECT_EQ(log.ranks, 16);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.device, "A100-SXM4-40GB");
  EXPECT_EQ(log.nccl_version, "2.8.3+cuda11.2");
  // busbw recomputed from size and time equals the log's column (32.71 GB/s at 1 GiB).
  const CollectiveSample& last = log.samples.back();
  EXPECT_NEAR(last.bytes / last.seconds / 1e9 * bus_bandwidth_factor(CollectiveOp::kAllReduce, 16),
              32.71, 0.005);
}

TEST(NcclTestsImport, ReadmeWithThreeTablesNeedsTableAndTakesSrunLabelsAndSizeZeroRows) {
  // aws-samples/awsome-distributed-training: two Slurm logs ("0: " labels) and one indented
  // Kubernetes excerpt with a size-0 row and "..." where rows were cut, all all_reduce.
  expect_fixture_error("awsome_p4de_p5_readme_excerpt.md", CollectiveOp::kAllReduce, 40,
                       "3 all_reduce tables in this file (header lines 5, 40, 98): pass --table");
  const NcclTestsLog p4de =
      parse_fixture("awsome_p4de_p5_readme_excerpt.md", CollectiveOp::kAllReduce, 1);
  ASSERT_EQ(p4de.samples.size(), 29u);  // 8 B .. 2 GiB
  EXPECT_DOUBLE_EQ(p4de.samples.back().seconds, 51406e-6);
  EXPECT_EQ(p4de.ranks, 0);  // the excerpt kept no rank lines
  const NcclTestsLog p5 =
      parse_fixture("awsome_p4de_p5_readme_excerpt.md", CollectiveOp::kAllReduce, 2);
  ASSERT_EQ(p5.samples.size(), 32u);  // 8 B .. 16 GiB
  EXPECT_DOUBLE_EQ(p5.samples.back().seconds, 66132e-6);
  const NcclTestsLog eks =
      parse_fixture("awsome_p4de_p5_readme_excerpt.md", CollectiveOp::kAllReduce, 3);
  ASSERT_EQ(eks.samples.size(), 6u);  // the size-0 row is skipped; 64 MiB .. 2 GiB
  EXPECT_EQ(eks.samples.front().bytes, 67108864.0);
  EXPECT_DOUBLE_EQ(eks.samples.back().seconds, 9197.5e-6);
  try {
    parse_fixture("awsome_p4de_p5_readme_excerpt.md", CollectiveOp::kAllReduce, 4);
    FAIL() << "--table 4 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--table 4: this log has 3 all_reduce table(s)"),
              std::string::npos)
        << e.what();
  }
}

TEST(NcclTestsImport, SeveralCollectivesInOneFileEachFoundByItsPerfBinary) {
  // eunomia-bpf/nccl-eBPF: an all_gather and a reduce_scatter run of nccl-tests 2.18, each after
  // "# Collective test starting: <op>_perf_mpi".
  const NcclTestsLog ag =
      parse_fixture("rtx5090_allgather_reducescatter.md", CollectiveOp::kAllGather);
  ASSERT_EQ(ag.samples.size(), 8u);
  EXPECT_DOUBLE_EQ(ag.samples.front().seconds, 2197.40e-6);
  EXPECT_EQ(ag.ranks, 2);
  EXPECT_EQ(ag.nodes, 1);
  EXPECT_EQ(ag.device, "NVIDIA GeForce RTX 5090");
  const NcclTestsLog rs =
      parse_fixture("rtx5090_allgather_reducescatter.md", CollectiveOp::kReduceScatter);
  ASSERT_EQ(rs.samples.size(), 8u);
  EXPECT_DOUBLE_EQ(rs.samples.front().seconds, 2678.52e-6);
  expect_fixture_error("rtx5090_allgather_reducescatter.md", CollectiveOp::kAllReduce, 13,
                       "no all_reduce table in this log; its tables are: all_gather (line 13), "
                       "reduce_scatter (line 36)");
}

TEST(NcclTestsImport, HeadersWithAndWithoutRedopAndRootOfThe2020Generation) {
  // Two GTX 1080 (2020): all_reduce (redop, no root), all_gather (neither), broadcast (root, no
  // redop) in one file, each after "===begin <op>_perf test===".
  const std::string f = "gtx1080_three_collectives_2020.md";
  const NcclTestsLog ar = parse_fixture(f);
  ASSERT_EQ(ar.samples.size(), 25u);  // 8 B .. 128 MiB
  EXPECT_DOUBLE_EQ(ar.samples.back().seconds, 154639e-6);
  EXPECT_EQ(ar.ranks, 2);
  EXPECT_EQ(ar.device, "GeForce GTX 1080");
  const NcclTestsLog ag = parse_fixture(f, CollectiveOp::kAllGather);
  ASSERT_EQ(ag.samples.size(), 25u);
  EXPECT_DOUBLE_EQ(ag.samples.front().seconds, 21.03e-6);
  const NcclTestsLog bc = parse_fixture(f, CollectiveOp::kBroadcast);
  ASSERT_EQ(bc.samples.size(), 25u);
  EXPECT_DOUBLE_EQ(bc.samples.back().seconds, 91250e-6);
  expect_fixture_error(f, CollectiveOp::kReduceScatter, 12,
                       "no reduce_scatter table in this log; its tables are: all_reduce (line 12), "
                       "all_gather (line 51), broadcast (line 90)");
}

TEST(NcclTestsImport, RowsImplyTheCollectiveWhenNoBinaryIsNamed) {
  // Without a *_perf name, count x sizeof(type) against size, redop and root tell the tables
  // apart: an all_reduce (sum, count = size/4) and an all_gather (none, count = size/4/ranks).
  const std::string ar =
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong\n"
      "   1024    256  float   sum    -1  20.0   0.05   0.09       0\n"
      "   2048    512  float   sum    -1  21.0   0.10   0.18       0\n"
      "# Avg bus bandwidth    : 0.1\n";
  const std::string ag =
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong\n"
      "   1024    128  float  none    -1  30.0   0.03   0.02       0\n"
      "   2048    256  float  none    -1  31.0   0.07   0.03       0\n";
  EXPECT_DOUBLE_EQ(parse_nccl_tests_log(ar + ag, "two.log").samples[0].seconds, 20e-6);
  EXPECT_DOUBLE_EQ(
      parse_nccl_tests_log(ar + ag, "two.log", CollectiveOp::kAllGather).samples[0].seconds, 30e-6);
}

TEST(NcclTestsImport, LauncherPrefixesAndHeadersWithoutTheHashAreRead) {
  // MPICH/Intel MPI -prepend-rank "[0] ", and a log pasted where Markdown ate the '#'.
  const std::string text =
      "[0]        size         count    type   redop     time   algbw   busbw  error\n"
      "[0]         (B)    (elements)                     (us)  (GB/s)  (GB/s)\n"
      "[0]        1024           256   float     sum    30.00    0.03    0.06  0e+00\n"
      "[0]        2048           512   float     sum    31.00    0.07    0.12  0e+00\n";
  const NcclTestsLog log = parse_nccl_tests_log(text, "mpich.log");
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(log.samples[1].seconds, 31e-6);
}

TEST(NcclTestsImport, TheOldestHeaderTakesMillisecondsFromTheAlgbwColumn) {
  // nccl-tests of 2017-2019 ("bytes N type op time algbw busbw res") printed milliseconds and no
  // units line; algbw = size / time decides (10 MB in 1.628 ms = 6.14 GB/s).
  const std::string text =
      "#                                                 out-of-place                    in-place\n"
      "#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  "
      "busbw      res\n"
      "    10000000       2500000   float     sum    1.628   6.14   9.21    0e+00    1.932   5.18  "
      " "
      "7.77    0e+00\n"
      "    20000000       5000000   float     sum    3.150   6.35   9.52    0e+00    3.200   6.25  "
      " "
      "9.37    0e+00\n";
  const NcclTestsLog log = parse_nccl_tests_log(text, "old.log");
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(log.samples[0].seconds, 1.628e-3);
}

TEST(NcclTestsImport, SeveralDataTypesInOneTableAreNamedAsTheCause) {
  const std::string text =
      "#      bytes             N    type      op     time  algbw  busbw      res\n"
      "    10000000      10000000    char     sum    0.286  34.98  52.47    0e+00\n"
      "    10000000      10000000    char    prod    0.291  34.31  51.47    0e+00\n";
  expect_error(text, 3, 5, "mixes data types or reduction ops");
}

TEST(NcclTestsImport, GarbageInsideATaggedTableIsLocatedInTheWholeLine) {
  // The column counts from the start of the line, launcher prefix included.
  const std::string row = "[1,0]<stdout>:        2048           512   float     sum    2O5.0";
  const std::string text =
      "[1,0]<stdout>:#       size         count    type   redop     time   algbw   busbw  error\n"
      "[1,0]<stdout>:        1024           256   float     sum    182.5    0.01    0.01  5e-07\n" +
      row + "    0.01    0.02  5e-07\n";
  expect_error(text, 3, static_cast<int>(row.find("2O5.0")) + 1,
               "time: expected a positive number of microseconds, got '2O5.0'");
}

TEST(NcclTestsImport, ADataRowAfterTheTableEndIsAnError) {
  const std::string row =
      "           8             2     float     sum      -1    35.12    0.00    0.00      0    "
      "34.87    0.00    0.00      0\n";
  const std::string next =
      "          16             4     float     sum      -1    35.20    0.00    0.00      0    "
      "34.87    0.00    0.00      0\n";
  expect_error(header_v2() + row + next + "# Avg bus bandwidth    : 0.1\n" + row, 8, 12,
               "a data row after the end of the table of line 3");
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
  before.device.name = "NVIDIA A100-SXM4-80GB";  // the log's GPU: the import may add to it
  before.notes.push_back("measured earlier");
  CollectiveSweep ring;
  ring.algorithm = AllReduceAlgorithm::kRing;
  ring.fit = {{0, std::numeric_limits<double>::infinity(), 1e-5, 1e-10}};
  before.collectives.push_back(ring);
  write_profile(before, out);

  const CliRun r = run_ddpsim("calibrate --import-nccl-tests '" + kLog + "' -o '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  const CalibrationProfile after = load_profile(out);
  EXPECT_EQ(after.device.name, "NVIDIA A100-SXM4-80GB");
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
  // How to get it, and what runs without it (issue 35).
  EXPECT_NE(r.output.find("cmake --build build --target ddpsim-calibrate"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("ddpsim calibrate --import-torch-trace TRACE"), std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

TEST(CalibrateCommand, UnknownModelIsBadInputBeforeAnyGpuWork) {
  const CliRun r = run_ddpsim("calibrate --model resnet5O -o /tmp/never.yaml");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("resnet5O"), std::string::npos) << r.output;
}

TEST(CalibrateCommand, ImportFillsTheDeviceBlockFromTheLog) {
  const fs::path dir = fresh_dir("device");
  const std::string out = (dir / "p.yaml").string();
  const CliRun r = run_ddpsim("calibrate --import-nccl-tests '" + kData +
                              "p4d_a100_2x8_efa_tag_output.log' -o '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  const CalibrationProfile p = load_profile(out);
  EXPECT_EQ(p.device.name, "A100-SXM4-40GB");
  EXPECT_EQ(p.device.gpus, 8);
  EXPECT_EQ(p.device.nodes, 2);
  EXPECT_EQ(p.device.host, "nccl-tests-efa-worker-0");
  EXPECT_EQ(p.device.nccl, "2.8.3+cuda11.2");
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].device, "A100-SXM4-40GB");
  EXPECT_EQ(p.collectives[0].backend, "nccl 2.8.3+cuda11.2");
  EXPECT_EQ(p.collectives[0].gpus, 16);
  // A log of another GPU is refused into this profile, at the log's first rank line.
  const CliRun other = run_ddpsim("calibrate --import-nccl-tests '" + kData +
                                  "a3mega_h100_2x8_markdown.log' -o '" + out + "'");
  EXPECT_EQ(other.code, 2) << other.output;
  EXPECT_NE(other.output.find("a3mega_h100_2x8_markdown.log:12:1: measured on NVIDIA H100 80GB "
                              "HBM3, but"),
            std::string::npos)
      << other.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ddpsim
