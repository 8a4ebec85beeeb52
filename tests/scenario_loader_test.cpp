// The scenario loader: the bundled default, defaults of scenario.h, every section's keys,
// --set overrides and their error locations, GPU presets, the resolved-scenario JSON, and a table
// of bad scenario files, each with its exact line:column and message.
#include "sim/input/scenario_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "sim/scenario/enum_names.h"
#include "sim/scenario/gpu_presets.h"
#include "sim/scenario/scenario_json.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const std::string kSourceDir = DDPSIM_SOURCE_DIR;
const std::string kDefaultScenario = kSourceDir + "/scenarios/default.yaml";
const std::string kBadDir = kSourceDir + "/tests/data/bad_scenarios";

// A valid two-node scenario that tests extend with one more section.
const std::string kBase =
    "cluster:\n"
    "  nodes: 2\n"
    "  gpus_per_node: 4\n"
    "  gpu: v100-sxm2-16gb\n"
    "  intra_node: {kind: nvlink-mesh, bandwidth: 150GB/s, latency: 1us}\n"
    "  pcie: 16GB/s\n"
    "  nic: {count: 1, bandwidth: 100Gbps, latency: 2us}\n"
    "model:\n"
    "  name: resnet50\n";

Scenario parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_scenario_text(text, "test.yaml", overrides);
}

// The InputError that parsing `text` throws (fails the test if none).
InputError parse_error(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse(text, overrides);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return InputError(SourceLocation{}, "");
}

InputError load_error(const std::string& path, const std::vector<std::string>& overrides = {}) {
  try {
    load_scenario(path, overrides);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << path;
  return InputError(SourceLocation{}, "");
}

// ---------------------------------------------------------------- the bundled default

TEST(ScenarioLoader, DefaultScenarioLoadsWithItsDocumentedValues) {
  Scenario s = load_scenario(kDefaultScenario);
  EXPECT_EQ(s.source, kDefaultScenario);
  EXPECT_EQ(s.name, "resnet50-4x-dgx-a100");
  EXPECT_EQ(s.seed, 1u);

  const ClusterSpec& c = s.cluster;
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_EQ(c.total_gpus(), 32);
  EXPECT_EQ(c.gpu.name, "a100-sxm-40gb");
  EXPECT_DOUBLE_EQ(c.gpu.fp32_flops, 19.5e12);
  EXPECT_DOUBLE_EQ(c.gpu.tf32_flops, 156e12);
  EXPECT_DOUBLE_EQ(c.gpu.fp16_flops, 312e12);
  EXPECT_DOUBLE_EQ(c.gpu.bf16_flops, 312e12);
  EXPECT_DOUBLE_EQ(c.gpu.memory_bytes, 40 * kGiB);
  EXPECT_DOUBLE_EQ(c.gpu.hbm_bandwidth, 1555e9);
  EXPECT_EQ(c.intra_node.kind, IntraNodeKind::kNvSwitch);
  EXPECT_DOUBLE_EQ(c.intra_node.bandwidth, 300e9);
  EXPECT_DOUBLE_EQ(c.intra_node.latency, 1e-6);
  EXPECT_DOUBLE_EQ(c.pcie_bandwidth, 32e9);
  EXPECT_EQ(c.cpu_cores_per_node, 128);
  EXPECT_EQ(c.nic.count, 8);
  EXPECT_DOUBLE_EQ(c.nic.bandwidth, 200e9 / 8);
  EXPECT_DOUBLE_EQ(c.nic.latency, 2e-6);
  EXPECT_EQ(c.fabric.kind, FabricKind::kLeafSpine);
  EXPECT_EQ(c.fabric.nodes_per_leaf, 16);
  EXPECT_DOUBLE_EQ(c.fabric.oversubscription, 1.0);

  EXPECT_EQ(s.model.name, "resnet50");
  EXPECT_EQ(s.training.batch_per_gpu, 64);
  EXPECT_EQ(s.training.precision, Precision::kFp16);
  EXPECT_EQ(s.training.optimizer, Optimizer::kMomentum);
  EXPECT_EQ(s.training.gradient_accumulation, 1);
  EXPECT_EQ(s.training.iterations, 5);
  EXPECT_EQ(s.training.warmup, 1);

  EXPECT_EQ(s.sync.strategy, SyncStrategy::kAllReduce);
  EXPECT_EQ(s.sync.algorithm, AllReduceAlgorithm::kRing);
  EXPECT_EQ(s.sync.mode, CollectiveMode::kFlow);
  EXPECT_DOUBLE_EQ(s.sync.bucket_cap, 25 * kMiB);
  EXPECT_DOUBLE_EQ(s.sync.first_bucket, 1 * kMiB);
  EXPECT_TRUE(s.sync.overlap);
  EXPECT_EQ(s.sync.gradient_bytes, 4);

  EXPECT_EQ(s.compute.mode, ComputeMode::kRoofline);
  EXPECT_DOUBLE_EQ(s.compute.efficiency, 0.45);
  EXPECT_TRUE(s.data.synthetic);
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kNone);
}

TEST(ScenarioLoader, OmittedKeysTakeTheDefaultsOfScenarioH) {
  Scenario s = parse_scenario_text(
      "cluster: {gpu: v100-sxm2-16gb, pcie: 16GB/s}\nmodel: {name: resnet50}\n", "dir/my-run.yaml");
  EXPECT_EQ(s.name, "my-run");  // the file stem
  EXPECT_EQ(s.seed, Scenario{}.seed);
  EXPECT_EQ(s.cluster.nodes, 1);
  EXPECT_EQ(s.cluster.gpus_per_node, 1);
  // A lone GPU has no NVLink peers: its intra-node path is its PCIe link.
  EXPECT_EQ(s.cluster.intra_node.kind, IntraNodeKind::kPcie);
  EXPECT_DOUBLE_EQ(s.cluster.intra_node.bandwidth, 16e9);
  EXPECT_EQ(s.cluster.nic.count, NicSpec{}.count);
  EXPECT_EQ(s.cluster.nic.bandwidth, 0);  // unused by a one-node cluster
  EXPECT_EQ(s.cluster.fabric.nodes_per_leaf, FabricSpec{}.nodes_per_leaf);
  EXPECT_EQ(s.cluster.cpu_cores_per_node, ClusterSpec{}.cpu_cores_per_node);

  const TrainingSpec t;
  EXPECT_EQ(s.training.batch_per_gpu, t.batch_per_gpu);
  EXPECT_EQ(s.training.precision, t.precision);
  EXPECT_EQ(s.training.optimizer, t.optimizer);
  EXPECT_EQ(s.training.iterations, t.iterations);
  EXPECT_EQ(s.training.warmup, t.warmup);
  const SyncSpec y;
  EXPECT_EQ(s.sync.strategy, y.strategy);
  EXPECT_EQ(s.sync.bucket_cap, y.bucket_cap);
  EXPECT_EQ(s.sync.first_bucket, y.first_bucket);
  EXPECT_EQ(s.sync.partition, y.partition);
  EXPECT_EQ(s.sync.schedule, y.schedule);
  EXPECT_EQ(s.sync.fusion.enabled, y.fusion.enabled);
  EXPECT_EQ(s.sync.ps.key_placement, y.ps.key_placement);
  EXPECT_EQ(s.sync.local_sgd_period, y.local_sgd_period);
  EXPECT_EQ(s.compute.efficiency, ComputeSpec{}.efficiency);
  EXPECT_EQ(s.data.synthetic, DataSpec{}.synthetic);
  EXPECT_EQ(s.data.prefetch, DataSpec{}.prefetch);
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kNone);
}

