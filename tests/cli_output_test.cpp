// What the commands print: options written in any order, defaults in --help, tables as JSON and
// CSV for programs, one unit family for sizes, and "not computed" (never 0 %) for a scaling
// efficiency that --no-baseline did not compute, in the table, results.json, results.csv and the
// report.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "sim/sweep/results_csv.h"
#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
using ddpsim::testing::Exited;
using ddpsim::testing::read_text;
using nlohmann::json;

const ddpsim::testing::ScratchFolder kScratch("ddpsim-cli-output-test");
const std::string kSource = DDPSIM_SOURCE_DIR;

Exited ddpsim(std::vector<std::string> args) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return ddpsim::testing::run_program(args, kScratch);
}

// 2 nodes x 2 V100, an MLP, 2 steps: seconds per run.
const std::string kScenario = read_text(kSource + "/tests/data/small_cluster.yaml");

std::string scenario_file(const std::string& folder) {
  const fs::path dir = kScratch.fresh(folder);
  std::ofstream(dir / "s.yaml") << kScenario;
  return (dir / "s.yaml").string();
}

// The header, then the rows, of CSV text.
std::vector<std::vector<std::string>> csv_cells(const std::string& text) {
  ddpsim::CsvTable table = ddpsim::parse_csv(text, "<stdout>");
  std::vector<std::vector<std::string>> rows = {table.header};
  rows.insert(rows.end(), table.rows.begin(), table.rows.end());
  return rows;
}

// ---------------------------------------------------------------- options in any order

