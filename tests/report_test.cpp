// Reports: `ddpsim report` on small sweeps draws exactly the plots the swept keys make
// meaningful, each a real non-empty PNG, with the number of series the data implies (read back
// from plots.json, which the script writes from the data it plotted), and a report.html that
// shows them all; with bands (sweep/simulate --uncertainty) the spans shaded are the results'.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/model/model_zoo.h"
#include "sim/sweep/results_csv.h"
#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;

const ddpsim::testing::ScratchFolder kScratch("ddpsim-report-test");
using nlohmann::json;

const char* kBase = R"(name: report-test
cluster:
  nodes: 1
  gpus_per_node: 4
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 25Gbps, latency: 5us}
model: {name: mlp, layers: [1024, 4096, 4096, 10]}
training: {batch_per_gpu: 32, iterations: 2, warmup: 1}
compute: {mode: roofline, efficiency: 0.5}
)";

using ddpsim::testing::Exited;

using ddpsim::testing::read_text;

Exited run(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) {
  return ddpsim::testing::run_program(args, kScratch, extra_env);
}

Exited ddpsim(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return run(args, env);
}

bool matplotlib_available() {
  return run({"/usr/bin/python3", "-c", "import matplotlib"}).exit_code == 0;
}

#define REQUIRE_MATPLOTLIB()                                                                     \
  if (!matplotlib_available())                                                                   \
  GTEST_SKIP() << "/usr/bin/python3 cannot import matplotlib (Debian python3-matplotlib is not " \
                  "installed): reports cannot be drawn here"

std::string temp_dir(const std::string& name) { return kScratch.fresh(name).string(); }

// Width and height from the PNG's IHDR chunk; {0, 0} when the file is not a PNG.
std::pair<int, int> png_size(const std::string& path) {
  const std::string data = read_text(path);
  if (data.size() < 24 || data.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 ||
      data.compare(12, 4, "IHDR") != 0)
    return {0, 0};
  auto be32 = [&](size_t at) {
    return (static_cast<unsigned char>(data[at]) << 24) |
           (static_cast<unsigned char>(data[at + 1]) << 16) |
           (static_cast<unsigned char>(data[at + 2]) << 8) |
           static_cast<unsigned char>(data[at + 3]);
  };
  return {static_cast<int>(be32(16)), static_cast<int>(be32(20))};
}

struct Report {
  json manifest;
  std::map<std::string, json> plots;  // by kind
  std::map<std::string, std::string> skipped;
  std::string html;
};