// ---------------------------------------------------------------- sections

TEST(ScenarioLoader, GpuMappingOverridesSinglePresetFields) {
  Scenario s = parse(kBase, {"cluster.gpu={preset: a100-sxm-40gb, memory: 80GiB, "
                             "hbm_bandwidth: 2039GB/s}"});
  EXPECT_EQ(s.cluster.gpu.name, "a100-sxm-40gb (modified)");
  EXPECT_DOUBLE_EQ(s.cluster.gpu.memory_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.hbm_bandwidth, 2039e9);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.fp16_flops, 312e12);  // kept from the preset
}

TEST(ScenarioLoader, GpuWithoutPresetNeedsItsFieldsAndRunsFp16AtFp32Rate) {
  Scenario s = parse(kBase, {"cluster.gpu={name: my-gpu, fp32: 10TFLOPS, memory: 8GiB, "
                             "hbm_bandwidth: 500GB/s}"});
  EXPECT_EQ(s.cluster.gpu.name, "my-gpu");
  EXPECT_DOUBLE_EQ(s.cluster.gpu.fp32_flops, 10e12);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.fp16_flops, 10e12);
  EXPECT_EQ(s.cluster.gpu.tf32_flops, 0);
  EXPECT_EQ(s.cluster.gpu.bf16_flops, 0);
}

TEST(ScenarioLoader, PcieIntraNodeDefaultsToThePcieBandwidth) {
  Scenario s = parse(kBase, {"cluster.intra_node={kind: pcie}"});
  EXPECT_EQ(s.cluster.intra_node.kind, IntraNodeKind::kPcie);
  EXPECT_DOUBLE_EQ(s.cluster.intra_node.bandwidth, 16e9);
  EXPECT_EQ(s.cluster.intra_node.latency, 0);
}

TEST(ScenarioLoader, EverySyncKeyIsRead) {
  Scenario s = parse(kBase +
                     "sync:\n"
                     "  strategy: ps\n"
                     "  algorithm: hierarchical\n"
                     "  mode: chunked\n"
                     "  bucket_cap: 50MB\n"
                     "  first_bucket: 512KiB\n"
                     "  overlap: false\n"
                     "  gradient_dtype: bf16\n"
                     "  channels: 2\n"
                     "  ps: {servers: 2, placement: colocated, server_bandwidth: 25Gbps,\n"
                     "       mode: async, staleness: 3, key_placement: hash, update: worker,\n"
                     "       pull: forward, update_flops_per_param: 4, server_threads: 8,\n"
                     "       server_memory_bandwidth: 50GB/s}\n"
                     "  schedule: priority\n"
                     "  partition: 2MB\n"
                     "  credit: 8MB\n"
                     "  local_sgd: {period: 8}\n");
  const SyncSpec& y = s.sync;
  EXPECT_EQ(y.strategy, SyncStrategy::kParameterServer);
  EXPECT_EQ(y.algorithm, AllReduceAlgorithm::kHierarchical);
  EXPECT_EQ(y.mode, CollectiveMode::kChunked);
  EXPECT_DOUBLE_EQ(y.bucket_cap, 50e6);
  EXPECT_DOUBLE_EQ(y.first_bucket, 512 * 1024.0);
  EXPECT_FALSE(y.overlap);
  EXPECT_EQ(y.gradient_bytes, 2);
  EXPECT_EQ(y.channels, 2);
  EXPECT_EQ(y.ps.servers, 2);
  EXPECT_EQ(y.ps.placement, PsPlacement::kColocated);
  EXPECT_DOUBLE_EQ(y.ps.server_nic_bandwidth, 25e9 / 8);
  EXPECT_EQ(y.ps.mode, PsMode::kAsync);
  EXPECT_EQ(y.ps.staleness, 3);
  EXPECT_EQ(y.ps.key_placement, KeyPlacement::kHash);
  EXPECT_EQ(y.ps.update, PsUpdate::kWorker);
  EXPECT_EQ(y.ps.pull, PsPull::kForward);
  EXPECT_DOUBLE_EQ(y.ps.update_flops_per_param, 4);
  EXPECT_EQ(y.ps.server_threads, 8);
  EXPECT_DOUBLE_EQ(y.ps.server_memory_bandwidth, 50e9);
  EXPECT_EQ(y.schedule, CommSchedule::kPriority);
  EXPECT_DOUBLE_EQ(y.partition, 2e6);
  EXPECT_DOUBLE_EQ(y.credit, 8e6);
  EXPECT_EQ(y.local_sgd_period, 8);
}