TEST(CliOptions, SetAndSweepBeforeTheScenarioLeaveItToThePositional) {
  const std::string file = scenario_file("order");
  const std::string out = fs::path(file).parent_path() / "out";
  const Exited before =
      ddpsim({"simulate", "--set", "cluster.nodes=1", "--set", "training.batch_per_gpu=16", file,
              "-o", out, "--no-baseline", "--json"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  const json doc = json::parse(before.out);
  EXPECT_EQ(doc["scenario"]["cluster"]["nodes"], 1);
  EXPECT_EQ(doc["scenario"]["training"]["batch_per_gpu"], 16);

  const Exited sweep = ddpsim(
      {"sweep", "--sweep", "cluster.nodes=1,2", "--set", "training.iterations=2", file, "--list"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("cluster.nodes=1"), std::string::npos) << sweep.out;
  EXPECT_NE(sweep.out.find("cluster.nodes=2"), std::string::npos) << sweep.out;

  // Two words after one --set are a mistake said as such, not a missing scenario.
  const Exited extra = ddpsim({"simulate", file, "--set", "cluster.nodes=1", "cluster.nodes=2"});
  EXPECT_EQ(extra.exit_code, 2);
  EXPECT_EQ(extra.err,
            "error: The following argument was not expected: cluster.nodes=2 (see --help)\n");
}

TEST(CliOptions, HelpShowsEveryDefault) {
  const Exited simulate = ddpsim({"simulate", "--help"});
  EXPECT_EQ(simulate.exit_code, 0);
  EXPECT_NE(simulate.out.find("--trace-gpus TEXT:auto|all|none|RANKS=auto"), std::string::npos)
      << simulate.out;
  EXPECT_NE(simulate.out.find("--max-wall FLOAT:POSITIVE=0"), std::string::npos) << simulate.out;
  const Exited sweep = ddpsim({"sweep", "--help"});
  EXPECT_NE(sweep.out.find("-j,--jobs INT:NONNEGATIVE=0"), std::string::npos) << sweep.out;
  const Exited bench = ddpsim({"bench", "--help"});
  EXPECT_NE(bench.out.find("--gpus INT=[8,64,512,4096,16384,131072]"), std::string::npos)
      << bench.out;
  EXPECT_NE(bench.out.find("--model TEXT=resnet50"), std::string::npos) << bench.out;
  const Exited calibrate = ddpsim({"calibrate", "--help"});
  EXPECT_NE(calibrate.out.find("--repeats INT:POSITIVE=20"), std::string::npos) << calibrate.out;
  EXPECT_NE(calibrate.out.find("=0.03"), std::string::npos) << calibrate.out;
}

// ---------------------------------------------------------------- --json and --csv

TEST(CliTables, ModelsAndGpusPrintTheSameRowsAsJsonAndCsv) {
  for (const char* command : {"models", "gpus"}) {
    const Exited text = ddpsim({command});
    const Exited as_json = ddpsim({command, "--json"});
    const Exited as_csv = ddpsim({command, "--csv"});
    ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
    ASSERT_EQ(as_csv.exit_code, 0) << as_csv.err;
    const json rows = json::parse(as_json.out);
    const auto cells = csv_cells(as_csv.out);
    ASSERT_GT(rows.size(), 10u) << command;
    ASSERT_EQ(cells.size(), rows.size() + 1) << command;
    const std::string key = command == std::string("models") ? "model" : "gpu";
    EXPECT_EQ(cells[0][0], key);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(cells[i + 1][0], rows[i][key].get<std::string>());
      // Every row of the human table is there too.
      EXPECT_NE(text.out.find(rows[i][key].get<std::string>()), std::string::npos);
    }
    EXPECT_EQ(ddpsim({command, "--json", "--csv"}).exit_code, 2) << command;
  }
  const json models = json::parse(ddpsim({"models", "--json"}).out);
  const json& resnet = models[0];
  EXPECT_EQ(resnet["model"], "resnet50");
  EXPECT_EQ(resnet["parameters"], 25557032);  // torchvision resnet50
  EXPECT_EQ(resnet["sample_unit"], "images");
  const json gpus = json::parse(ddpsim({"gpus", "--json"}).out);
  bool found = false;
  for (const json& g : gpus) {
    if (g["gpu"] != "a100-sxm-40gb") continue;
    found = true;
    EXPECT_EQ(g["fp16_flops"].get<double>(), 312e12);
    EXPECT_EQ(g["memory_bytes"].get<double>(), 40.0 * 1024 * 1024 * 1024);
    EXPECT_EQ(g["hbm_bandwidth_bytes_per_s"].get<double>(), 1555e9);
    EXPECT_EQ(g["fp8_flops"].get<double>(), 0);
  }
  EXPECT_TRUE(found);
  // Today's clusters: Blackwell and MI300X, with their dense fp8 rates.
  std::set<std::string> listed;
  for (const json& g : gpus) {
    listed.insert(g["gpu"].get<std::string>());
    if (g["gpu"] == "gb200-186gb") {
      EXPECT_EQ(g["fp8_flops"].get<double>(), 5e15);
    }
    if (g["gpu"] == "mi300x-192gb") {
      EXPECT_EQ(g["fp8_flops"].get<double>(), 2614.9e12);
    }
  }
  for (const char* key : {"b200-sxm-180gb", "gb200-186gb", "mi300x-192gb"})
    EXPECT_EQ(listed.count(key), 1u) << key;
}

TEST(CliTables, DataloadPrintsJsonAndCsvWithTheTextTablesNumbers) {
  const std::string scenario = kSource + "/scenarios/data-loading.yaml";
  const std::vector<std::string> base = {"dataload", scenario, "--nodes", "1,2", "--no-synthetic"};
  auto with = [&](const char* flag) {
    std::vector<std::string> args = base;
    if (flag) args.push_back(flag);
    return ddpsim(args);
  };
  const Exited as_json = with("--json");
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json rows = json::parse(as_json.out);
  ASSERT_EQ(rows.size(), 2u);
  // README's worked example: 6 cores x 275 images/s per GPU on one node, then twice that.
  EXPECT_DOUBLE_EQ(rows[0]["loader_samples_per_second_per_gpu"].get<double>(), 1650);
  EXPECT_EQ(rows[0]["loader_limit"], "decode");
  EXPECT_DOUBLE_EQ(rows[1]["loader_samples_per_second_per_gpu"].get<double>(), 3300);
  EXPECT_EQ(rows[0]["bottleneck"], "data-loading-bound");
  EXPECT_TRUE(rows[0]["synthetic_samples_per_second"].is_null());
  const Exited as_csv = with("--csv");
  ASSERT_EQ(as_csv.exit_code, 0) << as_csv.err;
  const auto cells = csv_cells(as_csv.out);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0][3], "loader_samples_per_second_per_gpu");
  EXPECT_EQ(cells[1][3], "1650");
  EXPECT_EQ(cells[1][8], "");  // synthetic run skipped: empty, not 0
}