// Runs a sweep and its report; checks every drawn PNG is a real image referenced by the page.
// `extra`: more sweep options (--uncertainty).
Report sweep_and_report(const std::string& dir, const std::string& sweep_yaml,
                        const std::vector<std::string>& extra = {}) {
  Report report;
  std::ofstream(dir + "/s.yaml") << kBase << sweep_yaml;
  std::vector<std::string> args = {"sweep", dir + "/s.yaml", "-o", dir + "/out", "-j", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Exited sweep = ddpsim(args);
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  const Exited drawn = ddpsim({"report", dir + "/out"});
  EXPECT_EQ(drawn.exit_code, 0) << drawn.err;
  const std::string report_dir = dir + "/out/report";
  report.manifest = json::parse(read_text(report_dir + "/plots.json"));
  report.html = read_text(report_dir + "/report.html");
  for (const json& plot : report.manifest.at("plots")) {
    const std::string file = plot.at("file");
    const auto [width, height] = png_size(report_dir + "/" + file);
    EXPECT_GT(width, 300) << file;
    EXPECT_GT(height, 200) << file;
    EXPECT_GT(fs::file_size(report_dir + "/" + file), 5000u) << file;
    EXPECT_NE(report.html.find("src=\"" + file + "\""), std::string::npos) << file;
    // Every plot says what it is about (the model and cluster, from the results: never the
    // scenario file's name) and which profile it came from.
    const std::string title = plot.at("title");
    EXPECT_NE(title.find("mlp on "), std::string::npos) << title;
    EXPECT_EQ(title.find("report-test"), std::string::npos) << title;
    EXPECT_NE(title.find("profile: none, roofline at 50 % of peak"), std::string::npos) << title;
    report.plots[plot.at("kind")] = plot;
  }
  for (const json& skip : report.manifest.at("skipped"))
    report.skipped[skip.at("kind")] = skip.at("reason");
  return report;
}

// 12345.6 -> "12,346", as the page prints rates.
std::string thousands(double v) {
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.0f", v);
  std::string s = digits;
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

std::vector<std::pair<std::string, int>> series(const json& plot, const std::string& role = "") {
  std::vector<std::pair<std::string, int>> out;
  for (const json& s : plot.at("series"))
    if (role.empty() || s.at("role") == role) out.emplace_back(s.at("name"), s.at("points"));
  return out;
}

TEST(Report, ScalingByBucketSweepDrawsTheMeaningfulPlotsWithTheirSeries) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("scaling");
  const Report r = sweep_and_report(dir,
                                    "sweep:\n  cluster.nodes: [1, 2, 4]\n"
                                    "  sync.bucket_cap: [1MiB, 25MiB]\n");
  std::vector<std::string> drawn;
  for (const auto& [kind, plot] : r.plots) drawn.push_back(kind);
  EXPECT_EQ(drawn, (std::vector<std::string>{"bottleneck_map", "breakdown", "bucket_size",
                                             "comm_share", "link_heatmap", "scaling", "timeline"}));
  EXPECT_EQ(r.skipped.count("strategy"), 1u);
  EXPECT_EQ(r.skipped.count("data_loading"), 1u);

  // One throughput line per bucket cap over 3 cluster sizes; both share one single-GPU rate,
  // hence one ideal line.
  EXPECT_EQ(
      series(r.plots.at("scaling"), "measured"),
      (std::vector<std::pair<std::string, int>>{{"bucket_cap=1MiB", 3}, {"bucket_cap=25MiB", 3}}));
  EXPECT_EQ(series(r.plots.at("scaling"), "ideal").size(), 1u);
  // Six stacked components (data wait, forward, backward, exposed communication, straggler
  // wait, optimizer) over six bars.
  EXPECT_EQ(series(r.plots.at("breakdown")).size(), 6u);
  EXPECT_EQ(r.plots.at("breakdown").at("bars"), 6);
  for (const auto& [name, points] : series(r.plots.at("breakdown"))) EXPECT_EQ(points, 6) << name;
  // Total and exposed share for each bucket cap.
  EXPECT_EQ(series(r.plots.at("comm_share")).size(), 4u);
  // One bucket curve per cluster size, two caps each.
  EXPECT_EQ(series(r.plots.at("bucket_size")), (std::vector<std::pair<std::string, int>>{
                                                   {"4 GPUs", 2}, {"8 GPUs", 2}, {"16 GPUs", 2}}));
  // A 3 x 2 grid of cells, every point once.
  EXPECT_EQ(r.plots.at("bottleneck_map").at("cells"), 6);
  int labelled = 0;
  for (const auto& [name, points] : series(r.plots.at("bottleneck_map"))) labelled += points;
  EXPECT_EQ(labelled, 6);
  // The timeline shows the largest point (16 GPUs on 4 nodes, the last one), its 4 traced GPUs
  // (the first of each node), each with a compute lane and a communication lane, and links the
  // Chrome trace.
  const json& timeline = r.plots.at("timeline");
  EXPECT_EQ(timeline.at("point"), 5);
  EXPECT_EQ(series(timeline).size(), 8u);
  const std::string chrome = timeline.at("chrome_trace");
  EXPECT_TRUE(fs::is_regular_file(chrome)) << chrome;
  EXPECT_NE(r.html.find(fs::path(chrome).filename().string()), std::string::npos);
  // The link heat map of the same point: 4 node rows; NVLink, PCIe and NIC columns in both
  // directions; no link outside the nodes carries bytes (one leaf).
  const json& heat = r.plots.at("link_heatmap");
  EXPECT_EQ(heat.at("point"), 5);
  EXPECT_EQ(heat.at("nodes"), 4);
  EXPECT_EQ(series(heat), (std::vector<std::pair<std::string, int>>{{"nvlink tx", 4},
                                                                    {"nvlink rx", 4},
                                                                    {"pcie tx", 4},
                                                                    {"pcie rx", 4},
                                                                    {"nic tx", 4},
                                                                    {"nic rx", 4}}));
}

TEST(Report, StrategySweepWithRealDataDrawsStrategyAndDataLoadingPlots) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("strategy");
  const Report r =
      sweep_and_report(dir,
                       "data:\n  sample_bytes: 110KB\n  decoded_bytes: 150528B\n"
                       "  storage: {kind: shared, bandwidth: 2GB/s}\n"
                       "  decode: {kind: cpu, workers_per_gpu: 2, samples_per_core: 400}\n"
                       "sweep:\n  sync.strategy: [allreduce, ps]\n  cluster.nodes: [1, 2, 4]\n");
  ASSERT_EQ(r.plots.count("strategy"), 1u);
  EXPECT_EQ(series(r.plots.at("strategy")), (std::vector<std::pair<std::string, int>>{
                                                {"all-reduce ring", 3}, {"PS x1 dedicated", 3}}));
  EXPECT_EQ(r.plots.at("strategy").at("groups"), 3);
  ASSERT_EQ(r.plots.count("data_loading"), 1u);
  // Pipeline capacity, training demand and achieved rate, for each strategy.
  EXPECT_EQ(series(r.plots.at("data_loading")).size(), 6u);
  for (const auto& [name, points] : series(r.plots.at("data_loading"))) EXPECT_EQ(points, 3);
  EXPECT_EQ(r.skipped.count("bucket_size"), 1u);
  // The shared store is a link outside the nodes with bytes: the heat map's bars show it.
  ASSERT_EQ(r.plots.count("link_heatmap"), 1u);
  const auto links = series(r.plots.at("link_heatmap"), "fabric link");
  EXPECT_NE(std::find(links.begin(), links.end(), std::make_pair(std::string("storage tx"), 1)),
            links.end());
}