TEST(ScenarioLoader, FusionSectionSwitchesHorovodFusionOnWithItsDefaults) {
  EXPECT_FALSE(parse(kBase).sync.fusion.enabled);
  const FusionSpec f =
      parse(kBase + "sync:\n  fusion: {threshold: 64MiB, cycle_time: 5ms, coordination: 20us}\n")
          .sync.fusion;
  EXPECT_TRUE(f.enabled);
  EXPECT_DOUBLE_EQ(f.threshold, 64.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(f.cycle_time, 5e-3);
  EXPECT_DOUBLE_EQ(f.coordination, 20e-6);
  // An empty section or one key from the command line: Horovod's defaults (>= 0.21) for the rest.
  const FusionSpec d = parse(kBase, {"sync.fusion.coordination=auto"}).sync.fusion;
  EXPECT_TRUE(d.enabled);
  EXPECT_DOUBLE_EQ(d.threshold, 128.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(d.cycle_time, 1e-3);
  EXPECT_LT(d.coordination, 0);
  // bucket_cap 0: one unit per tensor.
  EXPECT_EQ(parse(kBase + "sync: {bucket_cap: 0}\n").sync.bucket_cap, 0);
}

TEST(ScenarioLoader, SamplesPerSecondBecomesTheStepTimeOfOneGpu) {
  // One optimizer step of one GPU = batch_per_gpu * gradient_accumulation samples.
  Scenario s = parse(kBase +
                     "training: {batch_per_gpu: 64, gradient_accumulation: 2}\n"
                     "compute: {mode: measured, samples_per_second: 1000}\n");
  EXPECT_EQ(s.compute.mode, ComputeMode::kMeasured);
  EXPECT_DOUBLE_EQ(s.compute.step_time, 64.0 * 2 / 1000);
  s = parse(kBase + "compute: {mode: measured, step_time: 250ms}\n");
  EXPECT_DOUBLE_EQ(s.compute.step_time, 0.25);
}

TEST(ScenarioLoader, RealDataSectionReadsEveryKey) {
  Scenario s = parse(kBase +
                     "data:\n"
                     "  sample_bytes: 110KB\n"
                     "  decoded_bytes: 150528B\n"
                     "  samples: 1281167\n"
                     "  storage: {kind: shared, bandwidth: 10GB/s, iops: 50000,\n"
                     "            client_bandwidth: 25Gbps, client_shares_nic: true,\n"
                     "            page_cache: 0.25}\n"
                     "  decode: {kind: cpu, workers_per_gpu: 6, samples_per_core: 350}\n"
                     "  prefetch: 4\n"
                     "  stall: {probability: 0.05, duration: 50ms}\n");
  const DataSpec& d = s.data;
  EXPECT_FALSE(d.synthetic);  // a data section means real data
  EXPECT_DOUBLE_EQ(d.sample_bytes, 110e3);
  EXPECT_DOUBLE_EQ(d.decoded_bytes, 150528);
  EXPECT_EQ(d.samples, 1281167);
  EXPECT_EQ(d.storage, StorageKind::kShared);
  EXPECT_DOUBLE_EQ(d.storage_bandwidth, 10e9);
  EXPECT_DOUBLE_EQ(d.storage_iops, 50000);
  EXPECT_DOUBLE_EQ(d.client_bandwidth, 25e9 / 8);
  EXPECT_TRUE(d.client_shares_nic);
  EXPECT_DOUBLE_EQ(d.page_cache_fraction, 0.25);
  EXPECT_EQ(d.decode, DecodeKind::kCpu);
  EXPECT_EQ(d.workers_per_gpu, 6);
  EXPECT_DOUBLE_EQ(d.samples_per_core, 350);
  EXPECT_EQ(d.prefetch, 4);
  EXPECT_DOUBLE_EQ(d.stall_probability, 0.05);
  EXPECT_DOUBLE_EQ(d.stall_time, 0.05);

  s = parse(kBase +
            "data:\n  sample_bytes: 1MB\n  decoded_bytes: 1MB\n"
            "  storage: {bandwidth: 1GB/s}\n  decode: {kind: gpu, gpu_time: 0.1ms}\n");
  EXPECT_EQ(s.data.decode, DecodeKind::kGpu);
  EXPECT_DOUBLE_EQ(s.data.gpu_decode_time, 1e-4);
  EXPECT_TRUE(parse(kBase + "data: {synthetic: true}\n").data.synthetic);
}

TEST(ScenarioLoader, StragglerKindFollowsFromItsParameter) {
  Scenario s = parse(kBase + "stragglers: {fixed: {0: 1.5, 7: 2}}\n");
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kFixed);
  EXPECT_EQ(s.stragglers.fixed, (std::map<int, double>{{0, 1.5}, {7, 2.0}}));
  s = parse(kBase + "stragglers: {sigma: 0.1, per_iteration: true}\n");
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kLognormal);
  EXPECT_DOUBLE_EQ(s.stragglers.sigma, 0.1);
  EXPECT_TRUE(s.stragglers.per_iteration);
  s = parse(kBase + "stragglers: {max: 1.3}\n");
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kUniform);
  EXPECT_DOUBLE_EQ(s.stragglers.max, 1.3);
  s = parse(kBase + "stragglers:\n");  // an empty section is the default
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kNone);
}

TEST(ScenarioLoader, MlpLayersAndSequenceLengthReachTheModelSpec) {
  Scenario s = parse(kBase, {"model={name: mlp, layers: [1024, 4096, 10]}"});
  EXPECT_EQ(s.model.mlp_layers, (std::vector<int>{1024, 4096, 10}));
  s = parse(kBase, {"model.name=bert-large", "model.sequence_length=384"});
  EXPECT_EQ(s.model.name, "bert-large");
  EXPECT_EQ(s.model.sequence_length, 384);
}

