// One CLI (docs/cli.md), through the real binary: did-you-mean for commands, -j the same in
// sweep/compare/validate and compare -j N byte-identical to -j 1, --csv a flag, GPU names as
// nvidia-smi prints them, dtype and optimizer aliases, tabs in YAML indentation, bandwidths
// written in bits where bytes were meant, `dataload --nodes`, `--set model.hf_config` replacing
// a zoo model, and results.csv's sharding/checkpointing/gradient columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/gpu_aliases.h"
#include "sim/sweep/results_csv.h"
#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
using ddpsim::testing::Exited;
using ddpsim::testing::read_text;

const ddpsim::testing::ScratchFolder kScratch("ddpsim-cli-conventions-test");
const std::string kSource = DDPSIM_SOURCE_DIR;

Exited ddpsim(std::vector<std::string> args) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return ddpsim::testing::run_program(args, kScratch);
}

// 2 nodes x 2 V100, an MLP, 2 steps: well under a second per simulation.
const std::string kScenario = read_text(kSource + "/tests/data/small_cluster.yaml");

std::string scenario_file(const std::string& folder, const std::string& text = kScenario) {
  const fs::path dir = kScratch.fresh(folder);
  std::ofstream(dir / "s.yaml") << text;
  return (dir / "s.yaml").string();
}

// ------------------------------------------------------------------ unknown commands

