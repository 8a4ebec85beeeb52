// Sweeps: expansion order and count, errors located at the sweep's key or value, shards, the CSV,
// and end to end through the ddpsim binary: -j 1 and -j 2 agree byte for byte, a sweep killed
// with SIGKILL resumes without losing or repeating a point (with bands too), and merged shards
// equal the whole. The band columns themselves: sweep_bands_test.cpp. (A little over 500 lines:
// the end-to-end runs share the spawn, CSV and resume helpers defined here.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/sweep/results_csv.h"
#include "sim/sweep/shard.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_spec.h"
#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

const testing::ScratchFolder kScratch("ddpsim-sweep-test");

// A small MLP on 4-GPU nodes: each point simulates in tens of milliseconds.
const char* kMlpScenario = R"(name: mlp-sweep
cluster:
  nodes: 1
  gpus_per_node: 4
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 25Gbps, latency: 5us}
model: {name: mlp, layers: [1024, 4096, 4096, 10]}
training: {batch_per_gpu: 32, iterations: 2, warmup: 1}
sweep:
  cluster.nodes: [1, 2, 4]
  sync.bucket_cap: [1MiB, 25MiB]
)";

std::string temp_dir(const std::string& name) { return kScratch.fresh(name).string(); }

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

using testing::read_text;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

InputError expect_input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError(SourceLocation{}, "");
}

// ------------------------------------------------------------------ expansion

TEST(SweepSpec, CartesianProductVariesTheFirstAxisSlowest) {
  const SweepSpec spec = parse_sweep_section(kMlpScenario, "s.yaml");
  ASSERT_EQ(spec.axes.size(), 2u);
  EXPECT_EQ(spec.point_count(), 6u);
  const std::vector<SweepPoint> points = expand_sweep(spec);
  ASSERT_EQ(points.size(), 6u);
  const std::vector<std::string> expected = {
      "cluster.nodes=1, sync.bucket_cap=1MiB", "cluster.nodes=1, sync.bucket_cap=25MiB",
      "cluster.nodes=2, sync.bucket_cap=1MiB", "cluster.nodes=2, sync.bucket_cap=25MiB",
      "cluster.nodes=4, sync.bucket_cap=1MiB", "cluster.nodes=4, sync.bucket_cap=25MiB"};
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, i);
    EXPECT_EQ(describe_point(points[i]), expected[i]);
  }
}

TEST(SweepSpec, PointCountIsTheProductOfAxisSizes) {
  SweepSpec spec;
  add_axis(&spec, parse_sweep_option("cluster.nodes=1,2,4,8,16"));
  add_axis(&spec, parse_sweep_option("sync.algorithm=ring,tree,hierarchical"));
  add_axis(&spec, parse_sweep_option("training.precision=fp32,fp16"));
  EXPECT_EQ(spec.point_count(), 30u);
  const auto points = expand_sweep(spec);
  ASSERT_EQ(points.size(), 30u);
  // The last axis is the least significant digit.
  EXPECT_EQ(describe_point(points[7]),
            "cluster.nodes=2, sync.algorithm=ring, training.precision=fp16");
  std::set<std::string> distinct;
  for (const auto& p : points) distinct.insert(describe_point(p));
  EXPECT_EQ(distinct.size(), 30u);
}

TEST(SweepSpec, CommandLineAxisReplacesTheFileAxisInPlaceAndNewKeysAppend) {
  SweepSpec spec = parse_sweep_section(kMlpScenario, "s.yaml");
  add_axis(&spec, parse_sweep_option("cluster.nodes=8,16"));
  add_axis(&spec, parse_sweep_option("sync.overlap=true,false"));
  ASSERT_EQ(spec.axes.size(), 3u);
  EXPECT_EQ(spec.axes[0].key, "cluster.nodes");
  EXPECT_EQ(spec.axes[0].values.size(), 2u);
  EXPECT_EQ(spec.axes[0].values[1].text, "16");
  EXPECT_EQ(spec.axes[2].key, "sync.overlap");
  EXPECT_EQ(spec.point_count(), 8u);
}