TEST(ScenarioLoader, RelativeFilePathsAreRelativeToTheScenarioFile) {
  fs::path dir = fs::temp_directory_path() / ("ddpsim_loader_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "profiles");
  // compute.mode profile reads the profile when the scenario is loaded: the smallest valid one.
  std::ofstream(dir / "profiles" / "a100.yaml") << "format: 1\n";
  // sync.alpha_beta is read too: the smallest valid table, one all_reduce fit.
  std::ofstream(dir / "table.yaml")
      << "collectives:\n  - op: all_reduce\n    gpus: 8\n"
         "    fit: [ { min_bytes: 0, max_bytes: .inf, alpha: 1e-5, beta: 1e-10 } ]\n";
  std::ofstream(dir / "run.yaml") << kBase
                                  << "compute: {mode: profile, profile: profiles/a100.yaml}\n"
                                  << "sync: {alpha_beta: table.yaml}\n";
  Scenario s = load_scenario((dir / "run.yaml").string());
  EXPECT_EQ(s.compute.profile, (dir / "profiles" / "a100.yaml").string());
  EXPECT_EQ(s.sync.alpha_beta_table, (dir / "table.yaml").string());
  // Given with --set, a path is as the shell sees it.
  s = load_scenario((dir / "run.yaml").string(),
                    {"compute.profile=" + (dir / "table.yaml").string()});
  EXPECT_EQ(s.compute.profile, (dir / "table.yaml").string());
  fs::remove_all(dir);
}

TEST(ScenarioLoader, ClusterSizeIsBoundedSoRanksFitAnInt) {
  EXPECT_EQ(parse(kBase, {"cluster.nodes=262144"}).cluster.total_gpus(), 1 << 20);
  InputError e = parse_error(kBase, {"cluster.nodes=262145"});
  EXPECT_EQ(e.where().to_string(), "test.yaml:1:1");
  EXPECT_EQ(e.message(),
            "cluster: nodes x gpus_per_node = 1048580 GPUs; at most 1048576 are "
            "supported");
}

// ---------------------------------------------------------------- overrides

TEST(ScenarioOverrides, SetValuesOfEveryShapeAndLaterOnesWin) {
  Scenario s = load_scenario(
      kDefaultScenario, {"cluster.nodes=8", "sync.bucket_cap=5MB", "training.precision=bf16",
                         "sync.overlap=false", "cluster.nodes=16", "cluster.nic.latency=3 us"});
  EXPECT_EQ(s.cluster.nodes, 16);
  EXPECT_DOUBLE_EQ(s.sync.bucket_cap, 5e6);
  EXPECT_EQ(s.training.precision, Precision::kBf16);
  EXPECT_FALSE(s.sync.overlap);
  EXPECT_DOUBLE_EQ(s.cluster.nic.latency, 3e-6);
  EXPECT_EQ(s.cluster.nic.count, 8);  // siblings of a set key are kept
}

TEST(ScenarioOverrides, SettingOneFieldOfAPresetGpuKeepsThePreset) {
  Scenario s = load_scenario(kDefaultScenario, {"cluster.gpu.memory=80GiB"});
  EXPECT_DOUBLE_EQ(s.cluster.gpu.memory_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.fp16_flops, 312e12);
  EXPECT_EQ(s.cluster.gpu.name, "a100-sxm-40gb (modified)");
}

TEST(ScenarioOverrides, MissingSectionsAreCreated) {
  Scenario s = load_scenario(kDefaultScenario, {"stragglers.sigma=0.2", "sync.ps.servers=3"});
  EXPECT_EQ(s.stragglers.kind, StragglerKind::kLognormal);
  EXPECT_DOUBLE_EQ(s.stragglers.sigma, 0.2);
  EXPECT_EQ(s.sync.ps.servers, 3);
}

TEST(ScenarioOverrides, ErrorsInSetValuesAreReportedAtTheSetKey) {
  InputError e = load_error(kDefaultScenario, {"cluster.nodes=0"});
  EXPECT_EQ(e.where().to_string(), "<--set cluster.nodes>");
  EXPECT_EQ(e.message(), "cluster.nodes: expected an integer >= 1, got 0");

  e = load_error(kDefaultScenario, {"cluster.nic={count: 9, bandwidth: 1Gbps}"});
  EXPECT_EQ(e.where().to_string(), "<--set cluster.nic>");
  EXPECT_NE(e.message().find("cluster.nic.count: at most one NIC per GPU"), std::string::npos);

  // Missing keys of a section written in the file are reported at the section, even when an
  // override made them necessary...
  e = parse_error(kBase + "data:\n  synthetic: true\n", {"data.synthetic=false"});
  EXPECT_EQ(e.where().to_string(), "test.yaml:10:1");
  EXPECT_NE(e.message().find("missing required key 'sample_bytes' in data"), std::string::npos);
  // ...and those of a section the override created, at the override.
  e = parse_error(kBase, {"compute.mode=measured"});
  EXPECT_EQ(e.where().to_string(), "<--set compute.mode>");
  EXPECT_NE(e.message().find("missing required key 'step_time' in compute"), std::string::npos);
}

TEST(ScenarioOverrides, UnknownPathsNameTheKeyAndTheAllowedOnes) {
  InputError e = load_error(kDefaultScenario, {"cluster.nodez=3"});
  EXPECT_EQ(e.where().to_string(), "<--set cluster.nodez>");
  EXPECT_NE(e.message().find("unknown key 'nodez' in cluster; allowed keys: nodes, gpus_per_node"),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("did you mean 'nodes'?"), std::string::npos);

  e = load_error(kDefaultScenario, {"colour=blue"});
  EXPECT_EQ(e.where().to_string(), "<--set colour>");
  EXPECT_NE(e.message().find("unknown key 'colour' in the top level"), std::string::npos);
}

TEST(ScenarioOverrides, MalformedOverridesAreRejected) {
  struct Case {
    const char* text;
    const char* where;
    const char* message;
  } cases[] = {
      {"cluster.nodes", "<--set cluster.nodes>", "expected key.path=value"},
      {"cluster..nodes=2", "<--set cluster..nodes>", "empty key in 'cluster..nodes'"},
      {"cluster.nodes=", "<--set cluster.nodes>", "missing value after '='"},
      {"model.layers=[1,2", "<--set model.layers>", "cannot read the value '[1,2' as YAML"},
      {"cluster.nodes.count=2", "<--set cluster.nodes.count>", "cluster.nodes is not a section"},
  };
  for (const Case& c : cases) {
    InputError e = load_error(kDefaultScenario, {c.text});
    EXPECT_EQ(e.where().to_string(), c.where) << c.text;
    EXPECT_NE(e.message().find(c.message), std::string::npos) << c.text << ": " << e.message();
  }
}

// ---------------------------------------------------------------- enum names

template <class E>
void expect_names_round_trip() {
  std::set<std::string> seen;
  for (const auto& entry : enum_table<E>()) {
    EXPECT_STREQ(enum_name(entry.value), entry.name);
    EXPECT_EQ(enum_from_name<E>(entry.name), entry.value);
    EXPECT_TRUE(seen.insert(entry.name).second) << "duplicate name " << entry.name;
  }
  EXPECT_FALSE(enum_from_name<E>("no-such-name").has_value());
}

TEST(ScenarioNames, EveryEnumNameParsesBackToItsValue) {
  expect_names_round_trip<IntraNodeKind>();
  expect_names_round_trip<FabricKind>();
  expect_names_round_trip<Precision>();
  expect_names_round_trip<Optimizer>();
  expect_names_round_trip<SyncStrategy>();
  expect_names_round_trip<AllReduceAlgorithm>();
  expect_names_round_trip<CollectiveMode>();
  expect_names_round_trip<PsPlacement>();
  expect_names_round_trip<PsMode>();
  expect_names_round_trip<ComputeMode>();
  expect_names_round_trip<StorageKind>();
  expect_names_round_trip<DecodeKind>();
  expect_names_round_trip<StragglerKind>();
}

TEST(ScenarioNames, PublicNameFunctionsPrintWhatTheLoaderAccepts) {
  for (const auto& e : enum_table<Precision>()) {
    // An H100 has every precision, fp8 included.
    Scenario s = parse(kBase, {"cluster.gpu=h100-sxm-80gb",
                               std::string("training.precision=") + precision_name(e.value)});
    EXPECT_EQ(s.training.precision, e.value);
  }
  for (const auto& e : enum_table<Optimizer>()) {
    Scenario s = parse(kBase, {std::string("training.optimizer=") + optimizer_name(e.value)});
    EXPECT_EQ(s.training.optimizer, e.value);
  }
  for (const auto& e : enum_table<SyncStrategy>()) {
    Scenario s = parse(kBase, {std::string("sync.strategy=") + strategy_name(e.value)});
    EXPECT_EQ(s.sync.strategy, e.value);
  }
  for (const auto& e : enum_table<AllReduceAlgorithm>()) {
    // nvls needs NVLink SHARP hardware (an NVSwitch node of Hopper GPUs).
    std::vector<std::string> set = {std::string("sync.algorithm=") + algorithm_name(e.value)};
    if (e.value == AllReduceAlgorithm::kNvls)
      set.insert(set.begin(), {"cluster.gpu=h100-sxm-80gb", "cluster.intra_node.kind=nvswitch"});
    // pat: NCCL's sharded all-gather and reduce-scatter, one GPU per node.
    if (e.value == AllReduceAlgorithm::kPat)
      set.insert(set.begin(), {"cluster.gpus_per_node=1", "sync.sharding=zero3"});
    Scenario s = parse(kBase, set);
    EXPECT_EQ(s.sync.algorithm, e.value);
  }
  for (const auto& e : enum_table<IntraNodeKind>()) {
    Scenario s = parse(kBase, {std::string("cluster.intra_node.kind=") + intra_node_name(e.value)});
    EXPECT_EQ(s.cluster.intra_node.kind, e.value);
  }
  EXPECT_STREQ(precision_name(Precision::kBf16), "bf16");
  EXPECT_STREQ(strategy_name(SyncStrategy::kLocalSgd), "local-sgd");
  EXPECT_STREQ(algorithm_name(AllReduceAlgorithm::kHalvingDoubling), "halving-doubling");
  EXPECT_STREQ(intra_node_name(IntraNodeKind::kNvLinkMesh), "nvlink-mesh");
}

// ---------------------------------------------------------------- GPU presets

TEST(GpuPresets, EveryPresetIsCompleteAndFindable) {
  std::set<std::string> keys;
  for (const GpuPreset& p : gpu_presets()) {
    EXPECT_TRUE(keys.insert(p.key).second) << p.key;
    EXPECT_EQ(p.spec.name, p.key);
    EXPECT_GT(p.spec.fp32_flops, 0) << p.key;
    EXPECT_GE(p.spec.fp16_flops, p.spec.fp32_flops) << p.key;
    EXPECT_GT(p.spec.memory_bytes, 0) << p.key;
    EXPECT_GT(p.spec.hbm_bandwidth, 0) << p.key;
    EXPECT_FALSE(p.source.empty()) << p.key;
    EXPECT_EQ(find_gpu_preset(p.key), &p);
    EXPECT_NE(gpu_preset_names().find(p.key), std::string::npos);
    // Loadable by name.
    EXPECT_EQ(parse(kBase, {"cluster.gpu=" + p.key}).cluster.gpu.hbm_bandwidth,
              p.spec.hbm_bandwidth);
  }
  for (const char* required : {"p100-sxm2-16gb", "v100-sxm2-16gb", "v100-sxm2-32gb",
                               "a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm-80gb",
                               "h100-pcie-80gb", "h200-sxm-141gb", "rtx-2080-ti", "k80", "t4"}) {
    EXPECT_NE(find_gpu_preset(required), nullptr) << required;
  }
  EXPECT_EQ(find_gpu_preset("a100"), nullptr);
  EXPECT_EQ(find_gpu_preset("A100-SXM-40GB"), nullptr);
}

// The presets of today's clusters hold the figures their datasheets print (sources in
// gpu_presets.cpp): dense = half the "with sparsity" figure; memory as nvidia-smi / rocm-smi
// report it.
TEST(GpuPresets, BlackwellAndMi300xHoldTheirDatasheetFigures) {
  struct Expected {
    const char* key;
    double fp32, tf32, bf16, fp8, memory, hbm;
    int compute_capability;
  };
  const Expected expected[] = {
      {"b200-sxm-180gb", 75e12, 2.2e15 / 2, 4.5e15 / 2, 9e15 / 2, 183359 * kMiB, 8e12, 100},
      {"gb200-186gb", 80e12, 2.5e15 / 2, 5e15 / 2, 10e15 / 2, 189471 * kMiB, 8e12, 100},
      {"mi300x-192gb", 163.4e12, 653.7e12, 1307.4e12, 2614.9e12, 205822885888.0, 5.3e12, 0},
  };
  for (const Expected& e : expected) {
    const GpuPreset* p = find_gpu_preset(e.key);
    ASSERT_NE(p, nullptr) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.fp32_flops, e.fp32) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.tf32_flops, e.tf32) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.fp16_flops, e.bf16) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.bf16_flops, e.bf16) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.fp8_flops, e.fp8) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.memory_bytes, e.memory) << e.key;
    EXPECT_DOUBLE_EQ(p->spec.hbm_bandwidth, e.hbm) << e.key;
    EXPECT_EQ(p->spec.compute_capability, e.compute_capability) << e.key;
  }
  // Hopper's fp8 is twice its fp16; Ampere and older have none.
  for (const char* hopper : {"h100-sxm-80gb", "h100-pcie-80gb", "h200-sxm-141gb"}) {
    const GpuSpec& g = find_gpu_preset(hopper)->spec;
    EXPECT_DOUBLE_EQ(g.fp8_flops, 2 * g.fp16_flops) << hopper;
  }
  for (const char* older : {"a100-sxm-80gb", "v100-sxm2-16gb", "l4", "rtx-4090"})
    EXPECT_EQ(find_gpu_preset(older)->spec.fp8_flops, 0) << older;
  EXPECT_EQ(fp8_preset_names(),
            "h100-sxm-80gb, h100-pcie-80gb, h200-sxm-141gb, b200-sxm-180gb, gb200-186gb, "
            "mi300x-192gb");
}

