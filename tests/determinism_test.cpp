// Determinism through the real binary: the same scenario simulated twice gives byte-identical
// results.json and trace.json (in different output folders), including the seeded random draws
// of stragglers and data-loading stalls; a sweep run with one worker process and with two gives a
// byte-identical results.csv. Results hold no wall-clock time, date, host name or output path.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = DDPSIM_SOURCE_DIR;
const std::string kBinary = DDPSIM_BINARY;

using ddpsim::testing::read_text;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("ddpsim_determinism_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  return dir;
}

int run_ddpsim(const std::string& args) {
  return ddpsim::testing::run_shell("'" + kBinary + "' " + args).code;
}

// Every random draw the simulator makes: lognormal stragglers redrawn per step, real data with
// read stalls, on two nodes so communication and loading contend.
const char* kRandomised =
    " --set stragglers.kind=lognormal --set stragglers.sigma=0.2"
    " --set stragglers.per_iteration=true --set cluster.nodes=2";

void expect_same_results(const std::string& scenario, const std::string& extra) {
  const fs::path a = fresh_dir("a"), b = fresh_dir("b");
  const std::string args = "simulate '" + scenario + "'" + extra;
  ASSERT_EQ(run_ddpsim(args + " -o '" + a.string() + "'"), 0) << args;
  ASSERT_EQ(run_ddpsim(args + " -o '" + b.string() + "'"), 0) << args;
  const std::string results = read_text(a / "results.json");
  ASSERT_GT(results.size(), 1000u);
  EXPECT_TRUE(results == read_text(b / "results.json")) << "results.json differs: " << args;
  EXPECT_TRUE(read_text(a / "trace.json") == read_text(b / "trace.json"))
      << "trace.json differs: " << args;
  // The Holistic Trace Analysis files: the same ranks, the same bytes.
  std::vector<std::string> ranks;
  for (const auto& entry : fs::directory_iterator(a / "hta")) {
    const std::string name = entry.path().filename().string();
    ranks.push_back(name);
    EXPECT_TRUE(read_text(entry.path()) == read_text(b / "hta" / name)) << name << ": " << args;
  }
  EXPECT_FALSE(ranks.empty());

  // Nothing that changes between runs: the output folder, the host, a date or a time of day.
  EXPECT_EQ(results.find(a.string()), std::string::npos);
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(results.find(std::string("\"") + host + "\""), std::string::npos) << host;
  EXPECT_FALSE(std::regex_search(results, std::regex(R"(20[0-9]{2}-[01][0-9]-[0-3][0-9])")));
  EXPECT_FALSE(std::regex_search(results, std::regex(R"([0-2][0-9]:[0-5][0-9]:[0-5][0-9])")));
}

TEST(Determinism, SameScenarioTwiceGivesByteIdenticalResults) {
  expect_same_results(kSourceDir + "/scenarios/default.yaml", "");
}

TEST(Determinism, SeededStragglersGiveByteIdenticalResults) {
  expect_same_results(kSourceDir + "/scenarios/default.yaml",
                      std::string(kRandomised) + " --set training.iterations=3");
}

TEST(Determinism, DataLoadingWithRandomStallsGivesByteIdenticalResults) {
  expect_same_results(kSourceDir + "/scenarios/data-loading.yaml",
                      " --set data.stall.probability=0.2 --set data.stall.duration=5ms"
                      " --set training.iterations=4");
}

TEST(Determinism, SweepWithOneOrTwoWorkersGivesByteIdenticalCsv) {
  const fs::path one = fresh_dir("sweep-j1"), two = fresh_dir("sweep-j2");
  const std::string args = "sweep '" + kSourceDir +
                           "/scenarios/default.yaml' --sweep cluster.nodes=1,2,3"
                           " --sweep sync.bucket_cap=5MiB,25MiB --set training.iterations=2";
  ASSERT_EQ(run_ddpsim(args + " -j 1 -o '" + one.string() + "'"), 0) << args;
  ASSERT_EQ(run_ddpsim(args + " -j 2 -o '" + two.string() + "'"), 0) << args;
  const std::string csv = read_text(one / "results.csv");
  // Header and six points.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7) << csv;
  EXPECT_TRUE(csv == read_text(two / "results.csv")) << "results.csv differs between -j 1 and -j 2";
}

}  // namespace
