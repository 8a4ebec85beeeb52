// sweep --uncertainty end to end through the ddpsim binary: results.csv gains the band columns
// with p10 <= p50 <= p90; every point sees the same draws (a point's band equals simulate
// --uncertainty's band of that point with the same seed, to the bit); the same seed gives the
// same bytes at -j 1 and -j 2, another seed other bands; without --uncertainty the file has no
// band column; merge refuses to join a sweep with bands to one without; the time estimate counts
// the draws. Resuming with bands:
// sweep_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "sim/sweep/results_csv.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

const testing::ScratchFolder kScratch("ddpsim-sweep-bands-test");

// ResNet-50 on DGX A100 nodes whose NVLink, NIC and compute efficiencies are defaults with
// ranges to draw, swept over one to four nodes (each run tens of milliseconds).
const char* kScenario = DDPSIM_SOURCE_DIR "/scenarios/default.yaml";
const std::vector<std::string> kSweep = {"--sweep", "cluster.nodes=1,2,4", "--set",
                                         "training.iterations=3"};

testing::Exited ddpsim(std::vector<std::string> args) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return testing::run_program(args, kScratch);
}

CsvTable sweep(const std::string& scenario, const std::string& out,
               std::vector<std::string> extra) {
  std::vector<std::string> args = {"sweep",         scenario,       "-o",  out,
                                   "--no-baseline", "--trace-gpus", "none"};
  args.insert(args.end(), kSweep.begin(), kSweep.end());
  args.insert(args.end(), extra.begin(), extra.end());
  const testing::Exited run = ddpsim(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string text = testing::read_text(out + "/results.csv");
  return parse_csv(text, out);
}

double cell(const CsvTable& t, size_t row, const std::string& column) {
  const int c = csv_column(t, column);
  EXPECT_GE(c, 0) << column;
  return c < 0 ? 0 : std::stod(t.rows[row][static_cast<size_t>(c)]);
}

class SweepBands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = kScratch.fresh(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  std::filesystem::path dir_;
  const std::string scenario_ = kScenario;
};

TEST_F(SweepBands, ColumnsAreOrderedBandsOfTheSameDrawsAsSimulate) {
  const CsvTable t = sweep(scenario_, (dir_ / "bands").string(), {"--uncertainty", "8", "-j", "2"});
  ASSERT_EQ(t.rows.size(), 3u);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    EXPECT_EQ(cell(t, r, "uncertainty_draws"), 8);
    for (const std::string figure : {"samples_per_second", "iteration_time_s"}) {
      EXPECT_LE(cell(t, r, figure + "_p10"), cell(t, r, figure + "_p50")) << figure;
      EXPECT_LE(cell(t, r, figure + "_p50"), cell(t, r, figure + "_p90")) << figure;
      // The defaults are sampled: a band of nonzero width.
      EXPECT_LT(cell(t, r, figure + "_p10"), cell(t, r, figure + "_p90")) << figure;
    }
    EXPECT_LE(cell(t, r, "exposed_comm_share_p10"), cell(t, r, "exposed_comm_share_p90"));
  }

  // The point at 2 nodes has the band simulate --uncertainty gives that scenario: the same
  // design (common random numbers), to the last bit.
  const std::string out = (dir_ / "simulate").string();
  const testing::Exited one =
      ddpsim({"simulate", scenario_, "--set", "cluster.nodes=2", "--set", "training.iterations=3",
              "-o", out, "--no-baseline", "--uncertainty", "8"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const nlohmann::json u = nlohmann::json::parse(testing::read_text(out + "/results.json"))
                               .at("result")
                               .at("uncertainty");
  for (const char* p : {"p10", "p50", "p90"}) {
    EXPECT_EQ(cell(t, 1, std::string("samples_per_second_") + p),
              u.at("samples_per_second").at(p).get<double>())
        << p;
    EXPECT_EQ(cell(t, 1, std::string("iteration_time_s_") + p),
              u.at("iteration_time").at(p).get<double>())
        << p;
  }
}

TEST_F(SweepBands, SameSeedSameBytesAnotherSeedOtherBands) {
  sweep(scenario_, (dir_ / "j1").string(), {"--uncertainty", "6", "--seed", "3", "-j", "1"});
  sweep(scenario_, (dir_ / "j2").string(), {"--uncertainty", "6", "--seed", "3", "-j", "2"});
  // -j 6 over 3 points: each point also runs 2 of its draws at a time.
  sweep(scenario_, (dir_ / "j6").string(), {"--uncertainty", "6", "--seed", "3", "-j", "6"});
  const std::string a = testing::read_text(dir_ / "j1" / "results.csv");
  EXPECT_EQ(a, testing::read_text(dir_ / "j2" / "results.csv"));
  EXPECT_EQ(a, testing::read_text(dir_ / "j6" / "results.csv"));
  const CsvTable seeded = parse_csv(a, "j1");
  const CsvTable other =
      sweep(scenario_, (dir_ / "seed4").string(), {"--uncertainty", "6", "--seed", "4"});
  EXPECT_NE(cell(seeded, 1, "samples_per_second_p10"), cell(other, 1, "samples_per_second_p10"));
  // The nominal figures do not depend on the draws.
  EXPECT_EQ(cell(seeded, 1, "samples_per_second"), cell(other, 1, "samples_per_second"));
}

TEST_F(SweepBands, WithoutUncertaintyNoBandColumnAndMergeKeepsThemApart) {
  const CsvTable plain = sweep(scenario_, (dir_ / "plain").string(), {"--shard", "0/2"});
  for (const std::string& column : band_columns()) EXPECT_LT(csv_column(plain, column), 0);
  sweep(scenario_, (dir_ / "banded").string(), {"--shard", "1/2", "--uncertainty", "4"});
  // The merge policy for differing columns (docs/results-csv.md): refused, exit 2.
  const testing::Exited merged =
      ddpsim({"merge", (dir_ / "plain").string(), (dir_ / "banded").string(), "-o",
              (dir_ / "merged").string()});
  EXPECT_EQ(merged.exit_code, 2) << merged.err;
  EXPECT_NE(merged.err.find("columns differ"), std::string::npos) << merged.err;
}

// The sweep's time estimate counts a point as its N + 1 runs: 2,000 points of default.yaml are
// about a minute of wall time alone (under the 10 min that asks for --yes), half an hour with 32
// draws each, and twice that with 64.
TEST_F(SweepBands, TheTimeEstimateCountsTheDraws) {
  std::string batches, caps;
  for (int b = 1; b <= 200; ++b) batches += (b > 1 ? "," : "") + std::to_string(b);
  for (int c = 1; c <= 10; ++c) caps += (c > 1 ? "," : "") + std::to_string(c) + "MiB";
  auto estimate_minutes = [&](const char* draws) {
    const testing::Exited run =
        ddpsim({"sweep", kScenario, "--sweep", "training.batch_per_gpu=" + batches, "--sweep",
                "sync.bucket_cap=" + caps, "-j", "1", "--uncertainty", draws, "-o",
                (dir_ / "long").string()});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(run.err, m, std::regex("2000 points, about (\\d+) min of wall")))
        << run.err;
    return m.empty() ? 0.0 : std::stod(m[1]);
  };
  const double with32 = estimate_minutes("32"), with64 = estimate_minutes("64");
  EXPECT_GT(with32, 10);
  EXPECT_NEAR(with64 / with32, 65.0 / 33, 0.1);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "long" / "results.csv"));
}

}  // namespace
}  // namespace ddpsim