TEST(GpuPresets, Fp8IsRefusedAtThePrecisionOnAGpuWithoutIt) {
  const InputError e = parse_error(kBase + "training:\n  precision: fp8\n");
  EXPECT_EQ(e.where().line, 11);
  EXPECT_EQ(e.where().column, 14);
  EXPECT_NE(std::string(e.what()).find("fp8 needs fp8 tensor cores; GPU 'v100-sxm2-16gb' has none"),
            std::string::npos)
      << e.what();
  EXPECT_NE(std::string(e.what()).find("h100-sxm-80gb"), std::string::npos) << e.what();
  // A custom GPU may declare its fp8 rate.
  Scenario s = parse(
      kBase, {"cluster.gpu={preset: a100-sxm-80gb, fp8: 600TFLOPS}", "training.precision=fp8"});
  EXPECT_DOUBLE_EQ(s.cluster.gpu.fp8_flops, 600e12);
  EXPECT_EQ(s.training.precision, Precision::kFp8);
}

// ---------------------------------------------------------------- transports

TEST(Transports, GpuPresetsSetPeerToPeerAndComputeCapability) {
  const std::string pcie = "cluster.intra_node={kind: pcie}";
  Scenario geforce = parse(kBase, {"cluster.gpu=rtx-4090", pcie});
  EXPECT_FALSE(geforce.cluster.intra_node.p2p);
  EXPECT_EQ(geforce.cluster.gpu.compute_capability, 89);
  Scenario datacenter = parse(kBase, {"cluster.gpu=a100-pcie-40gb", pcie});
  EXPECT_TRUE(datacenter.cluster.intra_node.p2p);
  EXPECT_EQ(datacenter.cluster.gpu.compute_capability, 80);
  // The preset's default yields to the scenario; CUDA's spelling of the capability is read.
  EXPECT_TRUE(parse(kBase, {"cluster.gpu=rtx-3090", "cluster.intra_node={kind: pcie, p2p: true}"})
                  .cluster.intra_node.p2p);
  EXPECT_EQ(parse(kBase, {"cluster.gpu={preset: t4, compute_capability: 8.6}"})
                .cluster.gpu.compute_capability,
            86);
}