TEST(UnknownCommand, SuggestsTheNearestAndExitsTwo) {
  const Exited typo = ddpsim({"simulte", "x.yaml"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("error: unknown command 'simulte'; did you mean simulate?"),
            std::string::npos)
      << typo.err;
  EXPECT_NE(typo.err.find("commands: "), std::string::npos) << typo.err;
  EXPECT_EQ(ddpsim({"comapre"}).err.find("did you mean compare?") != std::string::npos, true);
  // Nothing near: the list, no guess.
  const Exited far = ddpsim({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("unknown command 'frobnicate'"), std::string::npos) << far.err;
  // Real commands and options are untouched.
  EXPECT_EQ(ddpsim({"--version"}).exit_code, 0);
  EXPECT_EQ(ddpsim({"gpus", "--csv"}).exit_code, 0);
}

// ------------------------------------------------------------------ -j and --csv

TEST(Jobs, SameDefaultInSweepCompareAndValidate) {
  for (const char* command : {"sweep", "compare", "validate"}) {
    const Exited help = ddpsim({command, "--help"});
    ASSERT_EQ(help.exit_code, 0) << command;
    std::smatch m;
    const std::regex jobs(R"(-j,--jobs[^\n]*\n?[^\n]*\(processes; 0: one per CPU\)[^\n]*)");
    ASSERT_TRUE(std::regex_search(help.out, m, jobs)) << command << "\n" << help.out;
    EXPECT_NE(m.str().find("=0 "), std::string::npos) << command << ": " << m.str();
  }
  EXPECT_EQ(ddpsim({"compare", scenario_file("jobs"), "-j", "-1"}).exit_code, 2);
}

TEST(Compare, ParallelCellsPrintExactlyWhatOneProcessPrints) {
  const std::string s = scenario_file("compare-j");
  const std::vector<std::string> args = {
      "compare", s, "--strategies", "ring,tree,ps:1,ps:2,zero3", "--nic", "10Gbps,100Gbps"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> all = args;
    all.insert(all.end(), extra.begin(), extra.end());
    return ddpsim(all);
  };
  const Exited one = with({"-j", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const Exited three = with({"-j", "3"});
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(one.out, three.out);
  EXPECT_NE(one.out.find("ps:2"), std::string::npos);
  // The CSV of every cell, on stdout with the --csv flag, equal at any -j and to -o's file.
  const Exited csv1 = with({"-j", "1", "--csv"});
  const std::string file = (kScratch.root() / "compare-j" / "cells.csv").string();
  const Exited csv2 = with({"-j", "2", "--csv", "-o", file});
  ASSERT_EQ(csv1.exit_code, 0) << csv1.err;
  ASSERT_EQ(csv2.exit_code, 0) << csv2.err;
  EXPECT_EQ(csv1.out, csv2.out);
  EXPECT_EQ(read_text(file), csv1.out);
  EXPECT_EQ(csv1.out.rfind("model,nic,strategy,gpus,samples_per_second,", 0), 0u) << csv1.out;
  const ddpsim::CsvTable table = ddpsim::parse_csv(csv1.out, "stdout");
  EXPECT_EQ(table.rows.size(), 10u);  // 2 NICs x 5 strategies
}

TEST(Compare, OldCsvFileSpellingStillWritesTheFileWithANote) {
  const std::string s = scenario_file("compare-csv-file");
  const std::string file = (kScratch.root() / "compare-csv-file" / "cells.csv").string();
  const Exited old = ddpsim({"compare", s, "--strategies", "ring", "--csv", file});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.err.find("--csv FILE is deprecated; write -o " + file), std::string::npos)
      << old.err;
  EXPECT_NE(old.out.find("all cells: " + file), std::string::npos) << old.out;  // the table too
  EXPECT_EQ(read_text(file).rfind("model,nic,strategy,", 0), 0u);
  // `--csv` before the scenario is the flag, not a file named like the scenario.
  const Exited flag_first = ddpsim({"compare", "--csv", s, "--strategies", "ring"});
  ASSERT_EQ(flag_first.exit_code, 0) << flag_first.err;
  EXPECT_EQ(flag_first.out.rfind("model,nic,strategy,", 0), 0u) << flag_first.out;
  EXPECT_EQ(ddpsim({"compare", "--strategies", "ring"}).exit_code, 2);  // no scenario
}

// ------------------------------------------------------------------ GPU names

TEST(GpuNames, NvidiaSmiNamesAreAliasesOfOnePresetEach) {
  std::set<std::string> seen;
  for (const ddpsim::GpuPreset& p : ddpsim::gpu_presets())
    seen.insert(ddpsim::normalized_gpu_name(p.key));
  for (const ddpsim::GpuAlias& a : ddpsim::gpu_aliases()) {
    const ddpsim::GpuPreset* preset = ddpsim::find_gpu_preset(a.preset);
    ASSERT_NE(preset, nullptr) << a.name << " -> " << a.preset;
    const std::string key = ddpsim::normalized_gpu_name(a.name);
    // Either the alias normalises to its own preset's key, or to nothing else in the table.
    if (key != ddpsim::normalized_gpu_name(a.preset)) {
      EXPECT_TRUE(seen.insert(key).second) << a.name << " matches another name";
    }
    EXPECT_EQ(ddpsim::find_gpu_preset_or_alias(a.name), preset) << a.name;
  }
  EXPECT_EQ(ddpsim::find_gpu_preset_or_alias("A100-SXM4-80GB"),
            ddpsim::find_gpu_preset("a100-sxm-80gb"));
  EXPECT_EQ(ddpsim::find_gpu_preset_or_alias("nvidia  h100 80gb hbm3"),
            ddpsim::find_gpu_preset("h100-sxm-80gb"));
  EXPECT_EQ(ddpsim::find_gpu_preset_or_alias("NVIDIA H100 NVL"), nullptr);
  EXPECT_EQ(ddpsim::find_gpu_preset_or_alias("NVIDIA A100 80GB PCIe"), nullptr);
}

// docs/cli.md's table of nvidia-smi names is the code's table (gpu_aliases.cpp), row for row,
// and `ddpsim gpus` lists every alias beside its preset, as text, JSON and CSV.
TEST(GpuNames, TheDocsAndDdpsimGpusListTheAliasTable) {
  std::vector<std::pair<std::string, std::string>> code, docs;
  for (const ddpsim::GpuAlias& a : ddpsim::gpu_aliases()) code.emplace_back(a.name, a.preset);
  const std::string cli = read_text(kSource + "/docs/cli.md");
  const size_t section = cli.find("## GPU names as `nvidia-smi` prints them");
  ASSERT_NE(section, std::string::npos);
  const std::string rest = cli.substr(section);
  // Rows: | `NVIDIA H200` (the SXM board) | `h200-sxm-141gb` |
  const std::regex row(R"(\n\| `([^`]+)`[^|]*\| `([^`]+)` \|)");
  for (std::sregex_iterator m(rest.begin(), rest.begin() + rest.find("\n## ", 1), row), end;
       m != end; ++m)
    docs.emplace_back((*m)[1], (*m)[2]);
  EXPECT_EQ(docs, code);

  const Exited text = ddpsim({"gpus"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const size_t names = text.out.find("nvidia-smi names");
  ASSERT_NE(names, std::string::npos) << text.out;
  for (const auto& [name, preset] : code) {
    std::string line = "\n  " + name;
    line.resize(std::max(line.size(), size_t{31}), ' ');  // the name column is 28 wide
    EXPECT_NE(text.out.find(line + " " + preset + "\n", names), std::string::npos)
        << name << " -> " << preset;
  }
  const nlohmann::json rows = nlohmann::json::parse(ddpsim({"gpus", "--json"}).out);
  std::set<std::pair<std::string, std::string>> listed;
  for (const nlohmann::json& r : rows)
    if (!r["nvidia_smi_name"].get<std::string>().empty())
      listed.emplace(r["nvidia_smi_name"].get<std::string>(), r["gpu"].get<std::string>());
  EXPECT_EQ(listed, std::set(code.begin(), code.end()));  // one alias per preset today
  EXPECT_NE(ddpsim({"gpus", "--csv"}).out.find(",NVIDIA H100 80GB HBM3\n"), std::string::npos);
}

TEST(GpuNames, TheBinaryRunsAnAliasAsItsPreset) {
  const std::string s = scenario_file("gpu-alias");
  const Exited key = ddpsim({"simulate", s, "--set", "cluster.gpu=h100-sxm-80gb"});
  ASSERT_EQ(key.exit_code, 0) << key.err;
  for (const std::string alias : {"NVIDIA H100 80GB HBM3", "h100 80gb hbm3"}) {
    const Exited run = ddpsim({"simulate", s, "--set", "cluster.gpu=" + alias});
    ASSERT_EQ(run.exit_code, 0) << alias << ": " << run.err;
    EXPECT_EQ(run.out, key.out) << alias;
  }
  const Exited v100 = ddpsim({"simulate", s, "--set", "cluster.gpu=Tesla V100-SXM2-16GB"});
  ASSERT_EQ(v100.exit_code, 0) << v100.err;
  EXPECT_EQ(v100.out, ddpsim({"simulate", s}).out);
  const Exited nvl = ddpsim({"simulate", s, "--set", "cluster.gpu=NVIDIA H100 NVL"});
  EXPECT_EQ(nvl.exit_code, 2);
  EXPECT_NE(nvl.err.find("unknown GPU preset 'NVIDIA H100 NVL'"), std::string::npos) << nvl.err;
}

// ------------------------------------------------------------------ dtype and optimizer names

TEST(TrainingNames, PyTorchDtypesAndAdamWAreAliases) {
  const std::string s = scenario_file("aliases");
  auto run = [&](const std::string& set) { return ddpsim({"simulate", s, "--set", set}); };
  const Exited bf16 = run("training.precision=bf16");
  ASSERT_EQ(bf16.exit_code, 0) << bf16.err;
  EXPECT_EQ(run("training.precision=bfloat16").out, bf16.out);
  EXPECT_EQ(run("training.precision=BF16").out, bf16.out);
  const Exited fp16 = run("training.precision=fp16");
  EXPECT_EQ(run("training.precision=half").out, fp16.out);
  EXPECT_EQ(run("training.precision=float16").out, fp16.out);
  EXPECT_EQ(run("training.precision=float32").out, run("training.precision=fp32").out);
  EXPECT_NE(bf16.out, run("training.precision=fp32").out);  // the alias changes something
  const Exited adam = run("training.optimizer=adam");
  ASSERT_EQ(adam.exit_code, 0) << adam.err;
  EXPECT_EQ(run("training.optimizer=adamw").out, adam.out);
  EXPECT_EQ(run("training.optimizer=AdamW").out, adam.out);
  EXPECT_NE(run("training.optimizer=sgd").out, adam.out);
  const Exited bad = run("training.precision=float64");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown value 'float64'; allowed: fp32, tf32, fp16, bf16, fp8"),
            std::string::npos)
      << bad.err;
}

// An unknown optimizer names every spelling the loader takes, adamw included (issue 35).
TEST(TrainingNames, TheUnknownOptimizerErrorListsAdamW) {
  const Exited bad =
      ddpsim({"simulate", scenario_file("optimizer"), "--set", "training.optimizer=lion"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown value 'lion'; allowed: sgd, momentum, adam (also adamw)"),
            std::string::npos)
      << bad.err;
}

// ------------------------------------------------------------------ one vocabulary (issue 35)

// Every sharding name the scenario accepts, compare --strategies accepts, for the same cell.
TEST(OneVocabulary, CompareTakesTheScenariosShardingNames) {
  const std::string s = scenario_file("vocabulary");
  const Exited fsdp = ddpsim({"compare", s, "--strategies", "full_shard,zero3,no_shard,ddp"});
  ASSERT_EQ(fsdp.exit_code, 0) << fsdp.err;
  // The row: model, NIC, then four cells; full_shard's equals zero3's, no_shard's ddp's.
  const std::regex row(R"(\n(\S+)\s+scenario\s+(\S+ \S+ \S+ \S+)\*?\s+(\S+ \S+ \S+ \S+)\*?\s+)"
                       R"((\S+ \S+ \S+ \S+)\*?\s+(\S+ \S+ \S+ \S+)\*?)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(fsdp.out, m, row)) << fsdp.out;
  EXPECT_EQ(m[2].str(), m[3].str()) << fsdp.out;
  EXPECT_EQ(m[4].str(), m[5].str()) << fsdp.out;
  EXPECT_NE(m[2].str(), m[4].str()) << fsdp.out;
  // A misspelt strategy: the nearest name, not the whole grammar.
  const Exited typo = ddpsim({"compare", s, "--strategies", "full-shard"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown strategy 'full-shard'; did you mean 'full_shard'?"),
            std::string::npos)
      << typo.err;
  EXPECT_LT(typo.err.size(), 400u) << typo.err;
}

TEST(ForgivingCli, AMisspeltOptionGetsTheNearestOne) {
  const Exited typo = ddpsim({"simulate", scenario_file("typo"), "--uncertanity"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err,
            "error: unknown option '--uncertanity' for ddpsim simulate; did you mean "
            "--uncertainty? (see ddpsim simulate --help)\n");
  const Exited far = ddpsim({"sweep", scenario_file("typo"), "--frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST(ForgivingCli, SetWithASpaceIsAnsweredWithTheEqualsForm) {
  const std::string s = scenario_file("set-space");
  const Exited spaced = ddpsim({"simulate", s, "--set", "cluster.nodes", "2"});
  EXPECT_EQ(spaced.exit_code, 2);
  EXPECT_EQ(spaced.err,
            "error: --set takes key=value as one word: did you mean --set cluster.nodes=2?\n");
  // Before the scenario too; and with no value at all, the override says what it needs.
  const Exited before = ddpsim({"simulate", "--set", "cluster.nodes", "2", s});
  EXPECT_NE(before.err.find("did you mean --set cluster.nodes=2?"), std::string::npos)
      << before.err;
  const Exited bare = ddpsim({"simulate", "--set", "cluster.nodes", s});
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.err.find("did you mean --set cluster.nodes=VALUE?"), std::string::npos)
      << bare.err;
}

// `--fit-platform -o x` made "-o" a log and then said "--output is required" (issue 35).
TEST(ForgivingCli, AMissingValueIsNamedNotTheOptionAfterIt) {
  const Exited fit = ddpsim({"calibrate", "--fit-platform", "-o", "platform.yaml"});
  EXPECT_EQ(fit.exit_code, 2);
  EXPECT_EQ(fit.err,
            "error: --fit-platform expects nccl-tests all_reduce logs (LOG or "
            "LOG@NODESxGPUS_PER_NODE) right after it, but the option '-o' follows (see ddpsim "
            "calibrate --help)\n");
  // A negative number is a value, not an option.
  EXPECT_EQ(ddpsim({"simulate", scenario_file("wall"), "--max-wall", "-1"}).err.find("follows"),
            std::string::npos);
}

TEST(ForgivingCli, ABadNicIsBlamedOnNicNotOnSet) {
  const Exited bad = ddpsim({"compare", scenario_file("nic"), "--nic", "10Gbps,25GBps"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("error: <--nic 25GBps>: unknown unit 'GBps'", 0), 0u) << bad.err;
  EXPECT_EQ(bad.err.find("--set"), std::string::npos) << bad.err;
}

TEST(GpuNames, AFamilyNameListsItsPresets) {
  const Exited h100 = ddpsim({"simulate", scenario_file("h100"), "--set", "cluster.gpu=H100"});
  EXPECT_EQ(h100.exit_code, 2);
  EXPECT_NE(h100.err.find("'H100' names more than one GPU preset: h100-sxm-80gb, h100-pcie-80gb"),
            std::string::npos)
      << h100.err;
  // One candidate: a guess, said as one.
  const Exited p100 = ddpsim({"simulate", scenario_file("p100"), "--set", "cluster.gpu=P100"});
  EXPECT_EQ(p100.exit_code, 2);
  EXPECT_NE(p100.err.find("did you mean p100-sxm2-16gb?"), std::string::npos) << p100.err;
}

// ------------------------------------------------------------------ tabs

TEST(Tabs, ATabInTheIndentationIsNamedAtItsLine) {
  struct Case {
    std::string text;
    int line;
  };
  const std::vector<Case> cases = {
      {"name: t\ncluster:\n\tnodes: 2\n", 3},                      // yaml-cpp: "illegal map value"
      {"name: t\ncluster:\n  nodes: 2\n\tgpus_per_node: 2\n", 4},  // "illegal tab ..."
      {"name: t\ncluster:\n  \tnodes: 2\n", 3},
  };
  for (const Case& c : cases) {
    const std::string s = scenario_file("tabs", c.text);
    const Exited run = ddpsim({"simulate", s});
    EXPECT_EQ(run.exit_code, 2) << c.text;
    const std::string want = s + ":" + std::to_string(c.line) + ":" +
                             (c.text.find("  \t") != std::string::npos ? "3" : "1") +
                             ": YAML syntax error: a tab in the indentation; YAML indents with "
                             "spaces only";
    EXPECT_NE(run.err.find(want), std::string::npos) << run.err << "\nwanted " << want;
  }
  // A tab after the indentation is valid YAML and accepted.
  std::string text = kScenario;
  text.replace(text.find("nodes: 2"), 8, "nodes:\t2");
  EXPECT_EQ(ddpsim({"simulate", scenario_file("tab-ok", text)}).exit_code, 0);
}

// ------------------------------------------------------------------ bits for bytes

TEST(BitsForBytes, AnNvSwitchRateInBitsIsAWarning) {
  const std::string s = scenario_file("bits");
  const Exited bits = ddpsim({"simulate", s, "--set", "cluster.intra_node.bandwidth=300Gbps"});
  ASSERT_EQ(bits.exit_code, 0) << bits.err;
  EXPECT_NE(bits.out.find("cluster.intra_node.bandwidth 300Gbps is 37.5 GB/s, 8x below what "
                          "NVSwitch moves (150 GB/s to 900 GB/s per GPU and direction)"),
            std::string::npos)
      << bits.out;
  EXPECT_NE(bits.out.find("was 300GB/s meant?"), std::string::npos);
  const Exited bytes = ddpsim({"simulate", s, "--set", "cluster.intra_node.bandwidth=300GB/s"});
  EXPECT_EQ(bytes.out.find("8x below"), std::string::npos) << bytes.out;
  // A rate in bits that is a plausible NVSwitch rate as it stands (2400Gbps = 300 GB/s): fine.
  EXPECT_EQ(ddpsim({"simulate", s, "--set", "cluster.intra_node.bandwidth=2400Gbps"})
                .out.find("8x below"),
            std::string::npos);
  const Exited pcie = ddpsim({"simulate", s, "--set", "cluster.pcie=16Gbps"});
  EXPECT_NE(pcie.out.find("cluster.pcie 16Gbps is 2.00 GB/s, 8x below what PCIe moves"),
            std::string::npos)
      << pcie.out;
  // NICs are quoted in bits: never flagged.
  EXPECT_EQ(ddpsim({"simulate", s}).out.find("8x below"), std::string::npos);
}

// ------------------------------------------------------------------ dataload --nodes

TEST(Dataload, NodesHelpSaysTheJobDoesNotGrow) {
  const Exited help = ddpsim({"dataload", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("the job does not grow"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--keep-node-size grows it"), std::string::npos) << help.out;
}

// ------------------------------------------------------------------ --set replaces the model

TEST(SetModel, ALaterModelSourceReplacesTheScenarios) {
  const std::string s = scenario_file("set-model");  // model: {name: mlp, layers: [...]}
  const std::string qwen = kSource + "/tests/data/hf-configs/Qwen2.5-0.5B/config.json";
  const Exited hf = ddpsim({"simulate", s, "--set", "model.hf_config=" + qwen, "--set",
                            "model.sequence_length=256", "--set", "training.batch_per_gpu=1"});
  ASSERT_EQ(hf.exit_code, 0) << hf.err;
  EXPECT_NE(hf.out.find("Qwen2.5-0.5B"), std::string::npos) << hf.out;
  // A zoo key replaces it too (mlp's layers go with the mlp).
  const Exited zoo = ddpsim({"simulate", s, "--set", "model.name=alexnet"});
  ASSERT_EQ(zoo.exit_code, 0) << zoo.err;
  EXPECT_NE(zoo.out.find("alexnet"), std::string::npos) << zoo.out;
  // Back from a config to a zoo key: the later --set wins.
  const Exited back = ddpsim({"simulate", s, "--set", "model.hf_config=" + qwen, "--set",
                              "model.name=mlp", "--set", "model.layers=[1024,4096,10]"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out, ddpsim({"simulate", s}).out);
  // Inside one file two sources are still an error.
  std::string both = kScenario;
  both.replace(both.find("model: {name: mlp,"), 18, "model: {hf_config: x.json, name: mlp,");
  const Exited twice = ddpsim({"simulate", scenario_file("set-model-both", both)});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("give one of name, file and hf_config"), std::string::npos) << twice.err;
}

// ------------------------------------------------------------------ results.csv columns

TEST(ResultsCsv, ShardingCheckpointingAndGradientColumns) {
  const std::string s = scenario_file("csv-columns");
  const std::string out = (kScratch.root() / "csv-columns" / "out").string();
  const Exited run =
      ddpsim({"sweep", s, "-o", out, "-j", "1", "--no-baseline", "--sweep",
              "sync.sharding=none,zero3", "--sweep", "training.activation_checkpointing=false,true",
              "--sweep", "sync.gradient_dtype=fp32,bf16"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const ddpsim::CsvTable t = ddpsim::parse_csv(read_text(out + "/results.csv"), "results.csv");
  const int sharding = ddpsim::csv_column(t, "sharding");
  const int ckpt = ddpsim::csv_column(t, "activation_checkpointing");
  const int grad = ddpsim::csv_column(t, "gradient_bytes");
  ASSERT_GE(sharding, 0);
  ASSERT_GE(ckpt, 0);
  ASSERT_GE(grad, 0);
  ASSERT_EQ(t.rows.size(), 8u);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(t.rows[i][sharding], i < 4 ? "none" : "zero3") << i;
    EXPECT_EQ(t.rows[i][ckpt], (i / 2) % 2 ? "true" : "false") << i;
    EXPECT_EQ(t.rows[i][grad], i % 2 ? "2" : "4") << i;
  }
}

}  // namespace