TEST(SweepSpec, OptionValuesSplitAtTopLevelCommasOnly) {
  const SweepAxis axis = parse_sweep_option("model.layers=[1024,10], [2048, 10],'a,b'");
  ASSERT_EQ(axis.values.size(), 3u);
  EXPECT_EQ(axis.values[0].text, "[1024, 10]");
  EXPECT_EQ(axis.values[1].text, "[2048, 10]");
  EXPECT_EQ(axis.values[2].text, "a,b");
}

TEST(SweepSpec, FileAndCommandLineSpellTheSameValueTheSame) {
  const SweepSpec file =
      parse_sweep_section("sweep:\n  model.layers: [[1024,10], \"25MiB\"]\n", "s.yaml");
  const SweepAxis option = parse_sweep_option("model.layers=[1024, 10],25MiB");
  ASSERT_EQ(file.axes.at(0).values.size(), 2u);
  EXPECT_EQ(file.axes[0].values[0].text, option.values[0].text);
  EXPECT_EQ(file.axes[0].values[1].text, option.values[1].text);
}

TEST(SweepSpec, MalformedSectionsAreErrorsAtTheirLineAndColumn) {
  struct Case {
    const char* yaml;
    int line, column;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"sweep: [1, 2]\n", 1, 8, "expected a mapping"},
      {"sweep:\n  cluster.nodes: 4\n", 2, 18, "expected a non-empty list"},
      {"sweep:\n  cluster.nodes: []\n", 2, 18, "an empty list"},
      {"sweep:\n  cluster.nodes: [1, 2, 1]\n", 2, 25, "appears twice"},
      {"sweep:\n  cluster.nodes: [1]\n  cluster.nodes: [2]\n", 3, 3, "given twice"},
      {"sweep:\n  cluster..nodes: [1]\n", 2, 3, "empty part"},
  };
  for (const Case& c : cases) {
    const InputError e = expect_input_error([&] { parse_sweep_section(c.yaml, "s.yaml"); });
    EXPECT_EQ(e.where().file, "s.yaml") << c.yaml;
    EXPECT_EQ(e.where().line, c.line) << c.yaml << e.what();
    EXPECT_EQ(e.where().column, c.column) << c.yaml << e.what();
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
  }
}

TEST(SweepSpec, MalformedOptionsAreErrors) {
  for (const char* text : {"cluster.nodes", "cluster.nodes=1,,2", "=1,2", "cluster.nodes=1,1"}) {
    const InputError e = expect_input_error([&] { parse_sweep_option(text); });
    EXPECT_EQ(e.where().file.rfind("<--sweep", 0), 0u) << text << ": " << e.what();
  }
}

// ------------------------------------------------------------------ plan: loader validation

TEST(SweepPlan, UnknownKeyIsAnErrorAtTheSweepKey) {
  const std::string dir = temp_dir("unknown-key");
  const std::string text = std::string(kMlpScenario) + "  cluster.nodez: [1, 2]\n";
  const std::string path = write(dir + "/s.yaml", text);
  const InputError e = expect_input_error([&] { plan_sweep(path, {}, {}, ""); });
  EXPECT_EQ(e.where().file, path);
  EXPECT_EQ(e.where().line, 14);
  EXPECT_EQ(e.where().column, 3);
  EXPECT_NE(std::string(e.what()).find("unknown key 'nodez'"), std::string::npos) << e.what();
}

TEST(SweepPlan, BadValueIsAnErrorAtThatValue) {
  const std::string dir = temp_dir("bad-value");
  const std::string text = replaced(kMlpScenario, "[1MiB, 25MiB]", "[1MiB, 25 furlongs]");
  const std::string path = write(dir + "/s.yaml", text);
  const InputError e = expect_input_error([&] { plan_sweep(path, {}, {}, ""); });
  EXPECT_EQ(e.where().line, 13);
  EXPECT_EQ(e.where().column, 27);
  EXPECT_NE(std::string(e.what()).find("sync.bucket_cap"), std::string::npos) << e.what();
}