TEST(Transports, HostAndSwitchKeysWithTheirDefaults) {
  Scenario s = parse(kBase);
  EXPECT_EQ(s.cluster.host.sockets, 1);
  EXPECT_DOUBLE_EQ(s.cluster.host.bandwidth, 204.8e9);
  EXPECT_DOUBLE_EQ(s.cluster.host.socket_link, 10e9);  // NCCL's SKL_QPI_BW
  EXPECT_EQ(s.cluster.pcie_switch.gpus, 0);
  s = parse(kBase, {"cluster.host={sockets: 2, cpu: amd}",
                    "cluster.pcie_switch={gpus: 2, "
                    "uplink: 24GB/s}"});
  EXPECT_EQ(s.cluster.host.sockets, 2);
  EXPECT_DOUBLE_EQ(s.cluster.host.socket_link, 16e9);  // NCCL's AMD_BW
  EXPECT_EQ(s.cluster.pcie_switch.gpus, 2);
  EXPECT_DOUBLE_EQ(s.cluster.pcie_switch.uplink, 24e9);
  EXPECT_EQ(s.cluster.socket_of_local(1), 0);
  EXPECT_EQ(s.cluster.socket_of_local(2), 1);
  EXPECT_EQ(s.cluster.switch_of_local(3), 1);
}

TEST(Transports, TcpDerivesItsEfficiencyAndStagesThroughTheHost) {
  Scenario rdma = parse(kBase);
  EXPECT_EQ(rdma.cluster.nic.transport, NicTransport::kRdma);
  EXPECT_TRUE(rdma.cluster.nic.gpudirect);
  EXPECT_DOUBLE_EQ(rdma.cluster.nic.efficiency, 1.0);
  EXPECT_DOUBLE_EQ(rdma.cluster.nic.message_cost, 0);
  // 100 Gb/s over TCP: two streams of 25 Gb/s reach half of it.
  Scenario tcp = parse(kBase, {"cluster.nic={count: 1, bandwidth: 100Gbps, transport: tcp}"});
  EXPECT_FALSE(tcp.cluster.nic.gpudirect);
  EXPECT_EQ(tcp.cluster.nic.streams, 2);
  EXPECT_DOUBLE_EQ(tcp.cluster.nic.efficiency, 0.5);
  EXPECT_DOUBLE_EQ(tcp.cluster.nic.message_cost, 0);
  // 10 Gb/s: the streams could do more; TCP's headers bind.
  tcp = parse(kBase, {"cluster.nic={bandwidth: 10Gbps, transport: tcp, streams: 8}"});
  EXPECT_DOUBLE_EQ(tcp.cluster.nic.efficiency, 1448.0 / 1538.0);
  tcp = parse(kBase, {"cluster.nic={bandwidth: 10Gbps, transport: tcp, efficiency: 0.7, "
                      "message_cost: 25us}"});
  EXPECT_DOUBLE_EQ(tcp.cluster.nic.efficiency, 0.7);
  EXPECT_DOUBLE_EQ(tcp.cluster.nic.message_cost, 25e-6);
}

TEST(Transports, LatencyModelAndProtocolKeys) {
  Scenario s = parse(kBase);
  EXPECT_EQ(s.sync.latency_model, LatencyModel::kNccl);
  EXPECT_EQ(s.sync.protocol, NcclProtocol::kAuto);
  s = parse(kBase, {"sync.latency_model=alpha", "sync.protocol=ll128"});
  EXPECT_EQ(s.sync.latency_model, LatencyModel::kAlpha);
  EXPECT_EQ(s.sync.protocol, NcclProtocol::kLL128);
}

TEST(GpuPresets, FiguresAreTheDenseDatasheetPeaks) {
  const GpuSpec& v100 = find_gpu_preset("v100-sxm2-16gb")->spec;
  EXPECT_DOUBLE_EQ(v100.fp32_flops, 15.7e12);
  EXPECT_DOUBLE_EQ(v100.fp16_flops, 125e12);
  EXPECT_DOUBLE_EQ(v100.hbm_bandwidth, 900e9);
  EXPECT_DOUBLE_EQ(find_gpu_preset("v100-sxm2-32gb")->spec.memory_bytes, 32 * kGiB);
  // H100 SXM datasheet: 989 TFLOPS tf32 and 1979 TFLOPS fp16 "with sparsity": dense is half.
  const GpuSpec& h100 = find_gpu_preset("h100-sxm-80gb")->spec;
  EXPECT_DOUBLE_EQ(h100.tf32_flops * 2, 989e12);
  EXPECT_DOUBLE_EQ(h100.fp16_flops * 2, 1979e12);
  EXPECT_DOUBLE_EQ(h100.hbm_bandwidth, 3.35e12);
  // K80: the board's 8.73 TFLOPS, 24 GB and 480 GB/s are two GPUs' worth.
  const GpuSpec& k80 = find_gpu_preset("k80")->spec;
  EXPECT_DOUBLE_EQ(k80.fp32_flops * 2, 8.73e12);
  EXPECT_DOUBLE_EQ(k80.memory_bytes * 2, 24 * kGiB);
  EXPECT_DOUBLE_EQ(k80.hbm_bandwidth * 2, 480e9);
  EXPECT_EQ(find_gpu_preset("a100-sxm-80gb")->spec.hbm_bandwidth, 2039e9);
}

// ---------------------------------------------------------------- resolved JSON

void collect_leaves(const nlohmann::json& j, const std::string& prefix,
                    std::set<std::string>* out) {
  if (j.is_object() && !j.empty()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      collect_leaves(it.value(), prefix + "/" + it.key(), out);
    }
  } else {
    out->insert(prefix);
  }
}