TEST(CliTables, BenchPrintsJsonAndCsv) {
  const Exited as_json =
      ddpsim({"bench", "--gpus", "8", "--model", "alexnet", "--scope", "full", "--json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json rows = json::parse(as_json.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["gpus"], 8);
  EXPECT_EQ(rows[0]["scope"], "full");
  EXPECT_EQ(rows[0]["status"], "ok");
  EXPECT_GT(rows[0]["samples_per_second"].get<double>(), 0);
  EXPECT_GT(rows[0]["peak_rss_bytes"].get<double>(), 1e6);
  const Exited as_csv =
      ddpsim({"bench", "--gpus", "8", "--model", "alexnet", "--scope", "full", "--csv"});
  ASSERT_EQ(as_csv.exit_code, 0) << as_csv.err;
  const auto cells = csv_cells(as_csv.out);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0][0], "gpus");
  EXPECT_EQ(cells[1][0], "8");
  EXPECT_EQ(cells[0][4], "status");
  EXPECT_EQ(cells[1][4], "ok");
  // The same iteration, deterministic: the same number in both forms.
  EXPECT_EQ(cells[0][6], "iteration_time_s");
  EXPECT_EQ(std::stod(cells[1][6]), rows[0]["iteration_time_s"].get<double>());
}

// bench --uncertainty: the two issue-25 rows, each a real command timed with its draws' CPU
// (a 512-GPU simulate of 2 draws and 12 tornado runs costs seconds of CPU, its parent alone a
// tenth of one). Figures, not a timed test: the verdict is printed, not asserted.
TEST(CliTables, BenchUncertaintyTimesSimulateAndCompareWithTheirDraws) {
  const Exited r = ddpsim({"bench", "--uncertainty", "2", "-j", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["command"], "simulate default.yaml at 64 nodes (512 GPUs)");
  EXPECT_EQ(rows[0]["target_wall_s"], 10);
  EXPECT_EQ(rows[1]["command"], "compare default.yaml, 5 strategies");
  EXPECT_EQ(rows[1]["target_wall_s"], 60);
  for (const json& row : rows) {
    EXPECT_EQ(row["status"], "ok") << row;
    EXPECT_EQ(row["draws"], 2);
    EXPECT_GT(row["wall_s"].get<double>(), 0);
    const std::string verdict = row["target"];
    EXPECT_EQ(verdict.find("<= "), 0u) << verdict;
  }
  EXPECT_GT(rows[0]["cpu_s"].get<double>(), 1.0) << rows[0];
}

// bench --workloads: the commands users run (issue 33), each timed with its children's CPU and
// peak memory and the machine's load; --heavy adds the rows that take minutes (not run here).
// The rows are these commands' own: a wrong path or flag in one fails its row.
TEST(CliTables, BenchWorkloadsTimesWhatUsersRun) {
  const Exited r = ddpsim({"bench", "--workloads", "-j", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["command"], "sweep point llama3-8b zero3, 128 GPUs");
  EXPECT_EQ(rows[1]["command"], "simulate gb200-nvl72.yaml");
  EXPECT_EQ(rows[2]["command"], "simulate bug-p28-inceptionv3-128 (PS, TCP) --headline-only");
  for (const json& row : rows) {
    EXPECT_EQ(row["status"], "ok") << row;
    EXPECT_GT(row["wall_s"].get<double>(), 0) << row;
    // A simulation's CPU is its children's (a sweep point and a simulate run in forked
    // processes): more than the parent's few milliseconds, and their memory beyond 10 MiB.
    EXPECT_GT(row["cpu_s"].get<double>(), 0.05) << row;
    EXPECT_GT(row["peak_rss_bytes"].get<double>(), 10.0 * 1024 * 1024) << row;
    EXPECT_GE(row["load_start"].get<double>(), 0) << row;
  }
  const Exited heavy_alone = ddpsim({"bench", "--heavy"});
  EXPECT_EQ(heavy_alone.exit_code, 2);
  EXPECT_NE(heavy_alone.err.find("--heavy adds rows to --workloads"), std::string::npos)
      << heavy_alone.err;
  const Exited both = ddpsim({"bench", "--workloads", "--uncertainty"});
  EXPECT_EQ(both.exit_code, 2);
}

TEST(CliTables, BenchComparesSymmetricWithFull) {
  // 64 GPUs on one leaf: symmetric runs 2 of the 8 nodes; 8 GPUs (one node) cannot fold.
  const Exited r = ddpsim({"bench", "--gpus", "8,64", "--model", "alexnet", "--vs-full", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1]["scope"], "symmetric");
  EXPECT_EQ(rows[1]["status"], "n/a");
  EXPECT_EQ(rows[1]["error"], "the slice would be the whole cluster");
  EXPECT_EQ(rows[2]["scope"], "full");
  EXPECT_EQ(rows[3]["scope"], "symmetric");
  EXPECT_EQ(rows[3]["status"], "ok");
  EXPECT_EQ(rows[3]["simulated_nodes"], 2);
  EXPECT_LE(std::abs(rows[3]["vs_full"].get<double>()), 0.01) << rows[3];
  EXPECT_TRUE(rows[2]["vs_full"].is_null());
}

TEST(CliTables, BenchSetVariesItsScenario) {
  // Drawn stragglers fold as the expected slowest of the 64 GPUs' draws; uniform in [1, 1.3]
  // varies that slowest by about 0.4 % from seed to seed, so one seed's full run is close.
  const Exited r = ddpsim({"bench", "--gpus", "64", "--model", "alexnet", "--vs-full", "--set",
                           "stragglers.kind=uniform", "--set", "stragglers.max=1.3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1]["status"], "ok");
  EXPECT_LE(std::abs(rows[1]["vs_full"].get<double>()), 0.01) << rows[1];
  const Exited plain = ddpsim({"bench", "--gpus", "64", "--model", "alexnet", "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // The stragglers slow the step.
  EXPECT_GT(rows[0]["iteration_time_s"].get<double>(),
            json::parse(plain.out)[0]["iteration_time_s"].get<double>());
}

TEST(CliTables, BenchRunsShardedRowsFullAndSymmetric) {
  // Issue 27: a sharded bench (GPT-2 small, zero3 and fsdp-hybrid) folds like DDP's, exactly.
  for (const char* sharding : {"zero3", "fsdp-hybrid"}) {
    const Exited r =
        ddpsim({"bench", "--gpus", "64", "--model", "gpt2", "--vs-full", "--set",
                std::string("sync.sharding=") + sharding, "--set", "training.batch_per_gpu=1",
                "--set", "training.optimizer=adam", "--set", "training.precision=bf16", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json rows = json::parse(r.out);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0]["scope"], "full");
    EXPECT_EQ(rows[1]["scope"], "symmetric");
    EXPECT_EQ(rows[1]["status"], "ok") << rows[1];
    EXPECT_EQ(rows[1]["simulated_nodes"], 2);
    EXPECT_LE(std::abs(rows[1]["vs_full"].get<double>()), 0.01) << rows[1];
  }
  const Exited text = ddpsim({"bench", "--gpus", "64", "--model", "gpt2", "--scope", "symmetric",
                              "--set", "sync.sharding=zero1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("overlap, sharding zero1)"), std::string::npos) << text.out;
}

// ---------------------------------------------------------------- sizes and --no-baseline

TEST(CliSummary, SizesAreInOneBinaryUnitFamily) {
  const std::string file = scenario_file("units");
  const Exited r = ddpsim({"simulate", file, "-o", fs::path(file).parent_path() / "out",
                           "--no-baseline", "--set", "sync.bucket_cap=25MB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 25 MB is 23.8 MiB, not "25.0 MB" beside a "1.00 MiB" first bucket.
  EXPECT_NE(r.out.find("(cap 23.8 MiB, first 1.00 MiB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" GiB per GPU"), std::string::npos) << r.out;
  // Decimal units appear in bandwidths only (GB/s, Gbps), never as a size.
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"([0-9] [KMGT]B([^/]|$))"))) << r.out;
}

// The single-GPU baseline of a two-socket node, and a one-GPU dataload shape of it, run on one
// socket (one GPU cannot be split over two); the bundled scenarios of today's clusters simulate
// with their baseline.
TEST(CliSummary, TwoSocketNodesAndTheBlackwellAndMi300xScenariosHaveABaseline) {
  const std::string file = scenario_file("two-sockets");
  const Exited two = ddpsim({"simulate", file, "-o", fs::path(file).parent_path() / "out", "--set",
                             "cluster.host.sockets=2"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const Exited one_gpu = ddpsim({"dataload", kSource + "/scenarios/data-loading.yaml", "--set",
                                 "cluster.host.sockets=2", "--gpus", "1", "--no-synthetic"});
  EXPECT_EQ(one_gpu.exit_code, 0) << one_gpu.err;
  for (const char* name : {"gb200-nvl72", "mi300x-8"}) {
    const fs::path dir = kScratch.fresh(name);
    const Exited r = ddpsim({"simulate", kSource + "/scenarios/" + name + ".yaml", "-o",
                             (dir / "out").string(), "--set", "training.iterations=2"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const json result = json::parse(read_text(dir / "out" / "results.json"))["result"];
    EXPECT_GT(result["scaling_efficiency"].get<double>(), 0.5) << name;
    EXPECT_NE(result["bottleneck"], "memory-infeasible") << name;
  }
}

TEST(CliSummary, NoBaselineSaysNotComputedEverywhere) {
  const std::string file = scenario_file("no-baseline");
  const std::string dir = fs::path(file).parent_path();
  const Exited simulate = ddpsim({"simulate", file, "-o", dir + "/out", "--no-baseline"});
  ASSERT_EQ(simulate.exit_code, 0) << simulate.err;
  EXPECT_NE(simulate.out.find("(scaling efficiency not computed: --no-baseline)"),
            std::string::npos)
      << simulate.out;
  EXPECT_EQ(simulate.out.find("0.0 %)"), std::string::npos) << simulate.out;
  const json result = json::parse(read_text(dir + "/out/results.json"))["result"];
  EXPECT_TRUE(result["scaling_efficiency"].is_null());
  EXPECT_TRUE(result["single_gpu_samples_per_second"].is_null());

  const Exited sweep = ddpsim(
      {"sweep", file, "--sweep", "cluster.nodes=1,2", "-o", dir + "/sweep", "--no-baseline"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("not computed"), std::string::npos) << sweep.out;
  const auto cells = csv_cells(read_text(dir + "/sweep/results.csv"));
  const auto& header = cells[0];
  for (const char* name : {"scaling_efficiency", "single_gpu_samples_per_second"}) {
    const size_t c = std::find(header.begin(), header.end(), name) - header.begin();
    ASSERT_LT(c, header.size()) << name;
    for (size_t row = 1; row < cells.size(); ++row) EXPECT_EQ(cells[row][c], "") << name;
  }
  // With the baseline, the same columns hold numbers.
  const Exited with =
      ddpsim({"sweep", file, "--sweep", "cluster.nodes=1,2", "-o", dir + "/with-baseline"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const auto numbers = csv_cells(read_text(dir + "/with-baseline/results.csv"));
  const size_t c = std::find(header.begin(), header.end(), "scaling_efficiency") - header.begin();
  EXPECT_GT(std::stod(numbers[1][c]), 0.5);

  if (ddpsim::testing::run_shell("/usr/bin/python3 -c 'import matplotlib'").code != 0)
    GTEST_SKIP() << "no matplotlib for /usr/bin/python3: the report part is not checked";
  const Exited report = ddpsim({"report", dir + "/sweep"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_text(dir + "/sweep/report/report.html");
  EXPECT_NE(html.find("<td>not computed</td>"), std::string::npos);
  const json plots = json::parse(read_text(dir + "/sweep/report/plots.json"));
  for (const json& plot : plots["plots"]) {
    if (plot["kind"] != "scaling") continue;
    EXPECT_NE(plot["title"].get<std::string>().find("throughput"), std::string::npos);
    EXPECT_EQ(plot["efficiency"], "not computed");
  }
}

// --headline-only: the same headline as the plain run, without links or a timeline (what lets a
// large parameter-server or sharded run fold or merge a node's flows: tests/ps_lanes_test.cpp).
TEST(CliSummary, HeadlineOnlyGivesThePlainRunsHeadlineWithoutLinksOrTimeline) {
  const std::string file = scenario_file("headline-only");
  const std::string dir = fs::path(file).parent_path();
  const Exited plain = ddpsim({"simulate", file, "-o", dir + "/plain", "--no-baseline"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const Exited headline =
      ddpsim({"simulate", file, "-o", dir + "/headline", "--no-baseline", "--headline-only"});
  ASSERT_EQ(headline.exit_code, 0) << headline.err;
  const json a = json::parse(read_text(dir + "/plain/results.json"))["result"];
  const json b = json::parse(read_text(dir + "/headline/results.json"))["result"];
  for (const char* key : {"iteration_time_s", "samples_per_second", "comm_time_s"})
    EXPECT_NEAR(b[key].get<double>(), a[key].get<double>(), 1e-12 * a[key].get<double>()) << key;
  EXPECT_EQ(b["bottleneck"], a["bottleneck"]);
  EXPECT_FALSE(a["links"]["busiest"].empty());
  EXPECT_TRUE(b["links"]["busiest"].empty());
  EXPECT_NE(plain.out.find("busiest links"), std::string::npos) << plain.out;
  EXPECT_EQ(headline.out.find("busiest links"), std::string::npos) << headline.out;
  EXPECT_FALSE(json::parse(read_text(dir + "/plain/trace.json"))["traceEvents"].empty());
  EXPECT_TRUE(json::parse(read_text(dir + "/headline/trace.json"))["traceEvents"].empty());
  // A timeline asked for beside it is a contradiction, refused before anything runs.
  const Exited both =
      ddpsim({"simulate", file, "-o", dir + "/both", "--headline-only", "--trace-gpus", "all"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--trace-gpus excludes --headline-only"), std::string::npos) << both.err;
  EXPECT_FALSE(fs::exists(dir + "/both"));
}

}  // namespace
