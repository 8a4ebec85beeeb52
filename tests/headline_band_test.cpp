// The headline lies inside its band wherever ddpsim prints one (docs/model-error.md): every
// bundled scenario under `simulate --uncertainty`, every point of a banded sweep, every cell of
// `compare --uncertainty`; the band is never of zero width (the model's error stays when nothing
// is drawn); and a compare's star goes to the strategy its pair lines support, with a decided
// verdict that does not change between 32 and 128 draws.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "sim/sweep/results_csv.h"
#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
using ddpsim::testing::read_text;
using ddpsim::testing::run_shell;

const std::string kSourceDir = DDPSIM_SOURCE_DIR;
const std::string kBinary = DDPSIM_BINARY;
ddpsim::testing::ScratchFolder scratch("ddpsim-headline");

void expect_inside(const nlohmann::json& band, double headline, const std::string& what) {
  const double p10 = band.at("p10"), p50 = band.at("p50"), p90 = band.at("p90");
  EXPECT_EQ(headline, p50) << what;
  EXPECT_LT(p10, p50) << what << ": a band of zero width";
  EXPECT_LE(p50, p90) << what;
  EXPECT_LT(p10, p90) << what;
}

TEST(HeadlineBand, EveryBundledScenarioLeadsWithTheMedianOfItsBand) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    if (read_text(entry.path()).find("\nsweep:") != std::string::npos) continue;
    const std::string name = entry.path().stem().string();
    const fs::path out = scratch.fresh(name);
    const auto run = run_shell("cd '" + kSourceDir + "' && '" + kBinary + "' simulate '" +
                               entry.path().string() + "' --uncertainty 4 -j 2 --no-baseline -o '" +
                               out.string() + "'");
    ASSERT_EQ(run.code, 0) << run.output;
    const auto doc = nlohmann::json::parse(read_text(out / "results.json"));
    const auto& result = doc.at("result");
    expect_inside(result.at("uncertainty").at("samples_per_second"),
                  result.at("headline").at("samples_per_second"), name + " samples/s");
    expect_inside(result.at("uncertainty").at("iteration_time"),
                  result.at("headline").at("iteration_time"), name + " iteration time");
    EXPECT_TRUE(result.at("uncertainty").at("model_error").at("known")) << name;
    EXPECT_EQ(result.at("nominal").at("samples_per_second"), result.at("samples_per_second"));
    // The summary leads with the median and says what the breakdown describes.
    EXPECT_NE(run.output.find("median of 4 draws"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("nominal run"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("model error"), std::string::npos) << run.output;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(HeadlineBand, EverySweepPointLeadsWithTheMedianOfItsBand) {
  const fs::path out = scratch.fresh("sweep");
  const auto run =
      run_shell("cd '" + kSourceDir + "' && '" + kBinary +
                "' sweep scenarios/scaling-resnet50.yaml --uncertainty 4 -j 2 --yes -o '" +
                out.string() + "'");
  ASSERT_EQ(run.code, 0) << run.output;
  const ddpsim::CsvTable t = ddpsim::parse_csv(read_text(out / "results.csv"), "results.csv");
  ASSERT_GE(t.rows.size(), 2u);
  auto cell = [&](size_t r, const char* column) {
    const int c = ddpsim::csv_column(t, column);
    EXPECT_GE(c, 0) << column;
    return std::stod(t.rows[r][static_cast<size_t>(c)]);
  };
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const double p10 = cell(r, "samples_per_second_p10"), p50 = cell(r, "samples_per_second_p50");
    const double p90 = cell(r, "samples_per_second_p90");
    EXPECT_LT(p10, p50) << "point " << r;
    EXPECT_LE(p50, p90) << "point " << r;
    // The table leads each point with its median (one decimal), not the nominal run.
    char printed[64];
    std::snprintf(printed, sizeof printed, "%.1f", p50);
    EXPECT_NE(run.output.find(printed), std::string::npos) << printed << "\n" << run.output;
  }
  EXPECT_NE(run.output.find("samples/s p50"), std::string::npos) << run.output;
}

struct Pair {
  std::string leader, other;
  bool decided = false;
};

// The pair lines and the starred strategy of a one-row compare table.
std::map<std::string, Pair> pairs_of(const std::string& output, std::string* star) {
  std::map<std::string, Pair> pairs;
  const std::regex line(R"(  (\S+) faster than (\S+) in [0-9.]+ % of worlds .*: (\w+))");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it) {
    const std::string a = (*it)[1], b = (*it)[2];
    pairs[std::min(a, b) + "/" + std::max(a, b)] = {a, b, (*it)[3] == "decided"};
  }
  std::smatch m;
  const std::regex starred(R"(\n\S+\s+scenario\s+(.*)\n)");
  if (std::regex_search(output, m, starred)) {
    const std::string row = m[1];
    const std::regex cell(R"((\S+) \(\d+%\) \[[^\]]+\](\*?))");
    int k = 0;
    for (std::sregex_iterator it(row.begin(), row.end(), cell), end; it != end; ++it, ++k)
      if ((*it)[2] == "*") *star = std::to_string(k);
  }
  return pairs;
}

TEST(HeadlineBand, CompareStarsWhatItsPairsSupportAndDecidedVerdictsHold) {
  const std::vector<std::string> strategies = {"ring", "hierarchical", "ps:2"};
  std::map<int, std::map<std::string, Pair>> by_draws;
  for (int draws : {32, 128}) {
    const auto run = run_shell("cd '" + kSourceDir + "' && '" + kBinary +
                               "' compare scenarios/default.yaml --strategies ring,hierarchical,"
                               "ps:2 -j 2 --uncertainty " +
                               std::to_string(draws));
    ASSERT_EQ(run.code, 0) << run.output;
    std::string star;
    by_draws[draws] = pairs_of(run.output, &star);
    ASSERT_EQ(by_draws[draws].size(), 3u) << run.output;
    ASSERT_FALSE(star.empty()) << run.output;
    // The starred strategy leads every pair it is in (or the output says none does).
    const std::string starred = strategies.at(std::stoul(star));
    if (run.output.find("no strategy leads every pair") == std::string::npos)
      for (const auto& [key, p] : by_draws[draws])
        if (p.other == starred) ADD_FAILURE() << starred << " is starred but loses " << key;
  }
  for (const auto& [key, p] : by_draws[32]) {
    if (!p.decided) continue;
    const Pair& q = by_draws[128].at(key);
    EXPECT_EQ(p.leader, q.leader) << key;
    EXPECT_TRUE(q.decided) << key << " decided at 32 draws, not at 128";
  }
}

}  // namespace