TEST(ScenarioJson, EveryFieldAppearsInBaseUnits) {
  Scenario s = load_scenario(kDefaultScenario, {"stragglers.fixed.3=1.5"});
  nlohmann::json j = scenario_to_json(s);
  EXPECT_EQ(j["cluster"]["nic"]["bandwidth_bytes_per_s"], 25e9);
  EXPECT_EQ(j["cluster"]["gpu"]["memory_bytes"], 40 * kGiB);
  EXPECT_EQ(j["cluster"]["total_gpus"], 32);
  EXPECT_EQ(j["sync"]["bucket_cap_bytes"], 25 * kMiB);
  EXPECT_EQ(j["training"]["precision"], "fp16");
  EXPECT_EQ(j["stragglers"]["fixed"]["3"], 1.5);
  EXPECT_EQ(j["compute"]["efficiency"], 0.45);

  const std::set<std::string> expected = {"/source",
                                          "/name",
                                          "/seed",
                                          "/cluster/nodes",
                                          "/cluster/gpus_per_node",
                                          "/cluster/total_gpus",
                                          "/cluster/gpu/name",
                                          "/cluster/gpu/fp32_flop_per_s",
                                          "/cluster/gpu/tf32_flop_per_s",
                                          "/cluster/gpu/fp16_flop_per_s",
                                          "/cluster/gpu/bf16_flop_per_s",
                                          "/cluster/gpu/fp8_flop_per_s",
                                          "/cluster/gpu/memory_bytes",
                                          "/cluster/gpu/hbm_bandwidth_bytes_per_s",
                                          "/cluster/gpu/compute_capability",
                                          "/cluster/gpu/pcie_p2p",
                                          "/cluster/intra_node/kind",
                                          "/cluster/intra_node/bandwidth_bytes_per_s",
                                          "/cluster/intra_node/latency_s",
                                          "/cluster/intra_node/p2p",
                                          "/cluster/pcie_bandwidth_bytes_per_s",
                                          "/cluster/pcie_switch/gpus",
                                          "/cluster/pcie_switch/uplink_bytes_per_s",
                                          "/cluster/host/sockets",
                                          "/cluster/host/bandwidth_bytes_per_s",
                                          "/cluster/host/socket_link_bytes_per_s",
                                          "/cluster/host/cpu",
                                          "/cluster/cpu_cores_per_node",
                                          "/cluster/nic/count",
                                          "/cluster/nic/bandwidth_bytes_per_s",
                                          "/cluster/nic/latency_s",
                                          "/cluster/nic/transport",
                                          "/cluster/nic/gpudirect",
                                          "/cluster/nic/efficiency",
                                          "/cluster/nic/streams",
                                          "/cluster/nic/stream_bandwidth_bytes_per_s",
                                          "/cluster/nic/message_cost_s",
                                          "/cluster/fabric/kind",
                                          "/cluster/fabric/nodes_per_leaf",
                                          "/cluster/fabric/oversubscription",
                                          "/model/name",
                                          "/model/sequence_length",
                                          "/model/layers",
                                          "/model/attention",
                                          "/training/batch_per_gpu",
                                          "/training/precision",
                                          "/training/optimizer",
                                          "/training/gradient_accumulation",
                                          "/training/iterations",
                                          "/training/warmup",
                                          "/training/activation_checkpointing",
                                          "/sync/strategy",
                                          "/sync/algorithm",
                                          "/sync/mode",
                                          "/sync/bucket_cap_bytes",
                                          "/sync/buffer_broadcast_bytes",
                                          "/sync/first_bucket_bytes",
                                          "/sync/overlap",
                                          "/sync/gradient_bytes",
                                          "/sync/channels",
                                          "/sync/latency_model",
                                          "/sync/nccl_latency",
                                          "/sync/protocol",
                                          "/sync/schedule",
                                          "/sync/partition_bytes",
                                          "/sync/credit_bytes",
                                          "/sync/fusion/enabled",
                                          "/sync/fusion/threshold_bytes",
                                          "/sync/fusion/cycle_time_s",
                                          "/sync/fusion/coordination_s",
                                          "/sync/ps/servers",
                                          "/sync/ps/placement",
                                          "/sync/ps/server_bandwidth_bytes_per_s",
                                          "/sync/ps/mode",
                                          "/sync/ps/staleness",
                                          "/sync/ps/key_placement",
                                          "/sync/ps/update",
                                          "/sync/ps/pull",
                                          "/sync/ps/update_flops_per_param",
                                          "/sync/ps/server_threads",
                                          "/sync/ps/server_memory_bandwidth_bytes_per_s",
                                          "/sync/sharding/strategy",
                                          "/sync/sharding/wrap_min_params",
                                          "/sync/sharding/backward_prefetch",
                                          "/sync/sharding/forward_prefetch",
                                          "/sync/sharding/limit_all_gathers",
                                          "/sync/local_sgd/period",
                                          "/sync/alpha_beta",
                                          "/sync/alpha_beta_table",
                                          "/compute/mode",
                                          "/compute/overlap_slowdown",
                                          "/compute/framework_overhead",
                                          "/compute/efficiency",
                                          "/compute/memory_efficiency",
                                          "/compute/step_time_s",
                                          "/compute/profile",
                                          "/data/synthetic",
                                          "/data/sample_bytes",
                                          "/data/decoded_bytes",
                                          "/data/samples",
                                          "/data/storage/kind",
                                          "/data/storage/bandwidth_bytes_per_s",
                                          "/data/storage/iops",
                                          "/data/storage/client_bandwidth_bytes_per_s",
                                          "/data/storage/client_shares_nic",
                                          "/data/storage/page_cache",
                                          "/data/decode/kind",
                                          "/data/decode/workers_per_gpu",
                                          "/data/decode/samples_per_core",
                                          "/data/decode/gpu_time_s",
                                          "/data/prefetch",
                                          "/data/stall/probability",
                                          "/data/stall/duration_s",
                                          "/stragglers/kind",
                                          "/stragglers/fixed/3",
                                          "/stragglers/sigma",
                                          "/stragglers/max",
                                          "/stragglers/per_iteration",
                                          "/simulation/scope"};
  std::set<std::string> leaves;
  collect_leaves(j, "", &leaves);
  EXPECT_EQ(leaves, expected);
}

// ---------------------------------------------------------------- bad scenario files

struct BadScenario {
  const char* file;  // in tests/data/bad_scenarios
  int line;
  int column;
  const char* message;  // a substring of the message
};

