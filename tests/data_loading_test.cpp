// The input pipeline: closed forms of the loader rates, and the SimGrid loader actors against
// them (loader-bound throughput, shared store vs local storage as nodes are added, prefetch,
// PCIe sharing with gradient traffic, GPU decode, page cache).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "sim/data/loader_rates.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/platform/cluster_platform.h"

namespace ddpsim {
namespace {

// A small MLP with a measured 10 ms step (batch 32): training alone runs 3200 samples/s per GPU.
// The loader's knobs are set per test with overrides.
const char* kBase = R"(
name: loader
cluster:
  nodes: 1
  gpus_per_node: 2
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  cpu_cores: 64
  nic: {count: 1, bandwidth: 25Gbps, latency: 2us}
model: {name: mlp, layers: [1024, 1024, 10]}
training: {batch_per_gpu: 32, precision: fp32, optimizer: sgd, iterations: 4, warmup: 1}
sync: {strategy: allreduce, algorithm: ring, latency_model: alpha}
compute: {mode: measured, step_time: 10ms}
data:
  sample_bytes: 100KB
  decoded_bytes: 150528B
  storage: {kind: local, bandwidth: 10GB/s}
  decode: {kind: cpu, workers_per_gpu: 4, samples_per_core: 10000}
  prefetch: 2
)";

constexpr double kTrainRate = 32 / 10e-3;

Scenario scenario(std::vector<std::string> overrides) {
  return parse_scenario_text(kBase, "loader.yaml", overrides);
}

SimulationResult run(const Scenario& s) {
  SimOptions options;
  options.trace = TraceGpus::none();
  options.baseline = false;
  return simulate(s, options);
}

void expect_rel(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_NEAR(actual, expected, tolerance * std::fabs(expected)) << what;
}

// ------------------------------------------------------------------ closed forms (no SimGrid)

TEST(LoaderRates, EachStageIsItsBandwidthOverItsBytesPerSample) {
  const Scenario s = scenario({"data.storage.bandwidth=200MB/s", "data.decode.samples_per_core=100",
                               "cluster.cpu_cores=6", "cluster.pcie=1GB/s"});
  const LoaderRates r = loader_rates(s.data, s.cluster);
  EXPECT_DOUBLE_EQ(r.storage, 200e6 / 2 / 100e3);  // node device split by 2 GPUs
  EXPECT_DOUBLE_EQ(r.decode, 3 * 100.0);           // 4 workers, capped at 6 cores / 2 GPUs
  EXPECT_DOUBLE_EQ(r.pcie, 1e9 / 150528.0);
  EXPECT_DOUBLE_EQ(r.rate(), 300.0);
  EXPECT_EQ(r.limit(), LoaderStage::kDecode);
}

TEST(LoaderRates, IopsCapTheStorageBandwidthAtOneReadPerSample) {
  const Scenario s = scenario({"data.storage.bandwidth=1GB/s", "data.storage.iops=2000"});
  EXPECT_DOUBLE_EQ(effective_storage_bandwidth(s.data), 2000 * 100e3);
  EXPECT_DOUBLE_EQ(loader_rates(s.data, s.cluster).storage, 2000.0 / 2);
}

TEST(LoaderRates, PageCacheDividesStorageBytesAfterTheFirstEpochOnly) {
  const Scenario s = scenario({"data.storage.bandwidth=200MB/s", "data.storage.page_cache=0.75"});
  EXPECT_DOUBLE_EQ(storage_bytes_per_sample(s.data, false), 100e3);
  EXPECT_DOUBLE_EQ(storage_bytes_per_sample(s.data, true), 25e3);
  EXPECT_DOUBLE_EQ(loader_rates(s.data, s.cluster, true).storage, 4000.0);
  EXPECT_DOUBLE_EQ(loader_rates(s.data, s.cluster, false).storage, 1000.0);
}

TEST(LoaderRates, SharedStoreSplitsTheAggregateAmongAllGpusAndCapsEachNodeByItsClient) {
  Scenario s = scenario({"cluster.nodes=4", "data.storage.kind=shared",
                         "data.storage.bandwidth=1GB/s", "data.storage.client_bandwidth=100MB/s"});
  EXPECT_DOUBLE_EQ(storage_share_per_gpu(s.data, s.cluster), 100e6 / 2);  // client-bound
  s.cluster.nodes = 16;
  EXPECT_DOUBLE_EQ(storage_share_per_gpu(s.data, s.cluster), 1e9 / 32);  // aggregate-bound
  // Across the compute network the node's NIC 0 (25 Gbps) caps it too.
  s.data.client_bandwidth = 0;
  s.data.client_shares_nic = true;
  s.cluster.nodes = 1;
  EXPECT_DOUBLE_EQ(storage_share_per_gpu(s.data, s.cluster), std::min(1e9, 25e9 / 8) / 2);
}

TEST(LoaderRates, GpuDecodeCopiesEncodedBytesAndDecodesAtOneOverGpuTime) {
  const Scenario s = scenario({"data.decode={kind: gpu, gpu_time: 0.1ms}"});
  EXPECT_DOUBLE_EQ(copied_bytes_per_sample(s.data), 100e3);
  EXPECT_DOUBLE_EQ(loader_rates(s.data, s.cluster).decode, 1e4);
}

// ------------------------------------------------------------------ the loader actors

// Each case makes one stage the bottleneck; every other stage and training are faster.
TEST(DataLoader, LoaderBoundThroughputIsTheSlowestStageOverItsBytesPerSample) {
  struct Case {
    const char* name;
    std::vector<std::string> overrides;
    double rate;  // samples/s per GPU, by hand
  };
  const std::vector<Case> cases = {
      // local device 200 MB/s shared by 2 GPUs, 100 KB per sample
      {"local storage", {"data.storage.bandwidth=200MB/s"}, 200e6 / 2 / 100e3},
      // 4 workers per GPU capped at 6 cores / 2 GPUs, 100 samples/s per core
      {"cpu decode", {"cluster.cpu_cores=6", "data.decode.samples_per_core=100"}, 3 * 100.0},
      // 100 MB/s PCIe per GPU, 150528 B per decoded sample
      {"pcie", {"cluster.pcie=100MB/s"}, 100e6 / 150528.0},
      // shared store over its own network: 1 GB/s aggregate, 100 MB/s client per node of 2 GPUs
      {"shared store, client link",
       {"cluster.nodes=2",
        "data.storage={kind: shared, bandwidth: 1GB/s, client_bandwidth: "
        "100MB/s}"},
       100e6 / 2 / 100e3},
      // shared store read across the compute network: 150 MB/s aggregate over 2 nodes x 2 GPUs
      {"shared store over the NIC",
       {"cluster.nodes=2",
        "data.storage={kind: shared, bandwidth: 150MB/s, client_shares_nic: "
        "true}"},
       150e6 / 4 / 100e3},
      // IOPS: 1500 reads/s per node, one per sample, split by 2 GPUs
      {"iops", {"data.storage.iops=1500"}, 750.0},
  };
  for (const Case& c : cases) {
    const Scenario s = scenario(c.overrides);
    ASSERT_LT(c.rate, kTrainRate) << c.name;
    EXPECT_NEAR(loader_rates(s.data, s.cluster).rate(), c.rate, 1e-9 * c.rate) << c.name;
    const SimulationResult r = run(s);
    expect_rel(r.samples_per_second, s.cluster.total_gpus() * c.rate, 1e-6, c.name);
    expect_rel(r.data_rate_per_gpu, c.rate, 1e-12, c.name);
    EXPECT_DOUBLE_EQ(r.train_rate_per_gpu, kTrainRate) << c.name;
    EXPECT_EQ(r.bottleneck, "data-loading-bound") << c.name;
  }
}

TEST(DataLoader, AProfilesMeasuredHostToDeviceRateCapsTheCopy) {
  // compute.mode profile with a profile whose pinned host-to-device copies ran at 100 MB/s: the
  // copy stage runs at that rate although the PCIe link is 16 GB/s.
  CalibrationProfile profile;
  profile.device.name = "test GPU";
  CopyCeiling h2d;
  h2d.bytes = 1e8;
  h2d.time = {1.0, 1.0, 1.0, 5};
  h2d.bandwidth = 100e6;
  profile.ceilings.h2d = h2d;
  const std::string path = ::testing::TempDir() + "/ddpsim_h2d_profile.yaml";
  write_profile(profile, path);
  const Scenario s = scenario({"compute.mode=profile", "compute.profile=" + path});
  const double rate = 100e6 / 150528.0;
  EXPECT_NEAR(loader_rates(s.data, s.cluster, true, 100e6).rate(), rate, 1e-9 * rate);
  const SimulationResult r = run(s);
  ASSERT_LT(rate, r.train_rate_per_gpu);
  expect_rel(r.samples_per_second, s.cluster.total_gpus() * rate, 1e-6, "h2d");
  expect_rel(r.data_rate_per_gpu, rate, 1e-12, "h2d");
  EXPECT_EQ(r.bottleneck, "data-loading-bound");
  std::remove(path.c_str());
}

TEST(DataLoader, AFastLoaderLeavesTrainingAlone) {
  const SimulationResult real = run(scenario({}));
  const SimulationResult synthetic = run(scenario({"data.synthetic=true"}));
  EXPECT_GT(real.data_rate_per_gpu, kTrainRate);
  EXPECT_NEAR(real.breakdown.data_wait, 0, 1e-12);
  expect_rel(real.iteration_time, synthetic.iteration_time, 1e-9, "iteration time");
  EXPECT_NE(real.bottleneck, "data-loading-bound");
}

// The aggregate (100 MB/s = 1000 samples/s in all) is the limit: 2, 4, 8 GPUs on 1, 2, 4 nodes
// all train at 1000 samples/s.
TEST(DataLoader, AddingNodesOnAnAggregateBoundSharedStoreDoesNotRaiseThroughput) {
  double previous = std::numeric_limits<double>::infinity();
  for (int nodes : {1, 2, 4}) {
    const Scenario s = scenario({"cluster.nodes=" + std::to_string(nodes),
                                 "data.storage={kind: shared, bandwidth: 100MB/s}"});
    const SimulationResult r = run(s);
    expect_rel(r.samples_per_second, 100e6 / 100e3, 1e-6, std::to_string(nodes) + " nodes");
    EXPECT_LE(r.samples_per_second, previous * (1 + 1e-6));
    previous = r.samples_per_second;
    EXPECT_EQ(r.bottleneck, "data-loading-bound");
  }
}

// The same 8 GPUs spread over 1, 2, 4, 8 nodes, each node with its own 800 MB/s device: the
// per-GPU loading rate is 800 MB/s / (8 / nodes) / 100 KB = 1000 x nodes samples/s, so the job
// is loader-bound on 1 and 2 nodes (8000, 16000 samples/s) and runs as fast as with synthetic
// data (compute and communication, below 8 x 3200 samples/s) on 4 and 8.
TEST(DataLoader, LocalStorageScalesWithNodesUntilTrainingIsTheLimit) {
  double previous = 0;
  for (int nodes : {1, 2, 4, 8}) {
    const std::string label = std::to_string(nodes) + " nodes";
    std::vector<std::string> o = {"cluster.nodes=" + std::to_string(nodes),
                                  "cluster.gpus_per_node=" + std::to_string(8 / nodes),
                                  "data.storage.bandwidth=800MB/s"};
    const SimulationResult r = run(scenario(o));
    o.push_back("data.synthetic=true");
    const SimulationResult training = run(scenario(o));
    const double loader = 1000.0 * nodes;
    EXPECT_DOUBLE_EQ(r.data_rate_per_gpu, loader) << label;
    EXPECT_GE(r.samples_per_second, previous * (1 - 1e-6)) << label;
    previous = r.samples_per_second;
    if (8 * loader < training.samples_per_second) {
      expect_rel(r.samples_per_second, 8 * loader, 1e-6, label);
      EXPECT_EQ(r.bottleneck, "data-loading-bound") << label;
    } else {
      expect_rel(r.samples_per_second, training.samples_per_second, 1e-6, label);
      EXPECT_LE(r.samples_per_second, 8 * kTrainRate * (1 + 1e-9)) << label;
      EXPECT_NE(r.bottleneck, "data-loading-bound") << label;
    }
  }
}

// The reader alone runs at 10000 samples/s (3.2 ms per batch against 10 ms of training) but
// stalls 25 ms on a fifth of the batches (seeded): on average 3.2 + 0.2 x 25 = 8.2 ms of loading
// per 10 ms step, so the loader keeps up on average but not at every stall. Deep prefetch
// absorbs the stalls; a pipeline holding only the batches in flight cannot.
TEST(DataLoader, PrefetchAbsorbsAnIntermittentlySlowLoader) {
  auto with_prefetch = [](int prefetch) {
    return run(
        scenario({"cluster.gpus_per_node=1", "training.iterations=41",
                  "data.storage.bandwidth=1GB/s", "data.stall={probability: 0.2, duration: 25ms}",
                  "data.prefetch=" + std::to_string(prefetch)}));
  };
  const SimulationResult shallow = with_prefetch(0);
  const SimulationResult deep = with_prefetch(16);
  EXPECT_GT(shallow.breakdown.data_wait, 0.05 * shallow.iteration_time);
  EXPECT_LT(deep.breakdown.data_wait, 0.2 * shallow.breakdown.data_wait);
  EXPECT_GT(deep.samples_per_second, shallow.samples_per_second);
  EXPECT_GE(deep.samples_per_second, 0.97 * kTrainRate);
}

// A loader that is always slower than training is not helped by any prefetch depth.
TEST(DataLoader, PrefetchDoesNotHelpAConstantlySlowLoader) {
  const std::vector<std::string> slow = {"data.storage.bandwidth=200MB/s"};
  std::vector<double> rates;
  for (int prefetch : {0, 16}) {
    std::vector<std::string> o = slow;
    o.push_back("data.prefetch=" + std::to_string(prefetch));
    rates.push_back(run(scenario(o)).samples_per_second);
  }
  expect_rel(rates[1], rates[0], 1e-9, "prefetch 16 vs 0");
  expect_rel(rates[0], 2 * 1000.0, 1e-6, "loader-bound rate");
}

// Two nodes of one GPU; PCIe = NIC = 1 GB/s, so the gradient flow entering a GPU is limited by
// its PCIe link. A PCIe-bound loader (8 MB per sample: 256 ms per batch, against ~70 ms of
// training) copies back to back into that link: the all-reduce gets half of it and takes twice
// as long (ring of 2: S/B, plus 2 alpha).
TEST(DataLoader, HostToDeviceCopiesSlowNicTrafficOnTheSharedPcieLink) {
  const std::vector<std::string> common = {"cluster.nodes=2",
                                           "cluster.gpus_per_node=1",
                                           "cluster.pcie=1GB/s",
                                           "cluster.nic.bandwidth=1GB/s",
                                           "model.layers=[2048, 4096, 10]",
                                           "sync.overlap=false",
                                           "sync.bucket_cap=1GB",
                                           "sync.first_bucket=1GB",
                                           "compute.step_time=1ms",
                                           "data.decoded_bytes=8MB"};
  std::vector<std::string> real = common;
  std::vector<std::string> synthetic = common;
  synthetic.push_back("data.synthetic=true");
  const SimulationResult with_copies = run(scenario(real));
  const SimulationResult without = run(scenario(synthetic));
  // 2048*4096 + 4096 + 4096*10 + 10 parameters, fp32, one bucket.
  const double bytes = 4.0 * (2048 * 4096 + 4096 + 4096 * 10 + 10);
  const double alpha = 2e-6;
  expect_rel(without.comm_time, bytes / 1e9 + 2 * alpha, 1e-6, "alone");
  expect_rel(with_copies.comm_time, bytes / 0.5e9 + 2 * alpha, 1e-6, "beside the copies");
  EXPECT_EQ(with_copies.bottleneck, "data-loading-bound");
}

// One GPU, so the only PCIe traffic is its input: one copy of batch x decoded bytes per trained
// batch (prefetched batches past the run are not counted); a shared store over the NIC moves
// batch x sample_bytes per step across its storage link and the node's NIC.
TEST(DataLoader, ByteCountersHoldOneCopyAndOneReadPerTrainedBatch) {
  const SimulationResult r = run(scenario({"cluster.gpus_per_node=1",
                                           "data.storage={kind: shared, bandwidth: 1GB/s, "
                                           "client_shares_nic: true}"}));
  const auto bytes = [&r](LinkClass c) { return r.bytes_per_link_class[static_cast<int>(c)]; };
  EXPECT_DOUBLE_EQ(bytes(LinkClass::kPcie), 32 * 150528.0);
  EXPECT_DOUBLE_EQ(bytes(LinkClass::kStorage), 32 * 100e3);
  EXPECT_DOUBLE_EQ(bytes(LinkClass::kNic), 32 * 100e3);
}

// GPU decode costs the GPU batch x gpu_time per step on top of training; the loader itself
// (storage, PCIe of the encoded bytes) is fast.
TEST(DataLoader, GpuDecodeAddsItsGpuTimeToEveryStep) {
  const SimulationResult r = run(scenario({"data.decode={kind: gpu, gpu_time: 0.1ms}"}));
  const SimulationResult synthetic = run(scenario({"data.synthetic=true"}));
  expect_rel(r.breakdown.data_wait, 32 * 0.1e-3, 1e-9, "data wait");
  expect_rel(r.iteration_time, synthetic.iteration_time + 32 * 0.1e-3, 1e-9, "iteration");
}

// 64 samples on 1 GPU: batches 0 and 1 are the first epoch, read in full at 1000 samples/s;
// from batch 2 on, 3/4 come from the page cache and the device delivers 4000 samples/s.
TEST(DataLoader, PageCacheSpeedsUpReadsAfterTheFirstEpoch) {
  const SimulationResult r =
      run(scenario({"cluster.gpus_per_node=1", "training.iterations=6", "training.warmup=3",
                    "data.samples=64", "data.storage.bandwidth=100MB/s",
                    "data.storage.page_cache=0.75", "data.decode.samples_per_core=500"}));
  // Cached reads (8 ms per batch) are faster than decode (4 x 500 = 2000 samples/s, 16 ms).
  EXPECT_DOUBLE_EQ(r.data_rate_per_gpu, 2000.0);
  expect_rel(r.samples_per_second, 2000.0, 1e-6, "after the first epoch");
}

}  // namespace
}  // namespace ddpsim