// A sweep with bands: the scaling and the strategy plot shade p10-p90 of every point, and what
// they shade is the sweep's own band columns (plots.json records the spans drawn); the page
// names the band. The same sweep without --uncertainty shades nothing.
TEST(Report, SweepWithBandsShadesScalingAndStrategyPlots) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("bands");
  const std::string sweep = "sweep:\n  sync.strategy: [allreduce, ps]\n  cluster.nodes: [1, 2]\n";
  const Report r = sweep_and_report(dir, sweep, {"--uncertainty", "6"});
  const ddpsim::CsvTable csv = ddpsim::parse_csv(read_text(dir + "/out/results.csv"), "csv");
  auto cell = [&](const std::vector<std::string>& row, const std::string& name) {
    return row.at(static_cast<size_t>(ddpsim::csv_column(csv, name)));
  };
  // Per (strategy, GPUs): the CSV's p10 and p90.
  std::map<std::pair<std::string, int>, std::pair<double, double>> csv_band;
  for (const auto& row : csv.rows)
    csv_band[{cell(row, "strategy"), std::stoi(cell(row, "gpus"))}] = {
        std::stod(cell(row, "samples_per_second_p10")),
        std::stod(cell(row, "samples_per_second_p90"))};
  ASSERT_EQ(csv_band.size(), 4u);
  const std::string label = "p10-p90 over 6 draws of the defaults x the measured model error";
  ASSERT_EQ(r.plots.count("scaling"), 1u);
  const json& scaling = r.plots.at("scaling");
  EXPECT_EQ(scaling.at("band"), label);
  EXPECT_EQ(series(scaling, "band"),
            (std::vector<std::pair<std::string, int>>{{label + ", strategy=allreduce", 2},
                                                      {label + ", strategy=ps", 2}}));
  ASSERT_EQ(scaling.at("bands").size(), 2u);
  for (const json& band : scaling.at("bands")) {
    const std::string strategy = band.at("name") == "strategy=allreduce" ? "allreduce" : "ps";
    for (size_t k = 0; k < band.at("gpus").size(); ++k) {
      const auto [p10, p90] = csv_band.at({strategy, band.at("gpus")[k].get<int>()});
      EXPECT_EQ(band.at("p10")[k].get<double>(), p10);
      EXPECT_EQ(band.at("p90")[k].get<double>(), p90);
      EXPECT_LE(band.at("p10")[k].get<double>(), band.at("p50")[k].get<double>());
      EXPECT_LE(band.at("p50")[k].get<double>(), band.at("p90")[k].get<double>());
    }
  }
  ASSERT_EQ(r.plots.count("strategy"), 1u);
  const json& strategy = r.plots.at("strategy");
  EXPECT_EQ(series(strategy, "band"), (std::vector<std::pair<std::string, int>>{{label, 4}}));
  ASSERT_EQ(strategy.at("bands").size(), 2u);
  EXPECT_EQ(strategy.at("bands")[0].at("name"), "all-reduce ring");
  EXPECT_EQ(strategy.at("bands")[0].at("p10")[1].get<double>(),
            csv_band.at({"allreduce", 8}).first);
  EXPECT_NE(r.html.find("<tr><th>Band</th><td>" + label), std::string::npos) << r.html;
  EXPECT_NE(r.html.find("<th>p10 - p90</th>"), std::string::npos);

  const Report plain = sweep_and_report(temp_dir("no-bands"), sweep);
  for (const char* kind : {"scaling", "strategy"}) {
    ASSERT_EQ(plain.plots.count(kind), 1u) << kind;
    EXPECT_FALSE(plain.plots.at(kind).contains("bands")) << kind;
    EXPECT_TRUE(series(plain.plots.at(kind), "band").empty()) << kind;
  }
  EXPECT_EQ(plain.html.find("<tr><th>Band</th>"), std::string::npos);
}