TEST(SweepPlan, CommandLineAxisErrorsNameTheOption) {
  const std::string dir = temp_dir("bad-option");
  const std::string path = write(dir + "/s.yaml", kMlpScenario);
  const InputError e =
      expect_input_error([&] { plan_sweep(path, {}, {"training.batch_per_gpu=8,-1"}, ""); });
  EXPECT_EQ(e.where().file, "<--sweep training.batch_per_gpu>") << e.what();
}

TEST(SweepPlan, NothingToSweepIsAnError) {
  const std::string dir = temp_dir("no-sweep");
  std::string text = kMlpScenario;
  text.erase(text.find("sweep:"));
  const std::string path = write(dir + "/s.yaml", text);
  const InputError e = expect_input_error([&] { plan_sweep(path, {}, {}, ""); });
  EXPECT_NE(std::string(e.what()).find("nothing to sweep"), std::string::npos);
}

TEST(SweepPlan, PointIdsDependOnTheResolvedScenarioNotOnItsPath) {
  const std::string a = temp_dir("ids-a"), b = temp_dir("ids-b");
  const SweepPlan pa = plan_sweep(write(a + "/x.yaml", kMlpScenario), {}, {}, "opts");
  const SweepPlan pb = plan_sweep(write(b + "/y.yaml", kMlpScenario), {}, {}, "opts");
  ASSERT_EQ(pa.points.size(), 6u);
  std::set<std::string> ids;
  for (size_t i = 0; i < pa.points.size(); ++i) {
    EXPECT_EQ(pa.points[i].id.size(), 16u);
    ids.insert(pa.points[i].id);
  }
  EXPECT_EQ(ids.size(), 6u);  // every point differs
  // Another file name gives another default scenario name: name it to compare paths only.
  const SweepPlan named_a = plan_sweep(a + "/x.yaml", {"name=n"}, {}, "opts");
  const SweepPlan named_b = plan_sweep(b + "/y.yaml", {"name=n"}, {}, "opts");
  const SweepPlan other_options = plan_sweep(a + "/x.yaml", {"name=n"}, {}, "other");
  const SweepPlan other_scenario =
      plan_sweep(a + "/x.yaml", {"name=n", "training.batch_per_gpu=16"}, {}, "opts");
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(named_a.points[i].id, named_b.points[i].id);
    EXPECT_NE(named_a.points[i].id, other_options.points[i].id);
    EXPECT_NE(named_a.points[i].id, other_scenario.points[i].id);
  }
}

// ------------------------------------------------------------------ shards

TEST(Shard, ShardsPartitionThePoints) {
  const size_t n = 3, points = 20;
  std::vector<int> owners(points, 0);
  for (size_t i = 0; i < n; ++i) {
    const Shard shard = parse_shard(std::to_string(i) + "/" + std::to_string(n));
    for (size_t p = 0; p < points; ++p) owners[p] += shard.owns(p);
  }
  for (size_t p = 0; p < points; ++p) EXPECT_EQ(owners[p], 1) << p;
}

TEST(Shard, MalformedShardsAreErrors) {
  for (const char* text : {"3/3", "1", "a/2", "1/0", "-1/2", "1/2/3"}) {
    EXPECT_THROW(parse_shard(text), InputError) << text;
  }
}

TEST(Shard, SlurmArraysMapToShardsFromZero) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_FALSE(shard_from_slurm(env({})).has_value());
  // --array=1-4
  auto s = shard_from_slurm(env({{"SLURM_ARRAY_TASK_ID", "3"},
                                 {"SLURM_ARRAY_TASK_COUNT", "4"},
                                 {"SLURM_ARRAY_TASK_MIN", "1"}}));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->to_string(), "2/4");
  // --array=0-14:2 has 8 tasks
  s = shard_from_slurm(env({{"SLURM_ARRAY_TASK_ID", "14"},
                            {"SLURM_ARRAY_TASK_COUNT", "8"},
                            {"SLURM_ARRAY_TASK_MIN", "0"},
                            {"SLURM_ARRAY_TASK_STEP", "2"}}));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->to_string(), "7/8");
  EXPECT_THROW(
      shard_from_slurm(env({{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})),
      InputError);
}