// Each file is a valid scenario with one mistake (its first line says which).
const std::vector<BadScenario>& bad_scenarios() {
  static const std::vector<BadScenario> cases = {
      {"unknown_top_level_key", 11, 1,
       "unknown key 'trainig' in the top level; allowed keys: name, seed, cluster, model, "
       "training, sync, compute, data, stragglers, simulation, sweep, validation, assumed (did you "
       "mean "
       "'training'?)"},
      {"unknown_cluster_key", 3, 3,
       "unknown key 'node' in cluster; allowed keys: nodes, gpus_per_node, gpu, intra_node, pcie, "
       "pcie_switch, host, cpu_cores, nic, fabric, calibration (did you mean 'nodes'?)"},
      {"missing_cluster", 1, 1, "missing required key 'cluster' in the top level"},
      {"missing_model", 1, 1, "missing required key 'model' in the top level"},
      {"nodes_zero", 3, 10, "cluster.nodes: expected an integer >= 1, got 0"},
      {"gpus_per_node_fractional", 4, 18,
       "cluster.gpus_per_node: expected an integer >= 1, got '2.5'"},
      {"unit_wrong_case", 12, 15,
       "sync.bucket_cap: unknown unit 'Mb' in '25Mb' (units are case-sensitive: did you mean "
       "'MB'?); a size takes one of: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"},
      {"unit_missing", 7, 9,
       "cluster.pcie: missing unit in '16': expected a bandwidth such as '200Gbps' or '25GB/s'"},
      {"unit_wrong_kind", 8, 30,
       "cluster.nic.bandwidth: 'GB' is a size unit, but a bandwidth is expected here"},
      {"bandwidth_negative", 6, 46,
       "cluster.intra_node.bandwidth: '-150GB/s' is negative, but a bandwidth cannot be "
       "negative"},
      {"latency_not_finite", 8, 48, "cluster.nic.latency: '.nan' is not a finite number"},
      {"unknown_gpu_preset", 5, 8,
       "cluster.gpu: 'v100' names more than one GPU preset: v100-sxm2-16gb, v100-sxm2-32gb; write "
       "one of them"},
      {"custom_gpu_missing_fp32", 5, 3,
       "missing required key 'fp32' in cluster.gpu (a GPU without a preset needs fp32, memory "
       "and hbm_bandwidth)"},
      {"unknown_model", 10, 9, "unknown model 'resnet-50'; known models: resnet50"},
      {"layers_on_non_mlp", 11, 11,
       "model.layers: layers applies only to model 'mlp', not 'resnet50'"},
      {"warmup_not_less_than_iterations", 13, 11,
       "training.warmup: must be less than training.iterations (3), got 3"},
      {"precision_unknown", 12, 14,
       "training.precision: unknown value 'fp4'; allowed: fp32, tf32, fp16, bf16, fp8"},
      {"overlap_not_boolean", 12, 12, "sync.overlap: expected true or false, got 'yes'"},
      {"efficiency_above_one", 13, 15,
       "compute.efficiency: expected a number > 0 and <= 1, got 1.5"},
      {"overlap_slowdown_below_one", 13, 21,
       "compute.overlap_slowdown: expected a number >= 1, got 0.9"},
      {"framework_overhead_below_one", 13, 23,
       "compute.framework_overhead: expected a number >= 1, got 0.95"},
      {"oversubscription_below_one", 8, 48,
       "cluster.fabric.oversubscription: expected a number >= 1, got 0.5"},
      {"nic_count_above_gpus", 8, 16,
       "cluster.nic.count: at most one NIC per GPU: count must be <= cluster.gpus_per_node (4), "
       "got 8"},
      {"nic_missing_multi_node", 2, 1,
       "missing required key 'nic' in cluster (the cluster has 2 nodes)"},
      {"colocated_servers_above_nodes", 14, 14,
       "sync.ps.servers: colocated servers run one per node: servers (4) must be <= "
       "cluster.nodes (2)"},
      {"local_sgd_period_zero", 13, 23, "sync.local_sgd.period: expected an integer >= 1, got 0"},
      {"measured_without_step_time", 11, 1, "missing required key 'step_time' in compute"},
      {"step_time_and_samples_per_second", 14, 23,
       "compute.samples_per_second: give either step_time or samples_per_second, not both"},
      {"profile_file_missing", 13, 12,
       "compute.profile: file not found: 'no-such-profile.yaml' (looked for"},
      {"real_data_without_storage", 11, 1, "missing required key 'storage' in data"},
      {"page_cache_above_one", 14, 58,
       "data.storage.page_cache: expected a number >= 0 and <= 1, got 1.2"},
      {"prefetch_negative", 13, 13, "data.prefetch: expected an integer >= 0, got -1"},
      {"straggler_factor_below_one", 13, 14,
       "stragglers.fixed.3: expected a number >= 1 and <= 1000, got 0.8"},
      {"straggler_rank_out_of_range", 14, 5,
       "stragglers.fixed.8: no GPU rank 8: ranks run from 0 to 7 (cluster has 8 GPUs)"},
      {"straggler_kind_ambiguous", 11, 1,
       "missing required key 'kind' in stragglers (fixed, sigma and max belong to different "
       "kinds"},
      {"duplicate_key", 8, 3, "duplicate key 'nodes' in cluster (first given at line 3)"},
      {"yaml_syntax_error", 9, 6, "YAML syntax error: end of map flow not found"},
      {"section_not_mapping", 11, 11, "training: expected a mapping with keys batch_per_gpu"},
      {"ps_staleness_negative", 13, 32, "sync.ps.staleness: expected an integer >= 0, got -1"},
      {"first_bucket_zero", 12, 17, "sync.first_bucket: must be greater than zero, got '0MiB'"},
      {"fusion_with_priority", 13, 13,
       "sync.schedule: sync.fusion (Horovod's tensor fusion) and sync.schedule: priority "
       "(ByteScheduler) are alternatives for all-reduce: remove one"},
      {"ps_chunk_renamed", 13, 27,
       "sync.ps.chunk: renamed: write sync.partition (the partition size of parameter servers and "
       "priority scheduling, default 4096000B)"},
      {"partition_zero", 12, 14, "sync.partition: must be greater than zero, got '0'"},
      {"key_placement_unknown", 13, 35,
       "sync.ps.key_placement: unknown value 'djb2'; allowed: hash, least-loaded, round-robin"},
      {"server_threads_zero", 13, 36, "sync.ps.server_threads: expected an integer >= 1, got 0"},
  };
  return cases;
}

TEST(BadScenarios, EachFileFailsAtItsMistakeWithItsMessage) {
  for (const BadScenario& c : bad_scenarios()) {
    std::string path = kBadDir + "/" + c.file + ".yaml";
    InputError e = load_error(path);
    EXPECT_EQ(e.where().file, path) << c.file;
    EXPECT_EQ(e.where().line, c.line) << c.file << ": " << e.what();
    EXPECT_EQ(e.where().column, c.column) << c.file << ": " << e.what();
    EXPECT_NE(e.message().find(c.message), std::string::npos)
        << c.file << "\n  got:      " << e.message() << "\n  expected: " << c.message;
  }
}

TEST(BadScenarios, EveryFileInTheFolderIsInTheTable) {
  std::set<std::string> listed;
  for (const BadScenario& c : bad_scenarios()) listed.insert(std::string(c.file) + ".yaml");
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(kBadDir)) {
    present.insert(entry.path().filename().string());
  }
  EXPECT_EQ(present, listed);
  EXPECT_GE(listed.size(), 20u);
}

TEST(BadScenarios, AMissingFileIsReportedAtItsPath) {
  InputError e = load_error(kBadDir + "/no-such-file.yaml");
  EXPECT_EQ(e.where().to_string(), kBadDir + "/no-such-file.yaml");
  EXPECT_EQ(e.message(), "cannot read the scenario file: No such file or directory");
  e = load_error(kBadDir);
  EXPECT_EQ(e.message(), "cannot read the scenario file: it is a folder, not a regular file");
}

TEST(BadScenarios, EmptyAndNonMappingDocumentsAreRejected) {
  InputError e = parse_error("");
  EXPECT_EQ(e.where().to_string(), "test.yaml:1:1");
  EXPECT_NE(e.message().find("missing required key 'cluster'"), std::string::npos);
  e = parse_error("- cluster\n- model\n");
  EXPECT_EQ(e.where().to_string(), "test.yaml:1:1");
  EXPECT_NE(e.message().find("a scenario is a mapping of sections"), std::string::npos);
}

}  // namespace
}  // namespace ddpsim