// simulate --uncertainty: the page gives the band and the input that moves throughput most,
// with the measurement that pins it, from result.uncertainty.
TEST(Report, SimulateWithUncertaintyNamesTheBandAndTheTopInfluence) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("single-bands");
  std::ofstream(dir + "/s.yaml") << kBase;
  ASSERT_EQ(
      ddpsim({"simulate", dir + "/s.yaml", "-o", dir + "/out", "--uncertainty", "4"}).exit_code, 0);
  const Exited drawn = ddpsim({"report", dir + "/out"});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const json u = json::parse(read_text(dir + "/out/results.json")).at("result").at("uncertainty");
  const std::string html = read_text(dir + "/out/report/report.html");
  EXPECT_NE(html.find("<tr><th>Band</th><td>p10-p90 over 4 draws of the defaults x the measured "
                      "model error; best point: p10 " +
                      thousands(u.at("samples_per_second").at("p10")) + " - p90 " +
                      thousands(u.at("samples_per_second").at("p90")) + " samples/s</td></tr>"),
            std::string::npos)
      << html.substr(0, 3000);
  ASSERT_FALSE(u.at("influences").empty());
  const json& top = u.at("influences").at(0);
  EXPECT_NE(html.find("<tr><th>Top influence</th><td>" + top.at("label").get<std::string>() + " (" +
                      top.at("input").get<std::string>() +
                      "): " + thousands(top.at("samples_per_second_low")) + " - " +
                      thousands(top.at("samples_per_second_high"))),
            std::string::npos)
      << html.substr(0, 3000);
}