// ------------------------------------------------------------------ CSV

TEST(ResultsCsv, FieldsWithCommasQuotesAndLineBreaksRoundTrip) {
  CsvTable table;
  table.header = {"a", "b", "c"};
  table.rows = {{"1", "x,y", "say \"hi\""}, {"2", "", "two\nlines"}};
  const std::string text = format_csv(table);
  EXPECT_EQ(text, "a,b,c\n1,\"x,y\",\"say \"\"hi\"\"\"\n2,,\"two\nlines\"\n");
  const CsvTable back = parse_csv(text, "t.csv");
  EXPECT_EQ(back.header, table.header);
  EXPECT_EQ(back.rows, table.rows);
}

TEST(ResultsCsv, TruncatedOrRaggedFilesAreErrors) {
  EXPECT_THROW(parse_csv("a,b\n1,2\n3", "t.csv"), InputError);
  EXPECT_THROW(parse_csv("a,b\n1,\"2\n", "t.csv"), InputError);
  const InputError e = expect_input_error([] { parse_csv("a,b\n1,2\n1,2,3\n", "t.csv"); });
  EXPECT_EQ(e.where().line, 3);
}

TEST(ResultsCsv, NumbersAreShortestExactText) {
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(26214400), "26214400");
  EXPECT_EQ(std::stod(format_number(1.0 / 3)), 1.0 / 3);
}

// ------------------------------------------------------------------ the binary, end to end

using testing::Exited;
using testing::wait_for;

pid_t spawn(std::vector<std::string> args, const std::string& out, const std::string& err,
            const std::vector<std::string>& extra_env = {}) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return testing::spawn(args, out, err, extra_env);
}

Exited ddpsim(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return testing::run_program(args, kScratch, env);
}

CsvTable read_csv(const std::string& path) { return parse_csv(read_text(path), path); }

std::vector<size_t> point_column(const CsvTable& t) {
  std::vector<size_t> points;
  const int c = csv_column(t, "point");
  for (const auto& row : t.rows) points.push_back(std::stoul(row[static_cast<size_t>(c)]));
  return points;
}