TEST(Report, SingleSimulateFolderGetsBreakdownAndTimeline) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("single");
  std::ofstream(dir + "/s.yaml") << kBase;
  ASSERT_EQ(ddpsim({"simulate", dir + "/s.yaml", "-o", dir + "/out"}).exit_code, 0);
  const Exited drawn = ddpsim({"report", dir + "/out"});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const json manifest = json::parse(read_text(dir + "/out/report/plots.json"));
  std::vector<std::string> kinds;
  for (const json& p : manifest.at("plots")) kinds.push_back(p.at("kind"));
  // One node of 4 GPUs: NVLink carries the all-reduce, so the heat map has a row to show.
  EXPECT_EQ(kinds, (std::vector<std::string>{"breakdown", "timeline", "link_heatmap"}));
  // The caption counts the parts the chart stacks.
  EXPECT_EQ(manifest.at("plots").at(0).at("caption"),
            "Where one optimizer step goes, averaged over GPUs: the six parts (data wait, "
            "forward, backward, exposed communication, waiting for a slower GPU, optimizer) add "
            "up to the iteration time.");
}

// The top of the page says what a reviewer asks first: which cluster, which model, the best
// point, which ddpsim and when; the same results give the same bytes (the date comes from
// SOURCE_DATE_EPOCH when set, else from the results file, never from the clock).
TEST(Report, PageNamesClusterModelBestPointVersionAndDateAndIsReproducible) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("facts");
  std::ofstream(dir + "/s.yaml") << kBase;
  ASSERT_EQ(ddpsim({"simulate", dir + "/s.yaml", "-o", dir + "/out"}).exit_code, 0);
  const json doc = json::parse(read_text(dir + "/out/results.json"));
  const double rate = doc.at("result").at("samples_per_second");
  const double efficiency = doc.at("result").at("scaling_efficiency");
  const std::vector<std::string> epoch = {"SOURCE_DATE_EPOCH=1767225600"};  // 2026-01-01
  for (const char* out : {"/r1", "/r2"}) {
    const Exited drawn = ddpsim({"report", dir + "/out", "-o", dir + out}, epoch);
    ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  }
  const std::string html = read_text(dir + "/r1/report.html");
  auto fact = [&](const std::string& name, const std::string& value) {
    EXPECT_NE(html.find("<tr><th>" + name + "</th><td>" + value + "</td></tr>"), std::string::npos)
        << name << ": " << value << "\n"
        << html.substr(0, 2000);
  };
  fact("Cluster", "1 node x 4 v100-sxm2-16gb (4 GPUs)");
  fact("Model", "mlp; profile: none, roofline at 50 % of peak");
  char best[200];
  std::snprintf(best, sizeof best,
                "point 0 (4 GPUs): %s samples/s, scaling efficiency %.1f %%, %s (highest "
                "throughput)",
                thousands(rate).c_str(), 100 * efficiency,
                doc.at("result").at("bottleneck").get<std::string>().c_str());
  fact("Best point", best);
  const std::string commit = doc.at("provenance").at("source_commit");
  const bool dirty = commit.size() > 6 && commit.compare(commit.size() - 6, 6, "-dirty") == 0;
  fact("ddpsim", doc.at("provenance").at("ddpsim_version").get<std::string>() + " (commit " +
                     commit.substr(0, 12) + (dirty ? "-dirty" : "") + ")");
  fact("Results written", "2026-01-01");
  // Before the first chart.
  EXPECT_LT(html.find("Best point"), html.find("<figure"));
  for (const char* file : {"report.html", "breakdown.png", "timeline.png", "plots.json"})
    EXPECT_EQ(read_text(dir + "/r1/" + file), read_text(dir + "/r2/" + file)) << file;
}

// A point with more traced GPUs than a chart can show one by one (16 nodes: 16 traced) is
// summarised per node group: 8 groups of 2 nodes, each the slowest traced GPU's lanes, and the
// chart stays a screen tall instead of growing 0.35 inch per GPU lane.
TEST(Report, ATimelineOfManyNodesIsSummarisedPerNodeGroup) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("groups");
  std::ofstream(dir + "/s.yaml") << kBase;
  ASSERT_EQ(ddpsim({"simulate", dir + "/s.yaml", "-o", dir + "/out", "--no-baseline", "--set",
                    "cluster.nodes=16", "--set", "cluster.gpus_per_node=1"})
                .exit_code,
            0);
  const Exited drawn = ddpsim({"report", dir + "/out"});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const json manifest = json::parse(read_text(dir + "/out/report/plots.json"));
  json timeline;
  for (const json& p : manifest.at("plots"))
    if (p.at("kind") == "timeline") timeline = p;
  ASSERT_FALSE(timeline.is_null());
  EXPECT_EQ(timeline.at("traced_gpus"), 16);
  EXPECT_EQ(timeline.at("groups"), 8);
  EXPECT_EQ(series(timeline).size(), 16u);  // compute and comm lanes of 8 GPUs
  EXPECT_NE(timeline.at("caption").get<std::string>().find("16 GPUs were traced"),
            std::string::npos);
  const auto [width, height] = png_size(dir + "/out/report/timeline.png");
  EXPECT_GT(width, 1000);
  EXPECT_LT(height, 1400);
}

// results.json says how big the model is: ResNet-50 as torchvision counts it (25,557,032
// parameters, all trainable) and the zoo's forward FLOPs per sample, exactly.
TEST(ResultsJson, CarriesTheModelsParameterCountsAndFlopsPerSample) {
  const std::string dir = temp_dir("model-counts");
  std::ofstream(dir + "/s.yaml") << R"(name: counts
cluster:
  nodes: 1
  gpus_per_node: 1
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
model: {name: resnet50}
training: {batch_per_gpu: 32, iterations: 2, warmup: 1}
compute: {mode: roofline, efficiency: 0.5}
)";
  const Exited run = ddpsim({"simulate", dir + "/s.yaml", "-o", dir + "/out", "--no-baseline"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = json::parse(read_text(dir + "/out/results.json")).at("result");
  EXPECT_EQ(result.at("model_parameters").get<int64_t>(), 25'557'032);
  EXPECT_EQ(result.at("model_trainable_parameters").get<int64_t>(), 25'557'032);
  ddpsim::ModelSpec spec;
  spec.name = "resnet50";
  ddpsim::Model model;
  std::string error;
  ASSERT_TRUE(ddpsim::build_model(spec, &model, &error)) << error;
  EXPECT_EQ(result.at("model_forward_flops_per_sample").get<double>(), model.fwd_flops());
  // torchvision's 4.09 G multiply-adds, two FLOPs each (within the zoo's published tolerance).
  EXPECT_NEAR(model.fwd_flops(), 2 * 4.09e9, 0.03 * 2 * 4.09e9);
}

TEST(Report, FolderWithoutResultsIsABadInput) {
  REQUIRE_MATPLOTLIB();
  const std::string dir = temp_dir("empty");
  const Exited drawn = ddpsim({"report", dir});
  EXPECT_EQ(drawn.exit_code, 2);
  EXPECT_NE(drawn.err.find("no results.csv"), std::string::npos) << drawn.err;
}

TEST(Report, MissingInterpreterIsAClearMessage) {
  const std::string dir = temp_dir("no-python");
  const Exited drawn = ddpsim({"report", dir}, {"DDPSIM_PYTHON=/nonexistent/python3"});
  EXPECT_EQ(drawn.exit_code, 1);
  EXPECT_NE(drawn.err.find("python3-matplotlib"), std::string::npos) << drawn.err;
}

}  // namespace