TEST(SweepRun, OneAndTwoWorkersWriteByteIdenticalResults) {
  const std::string dir = temp_dir("jobs");
  const std::string scenario = write(dir + "/s.yaml", kMlpScenario);
  const Exited one = ddpsim({"sweep", scenario, "-o", dir + "/j1", "-j", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const Exited two = ddpsim({"sweep", scenario, "-o", dir + "/j2", "-j", "2"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const std::string a = read_text(dir + "/j1/results.csv"), b = read_text(dir + "/j2/results.csv");
  EXPECT_EQ(a, b);
  const CsvTable t = parse_csv(a, "results.csv");
  EXPECT_EQ(point_column(t), (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
  const int status = csv_column(t, "status"), gpus = csv_column(t, "gpus");
  const int nodes = csv_column(t, "cluster.nodes");
  ASSERT_GE(nodes, 0);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row[static_cast<size_t>(status)], "ok");
    EXPECT_EQ(std::stoi(row[static_cast<size_t>(gpus)]),
              4 * std::stoi(row[static_cast<size_t>(nodes)]));
    const std::string id = row[static_cast<size_t>(csv_column(t, "point_id"))];
    EXPECT_TRUE(fs::is_regular_file(dir + "/j1/points/" + id + ".json")) << id;
    EXPECT_TRUE(fs::is_regular_file(dir + "/j1/points/" + id + ".trace.json")) << id;
  }
  // A second run over the finished folder simulates nothing and leaves the file as it was.
  const Exited again = ddpsim({"sweep", scenario, "-o", dir + "/j1", "-j", "2"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("6 of 6 points already done"), std::string::npos) << again.err;
  EXPECT_EQ(read_text(dir + "/j1/results.csv"), a);
}

// Slower points (ResNet-50 on 64 GPUs) so the kill lands mid-sweep.
std::string slow_scenario(const std::string& dir) {
  std::string text =
      replaced(kMlpScenario, "{name: mlp, layers: [1024, 4096, 4096, 10]}", "{name: resnet50}");
  text = replaced(text, "cluster.nodes: [1, 2, 4]", "cluster.nodes: [16, 8, 4, 2]");
  return write(dir + "/slow.yaml", text);
}

// Runs the sweep whole, then again killed part way and resumed: the resumed CSV equals the
// whole one, and exactly the missing points ran. `extra`: more sweep options (--uncertainty).
void expect_resume_loses_and_repeats_nothing(const std::string& dir,
                                             const std::vector<std::string>& extra) {
  const std::string scenario = slow_scenario(dir);
  auto command = [&](const std::string& out, const char* jobs) {
    std::vector<std::string> args = {"sweep", scenario, "-o", out, "-j", jobs};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const Exited whole = ddpsim(command(dir + "/whole", "1"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string expected = read_text(dir + "/whole/results.csv");
  const size_t total = read_csv(dir + "/whole/results.csv").rows.size();
  ASSERT_EQ(total, 8u);

  const std::string out = dir + "/killed";
  const pid_t pid = spawn(command(out, "2"), dir + "/k.out", dir + "/k.err");
  // Kill as soon as some, but not all, points are in the CSV.
  size_t seen = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::is_regular_file(out + "/results.csv")) {
      seen = read_csv(out + "/results.csv").rows.size();  // always a complete file
      if (seen >= 2) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  const Exited killed = wait_for(pid, dir + "/k.out", dir + "/k.err");
  ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << "the sweep finished before the kill";
  ASSERT_GE(seen, 2u);
  ASSERT_LT(seen, total);

  const CsvTable partial = read_csv(out + "/results.csv");
  const std::vector<size_t> partial_points = point_column(partial);
  EXPECT_TRUE(std::is_sorted(partial_points.begin(), partial_points.end()));
  EXPECT_EQ(std::set<size_t>(partial_points.begin(), partial_points.end()).size(),
            partial_points.size());

  // The workers died with the sweep (PR_SET_PDEATHSIG) and released the folder.
  const Exited resumed = ddpsim(command(out, "2"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(resumed.err, m, std::regex("resuming .*: (\\d+) of 8 points already done")))
      << resumed.err;
  const size_t already = std::stoul(m[1]);
  EXPECT_GE(already, partial_points.size());
  // Exactly the missing points ran again: one progress line each.
  size_t ran = 0;
  for (size_t at = resumed.err.find("] #"); at != std::string::npos;
       at = resumed.err.find("] #", at + 1))
    ++ran;
  EXPECT_EQ(ran, total - already) << resumed.err;
  EXPECT_EQ(read_text(out + "/results.csv"), expected);
  for (const auto& entry : fs::directory_iterator(out + "/points"))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

TEST(SweepRun, ResumeAfterSigkillLosesAndRepeatsNoPoint) {
  expect_resume_loses_and_repeats_nothing(temp_dir("resume"), {});
}

// With bands a point is its nominal run and its draws: a point killed among its draws runs again
// whole, and the resumed bands are those of an uninterrupted sweep, byte for byte.
TEST(SweepRun, ResumeWithBandsLosesAndRepeatsNoPoint) {
  const std::string dir = temp_dir("resume-bands");
  expect_resume_loses_and_repeats_nothing(dir, {"--uncertainty", "3", "--seed", "5"});
  if (HasFatalFailure()) return;
  const CsvTable t = read_csv(dir + "/killed/results.csv");
  const int p10 = csv_column(t, "samples_per_second_p10");
  ASSERT_GE(p10, 0);
  for (const auto& row : t.rows) EXPECT_FALSE(row[static_cast<size_t>(p10)].empty());
}

TEST(SweepRun, ShardsCoverEveryPointOnceAndMergeToTheWholeSweep) {
  const std::string dir = temp_dir("shards");
  const std::string scenario = write(dir + "/s.yaml", kMlpScenario);
  const Exited whole = ddpsim({"sweep", scenario, "-o", dir + "/whole"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;

  std::multiset<size_t> covered;
  std::vector<std::string> shard_dirs;
  for (int i = 0; i < 4; ++i) {
    const std::string out = dir + "/shard" + std::to_string(i);
    shard_dirs.push_back(out);
    // Shard 3 comes from a Slurm job array (--array=1-4), the others from --shard.
    const Exited run =
        i < 3 ? ddpsim({"sweep", scenario, "-o", out, "--shard", std::to_string(i) + "/4"})
              : ddpsim({"sweep", scenario, "-o", out},
                       {"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_COUNT=4",
                        "SLURM_ARRAY_TASK_MIN=1"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (size_t p : point_column(read_csv(out + "/results.csv"))) {
      EXPECT_EQ(p % 4, static_cast<size_t>(i));
      covered.insert(p);
    }
  }
  EXPECT_EQ(covered, (std::multiset<size_t>{0, 1, 2, 3, 4, 5}));

  std::vector<std::string> merge_args = {"merge"};
  merge_args.insert(merge_args.end(), shard_dirs.rbegin(), shard_dirs.rend());
  merge_args.insert(merge_args.end(), {shard_dirs[1], "-o", dir + "/merged"});  // a duplicate
  const Exited merged = ddpsim(merge_args);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("6 rows of 6 points"), std::string::npos) << merged.out;
  EXPECT_EQ(read_text(dir + "/merged/results.csv"), read_text(dir + "/whole/results.csv"));
  const CsvTable t = read_csv(dir + "/merged/results.csv");
  for (const auto& row : t.rows) {
    const std::string id = row[static_cast<size_t>(csv_column(t, "point_id"))];
    EXPECT_TRUE(fs::is_regular_file(dir + "/merged/points/" + id + ".json")) << id;
  }

  // A partial merge says which points are missing.
  const Exited partial = ddpsim({"merge", shard_dirs[0], "-o", dir + "/partial"});
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.err.find("4 point(s) missing (1, 2, 3, 5)"), std::string::npos) << partial.err;
}

TEST(SweepRun, MergeRefusesShardsOfDifferentSweeps) {
  const std::string dir = temp_dir("merge-mismatch");
  const std::string scenario = write(dir + "/s.yaml", kMlpScenario);
  ASSERT_EQ(ddpsim({"sweep", scenario, "-o", dir + "/a", "--shard", "0/2"}).exit_code, 0);
  ASSERT_EQ(ddpsim({"sweep", scenario, "-o", dir + "/b", "--shard", "1/2", "--set",
                    "training.batch_per_gpu=16"})
                .exit_code,
            0);
  const Exited merged = ddpsim({"merge", dir + "/a", dir + "/b", "-o", dir + "/m"});
  EXPECT_EQ(merged.exit_code, 2);
  EXPECT_NE(merged.err.find("a different sweep"), std::string::npos) << merged.err;
}

TEST(SweepRun, BadSweepKeyExitsTwoWithItsLineAndColumn) {
  const std::string dir = temp_dir("cli-error");
  const std::string scenario =
      write(dir + "/s.yaml", std::string(kMlpScenario) + "  sync.bucket_cup: [1MiB]\n");
  const Exited run = ddpsim({"sweep", scenario, "-o", dir + "/out"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(scenario + ":14:3: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("did you mean 'bucket_cap'"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir + "/out/results.csv"));
}

TEST(SweepRun, SimulateIgnoresTheSweepSection) {
  const std::string dir = temp_dir("simulate");
  const std::string scenario = write(dir + "/s.yaml", kMlpScenario);
  const Exited run = ddpsim({"simulate", scenario, "-o", dir + "/out", "--no-baseline"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

}  // namespace
}  // namespace ddpsim
