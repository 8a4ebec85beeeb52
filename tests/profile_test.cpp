// Calibration profiles: exact YAML round trip, atomic writes, the lookups the simulator uses
// (per-layer times, roofline efficiency, alpha-beta tables) and strict reading with
// file:line:column errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "sim/measurements/alpha_beta_fit.h"
#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/measurements/roofline_fit.h"
#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

constexpr double kInf = std::numeric_limits<double>::infinity();

const testing::ScratchFolder kScratch("ddpsim-profile-test");

fs::path fresh_dir(const std::string& name) { return kScratch.fresh(name); }

std::string write_text(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

RepeatStats stats(double median, double spread_fraction, int repeats = 20) {
  return RepeatStats{median, median * (1 - spread_fraction / 2), median * (1 + spread_fraction / 2),
                     repeats};
}

// A profile with every field set to a value that is not a default and not a round number.
CalibrationProfile full_profile() {
  CalibrationProfile p;
  p.device = {"NVIDIA H100 80GB HBM3",
              "9.0",
              85031714816.0,
              132,
              1,
              "13.0",
              "13.0",
              "13.1.0",
              "9.19.0",
              "2.28.9",
              "gpu-host",
              "2025-01-02T03:04:05Z"};
  p.notes = {"1 GPU: inter-GPU collectives need more GPUs", "second note: with \"quotes\""};
  ModelRun run;
  run.model = "resnet50";
  run.batch = 64;
  run.precision = Precision::kBf16;
  LayerTiming conv;
  conv.name = "layer1.0.conv1";
  conv.kind = LayerKind::kConv;
  conv.fwd = stats(1.2345678901234567e-4, 0.013);
  conv.bwd = stats(2.5e-4, 0.007, 21);
  conv.fwd_trace = {3, 1.1e-4, 4.3e-6};
  conv.bwd_trace = {5, 2.31e-4, 9.9e-6};
  conv.fwd_flops = 1.3e11 / 3;
  conv.bwd_flops = 2 * conv.fwd_flops;
  conv.fwd_bytes = 7.2e8 / 7;
  conv.bwd_bytes = 2 * conv.fwd_bytes;
  run.layers.push_back(conv);
  LayerTiming bn = conv;
  bn.name = "layer1.0.bn1";
  bn.kind = LayerKind::kBatchNorm;
  bn.fwd_trace = {};
  run.layers.push_back(bn);
  run.skipped.push_back({"fc", LayerKind::kLinear, "out of memory (cudaMalloc of 2.0 GiB)"});
  run.optimizer.push_back({Optimizer::kAdam, 25557032, stats(3.1e-3, 0.011)});
  p.runs.push_back(run);
  ModelRun gpt = run;
  gpt.model = "gpt2";
  gpt.sequence_length = 1024;
  gpt.precision = Precision::kFp16;
  gpt.skipped.clear();
  p.runs.push_back(gpt);

  p.ceilings.gemm.push_back({Precision::kBf16, 8192, 8192, 8192, stats(1.9e-3, 0.004), 5.8e14});
  p.ceilings.gemm.push_back({Precision::kFp32, 4096, 4096, 4096, stats(2.7e-3, 0.01), 5.1e13});
  p.ceilings.d2d = CopyCeiling{1 << 30, stats(7.1e-4, 0.002), 3.02e12};
  p.ceilings.h2d = CopyCeiling{1 << 28, stats(5.4e-3, 0.02), 4.97e10};
  p.roofline_efficiency = {{LayerKind::kConv, 0.61}, {LayerKind::kBatchNorm, 0.83}};
  OverlapInterference o;
  o.gemm_alone = stats(1.0e-3, 0.01);
  o.gemm_with_copy = stats(1.07e-3, 0.02);
  p.overlap = o;
  CollectiveSweep sweep;
  sweep.op = CollectiveOp::kAllReduce;
  sweep.algorithm = AllReduceAlgorithm::kRing;
  sweep.gpus = 16;
  sweep.nodes = 2;
  sweep.source = "nccl-tests: run.log";
  sweep.samples = {{8, 2.4e-5, 0.01}, {1 << 20, 7.7e-5, -0.02}, {1 << 30, 2.3e-2, 0.003}};
  // Continuous at 65536 B: 2.4e-5 + 65536 * 3.3e-10 = 4.4217856e-5 + 65536 * 2.15e-11.
  sweep.fit = {{0, 65536, 2.4e-5, 3.3e-10}, {65536, kInf, 4.4217856e-5, 2.15e-11}};
  p.collectives.push_back(sweep);
  CollectiveSweep ag = sweep;
  ag.op = CollectiveOp::kAllGather;
  ag.algorithm = AllReduceAlgorithm::kAuto;
  p.collectives.push_back(ag);
  return p;
}

void expect_stats_eq(const RepeatStats& a, const RepeatStats& b) {
  EXPECT_EQ(a.median, b.median);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.repeats, b.repeats);
}

TEST(Profile, WrittenProfileLoadsBackEqualToTheLastBit) {
  const fs::path dir = fresh_dir("roundtrip");
  const std::string path = (dir / "sub" / "p.yaml").string();
  const CalibrationProfile a = full_profile();
  write_profile(a, path);
  const CalibrationProfile b = load_profile(path);
  EXPECT_EQ(b.source, path);
  EXPECT_EQ(b.device.name, a.device.name);
  EXPECT_EQ(b.device.compute_capability, "9.0");
  EXPECT_EQ(b.device.memory_bytes, a.device.memory_bytes);
  EXPECT_EQ(b.device.multiprocessors, 132);
  EXPECT_EQ(b.device.cudnn, "9.19.0");
  EXPECT_EQ(b.device.date, a.device.date);
  EXPECT_EQ(b.notes, a.notes);
  ASSERT_EQ(b.runs.size(), 2u);
  EXPECT_EQ(b.runs[1].model, "gpt2");
  EXPECT_EQ(b.runs[1].precision, Precision::kFp16);
  EXPECT_EQ(b.runs[1].sequence_length, 1024);
  const ModelRun& r = b.runs[0];
  EXPECT_EQ(r.batch, 64);
  EXPECT_EQ(r.precision, Precision::kBf16);
  ASSERT_EQ(r.layers.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const LayerTiming& x = a.runs[0].layers[i];
    const LayerTiming& y = r.layers[i];
    EXPECT_EQ(y.name, x.name);
    EXPECT_EQ(y.kind, x.kind);
    expect_stats_eq(y.fwd, x.fwd);
    expect_stats_eq(y.bwd, x.bwd);
    EXPECT_EQ(y.fwd_trace.kernels, x.fwd_trace.kernels);
    EXPECT_EQ(y.fwd_trace.kernel_seconds, x.fwd_trace.kernel_seconds);
    EXPECT_EQ(y.bwd_trace.gap_seconds, x.bwd_trace.gap_seconds);
    EXPECT_EQ(y.fwd_flops, x.fwd_flops);
    EXPECT_EQ(y.bwd_bytes, x.bwd_bytes);
  }
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].reason, "out of memory (cudaMalloc of 2.0 GiB)");
  EXPECT_EQ(r.skipped[0].kind, LayerKind::kLinear);
  ASSERT_EQ(r.optimizer.size(), 1u);
  EXPECT_EQ(r.optimizer[0].optimizer, Optimizer::kAdam);
  EXPECT_EQ(r.optimizer[0].params, 25557032);
  expect_stats_eq(r.optimizer[0].time, a.runs[0].optimizer[0].time);
  ASSERT_EQ(b.ceilings.gemm.size(), 2u);
  EXPECT_EQ(b.ceilings.gemm_flops(Precision::kBf16), 5.8e14);
  EXPECT_EQ(b.ceilings.gemm_flops(Precision::kTf32), 0);
  EXPECT_EQ(b.ceilings.gemm[1].k, 4096);
  ASSERT_TRUE(b.ceilings.d2d && b.ceilings.h2d);
  EXPECT_FALSE(b.ceilings.d2h);
  EXPECT_EQ(b.ceilings.d2d->bandwidth, 3.02e12);
  expect_stats_eq(b.ceilings.h2d->time, a.ceilings.h2d->time);
  EXPECT_EQ(b.roofline_efficiency, a.roofline_efficiency);
  ASSERT_TRUE(b.overlap);
  EXPECT_FALSE(b.overlap->gemm_with_allreduce);
  EXPECT_DOUBLE_EQ(b.overlap->slowdown(), 1.07);
  ASSERT_EQ(b.collectives.size(), 2u);
  EXPECT_EQ(b.collectives[1].op, CollectiveOp::kAllGather);
  const CollectiveSweep& s = b.collectives[0];
  EXPECT_EQ(s.algorithm, AllReduceAlgorithm::kRing);
  EXPECT_EQ(s.gpus, 16);
  EXPECT_EQ(s.source, "nccl-tests: run.log");
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_EQ(s.samples[1].fit_error, -0.02);
  ASSERT_EQ(s.fit.size(), 2u);
  EXPECT_EQ(s.fit[0].beta, 3.3e-10);
  EXPECT_TRUE(std::isinf(s.fit[1].max_bytes));
  fs::remove_all(dir);
}

// A Gloo sweep over a shaped 1 Gbit/s veth on a loaded machine (CI, 2026-11-27): the smallest
// sizes rise with their bytes, so the non-negative fit's first range passes through the origin
// (alpha 0). What `ddpsim calibrate` writes must load: the scenario that used it failed with
// "the time at min_bytes (0 B) must be positive".
TEST(Profile, FitThroughTheOriginLoadsBack) {
  const std::vector<double> bytes = {8,      16,     32,     64,      128,     256,     512,
                                     1024,   2048,   4096,   8192,    16384,   32768,   65536,
                                     131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608};
  const std::vector<double> seconds = {
      3.169e-4,  1.0166e-3, 1.6035e-3, 2.0162e-3, 1.686e-3,  1.867e-3,  2.8758e-3,
      3.2248e-3, 1.4665e-3, 2.1965e-3, 1.9338e-3, 1.535e-3,  1.3202e-3, 7.074e-4,
      1.2274e-3, 4.5283e-3, 8.8434e-3, 1.023e-2,  1.8685e-2, 3.7436e-2, 7.4229e-2};
  CalibrationProfile p = full_profile();
  CollectiveSweep& sweep = p.collectives[0];
  sweep.samples.clear();
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds);
  for (size_t i = 0; i < bytes.size(); ++i)
    sweep.samples.push_back({bytes[i], seconds[i], fit.rel_error[i]});
  sweep.fit = fit.ranges;
  ASSERT_EQ(fit.ranges.front().alpha, 0);  // the case this test is for
  const fs::path dir = fresh_dir("origin");
  const std::string path = (dir / "p.yaml").string();
  write_profile(p, path);
  const CalibrationProfile back = load_profile(path);
  ASSERT_EQ(back.collectives[0].fit.size(), fit.ranges.size());
  for (double b : {1.0, 8.0, 1e3, 1e6, 1e8}) {
    EXPECT_GT(alpha_beta_predict(back.collectives[0].fit, b), 0) << b;
    EXPECT_DOUBLE_EQ(alpha_beta_predict(back.collectives[0].fit, b),
                     alpha_beta_predict(fit.ranges, b));
  }
  fs::remove_all(dir);
}

TEST(Profile, WriteReplacesAnExistingFileAndLeavesNoTemporary) {
  const fs::path dir = fresh_dir("atomic");
  const std::string path = write_text(dir, "p.yaml", "garbage: [");
  write_profile(full_profile(), path);
  EXPECT_EQ(load_profile(path).runs.size(), 2u);
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(Profile, RepeatStatsMedianAndSpread) {
  const RepeatStats odd = repeat_stats({3, 1, 2});
  EXPECT_EQ(odd.median, 2);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 3);
  EXPECT_EQ(odd.repeats, 3);
  EXPECT_DOUBLE_EQ(odd.spread(), 1.0);
  EXPECT_EQ(repeat_stats({4, 1, 3, 2}).median, 2.5);
  EXPECT_EQ(repeat_stats({}).repeats, 0);
}

TEST(Profile, LayerTimeIsExactAtAMeasuredBatchAndScaledFromTheNearestOtherwise) {
  CalibrationProfile p = full_profile();
  ModelRun small = p.runs[0];
  small.batch = 16;
  small.layers[0].fwd.median = 4e-5;
  p.runs.push_back(small);

  const auto exact = layer_time(p, "resnet50", Precision::kBf16, "layer1.0.conv1", 64);
  ASSERT_TRUE(exact);
  EXPECT_TRUE(exact->exact);
  EXPECT_EQ(exact->fwd, p.runs[0].layers[0].fwd.median);
  EXPECT_EQ(exact->bwd, 2.5e-4);

  // 24 is nearer 16 than 64: 4e-5 * 24 / 16.
  const auto near16 = layer_time(p, "resnet50", Precision::kBf16, "layer1.0.conv1", 24);
  ASSERT_TRUE(near16);
  EXPECT_FALSE(near16->exact);
  EXPECT_DOUBLE_EQ(near16->fwd, 6e-5);
  const auto near64 = layer_time(p, "resnet50", Precision::kBf16, "layer1.0.conv1", 128);
  EXPECT_DOUBLE_EQ(near64->bwd, 5e-4);

  EXPECT_FALSE(layer_time(p, "resnet50", Precision::kFp32, "layer1.0.conv1", 64));
  EXPECT_FALSE(layer_time(p, "resnet50", Precision::kBf16, "no.such.layer", 64));
  EXPECT_FALSE(layer_time(p, "vgg16", Precision::kBf16, "layer1.0.conv1", 64));
}

TEST(Profile, AlphaBetaTimeUsesTheAlgorithmThenAuto) {
  std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> table;
  table[AllReduceAlgorithm::kRing] = {{0, 1024, 1e-5, 0}, {1024, kInf, 2e-5, 1e-9}};
  EXPECT_DOUBLE_EQ(*alpha_beta_time(table, AllReduceAlgorithm::kRing, 512), 1e-5);
  EXPECT_DOUBLE_EQ(*alpha_beta_time(table, AllReduceAlgorithm::kRing, 2048), 2e-5 + 2048e-9);
  EXPECT_FALSE(alpha_beta_time(table, AllReduceAlgorithm::kTree, 512));
  table[AllReduceAlgorithm::kAuto] = {{0, kInf, 3e-5, 0}};
  EXPECT_DOUBLE_EQ(*alpha_beta_time(table, AllReduceAlgorithm::kTree, 512), 3e-5);
  EXPECT_DOUBLE_EQ(*alpha_beta_time(table, AllReduceAlgorithm::kRing, 512), 1e-5);
}

TEST(Profile, AllReduceTablesComeFromAllReduceSweepsOnly) {
  const auto tables = all_reduce_tables(full_profile());
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables.begin()->first, AllReduceAlgorithm::kRing);
}

TEST(Profile, AllReduceTablePrefersMostGpusAndNeverUsesOneGpu) {
  CalibrationProfile p;
  auto sweep = [](int gpus, double alpha) {
    CollectiveSweep s;
    s.algorithm = AllReduceAlgorithm::kAuto;
    s.gpus = gpus;
    s.fit = {{0, kInf, alpha, 1e-10}};
    return s;
  };
  p.collectives = {sweep(1, 1e-6)};
  EXPECT_TRUE(all_reduce_tables(p).empty());
  p.collectives = {sweep(16, 3e-5), sweep(1, 1e-6), sweep(8, 2e-5)};
  EXPECT_EQ(all_reduce_tables(p).at(AllReduceAlgorithm::kAuto)[0].alpha, 3e-5);
}

TEST(Profile, OverlapSlowdownPrefersTheAllReduceMeasurement) {
  OverlapInterference o;
  EXPECT_EQ(o.slowdown(), 1);
  o.gemm_alone = stats(2e-3, 0);
  o.gemm_with_copy = stats(2.2e-3, 0);
  EXPECT_DOUBLE_EQ(o.slowdown(), 1.1);
  o.gemm_with_allreduce = stats(2.5e-3, 0);
  EXPECT_DOUBLE_EQ(o.slowdown(), 1.25);
}

TEST(RooflineFit, EfficiencyIsRooflineTimeOverMeasuredTimePerKind) {
  // Peak 100 TFLOP/s, 2 TB/s. conv A: 1 GFLOP fwd (10 us roofline), 2 GFLOP bwd (20 us),
  // measured 20 + 40 us. conv B: 0.5 GFLOP (5 us) / 1 GFLOP (10 us), measured 10 + 20 us.
  // (10+20+5+10) / (20+40+10+20) = 0.5. BN: memory-bound, 4 MB fwd (2 us), 8 MB bwd (4 us),
  // measured 3 + 5 us -> 0.75.
  auto layer = [](LayerKind kind, double ff, double fb, double tf, double tb) {
    LayerTiming t;
    t.kind = kind;
    t.fwd_flops = ff;
    t.bwd_flops = 2 * ff;
    t.fwd_bytes = fb;
    t.bwd_bytes = 2 * fb;
    t.fwd.median = tf;
    t.bwd.median = tb;
    return t;
  };
  const std::vector<LayerTiming> layers = {
      layer(LayerKind::kConv, 1e9, 1e6, 20e-6, 40e-6),
      layer(LayerKind::kConv, 0.5e9, 1e6, 10e-6, 20e-6),
      layer(LayerKind::kBatchNorm, 1e6, 4e6, 3e-6, 5e-6),
  };
  const auto eff = fit_roofline_efficiency(layers, 100e12, 2e12);
  ASSERT_EQ(eff.size(), 2u);
  EXPECT_DOUBLE_EQ(eff.at(LayerKind::kConv), 0.5);
  EXPECT_DOUBLE_EQ(eff.at(LayerKind::kBatchNorm), 0.75);
  EXPECT_EQ(eff.count(LayerKind::kLinear), 0u);
}

// ---------------------------------------------------------------- the sync.alpha_beta table

TEST(AlphaBetaTable, PlainTableWithUnitsLoadsByAlgorithm) {
  const fs::path dir = fresh_dir("table");
  const std::string path = write_text(dir, "t.yaml",
                                      "collectives:\n"
                                      "  - op: all_reduce\n"
                                      "    algorithm: ring\n"
                                      "    fit:\n"
                                      "      - { min_bytes: 0, max_bytes: 64KiB, alpha: 20us, "
                                      "beta: 2e-10 }\n"
                                      "      - { min_bytes: 64KiB, max_bytes: .inf, alpha: "
                                      "32.45184us, beta: 1e-11 }\n"  // joins the first
                                      "  - op: all_reduce\n"
                                      "    algorithm: tree\n"
                                      "    fit: [ { min_bytes: 0, max_bytes: .inf, alpha: 0.00003, "
                                      "beta: 2e-11 } ]\n"
                                      "  - op: broadcast\n"
                                      "    fit: [ { min_bytes: 0, max_bytes: .inf, alpha: 1e-5, "
                                      "beta: 0 } ]\n");
  const auto table = load_alpha_beta_table(path);
  ASSERT_EQ(table.size(), 2u);
  const auto& ring = table.at(AllReduceAlgorithm::kRing);
  ASSERT_EQ(ring.size(), 2u);
  EXPECT_EQ(ring[0].max_bytes, 65536);
  EXPECT_DOUBLE_EQ(ring[0].alpha, 20e-6);
  EXPECT_TRUE(std::isinf(ring[1].max_bytes));
  EXPECT_DOUBLE_EQ(*alpha_beta_time(table, AllReduceAlgorithm::kTree, 1e6), 3e-5 + 1e6 * 2e-11);
  fs::remove_all(dir);
}

// Loads `text` with `load` and expects an InputError at line:column mentioning `what`.
template <class Load>
void expect_error(Load load, const std::string& text, int line, int column,
                  const std::string& what) {
  const fs::path dir = fresh_dir("err");
  const std::string path = write_text(dir, "bad.yaml", text);
  try {
    load(path);
    ADD_FAILURE() << "expected an error containing '" << what << "' for:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

const std::string kRow = "{ min_bytes: 0, max_bytes: .inf, alpha: 1e-5, beta: 1e-10 }";

TEST(AlphaBetaTable, BrokenTablesAreErrorsAtTheOffendingLine) {
  auto load = [](const std::string& p) { load_alpha_beta_table(p); };
  expect_error(load,
               "collectives:\n  - op: all_reduce\n    fit:\n"
               "      - { min_bytes: 0, max_bytes: 1024, alpha: 1e-5, beta: 0 }\n"
               "      - { min_bytes: 2048, max_bytes: .inf, alpha: 1e-5, beta: 0 }\n",
               5, 22, "ranges must be contiguous");
  expect_error(load,
               "collectives:\n  - op: all_reduce\n    fit:\n"
               "      - { min_bytes: 0, max_bytes: .inf, alpha: -1e-5, beta: 0 }\n",
               4, 49, "must be >= 0");
  expect_error(load,
               "collectives:\n  - op: all_reduce\n    algorithm: rings\n    fit: [" + kRow + "]\n",
               3, 16, "allowed: ring, tree, halving-doubling, hierarchical, auto");
  expect_error(load,
               "collectives:\n  - op: all_reduce\n    fit: [" + kRow +
                   "]\n  - op: all_reduce\n    fit: [" + kRow + "]\n",
               4, 5, "a second all_reduce table for algorithm auto measured on the same number");
  expect_error(load, "collectives:\n  - op: broadcast\n    fit: [" + kRow + "]\n", 1, 1,
               "no all_reduce table");
  expect_error(load, "collectives:\n  - op: all_reduce\n    gpus: 1\n    fit: [" + kRow + "]\n", 1,
               1, "no all_reduce table");
  expect_error(load, "collectives:\n  - op: all_reduce\n    fits: [" + kRow + "]\n", 3, 5,
               "unknown key 'fits'");
  expect_error(load,
               "collectives:\n  - op: all_reduce\n    fit:\n"
               "      - { min_bytes: 0, max_bytes: 64KB/s, alpha: 1e-5, beta: 1e-10 }\n",
               4, 36, "max_bytes");
  expect_error(load, "collectives:\n  - op: all_reduce\n    fit: []\n", 3, 10,
               "at least one range");
}

TEST(ProfileErrors, StrictReadingPointsAtTheMistake) {
  auto load = [](const std::string& p) { load_profile(p); };
  expect_error(load, "format: 1\ndevise: {}\n", 2, 1, "unknown key 'devise'");
  expect_error(load, "format: 2\n", 1, 9, "profile format 1");
  expect_error(load, "format: 1\nruns:\n  - model: resnet50\n    batch: 64\n    precision: fp4\n",
               5, 16, "allowed: fp32, tf32, fp16, bf16, fp8");
  expect_error(load, "runs:\n  - model: m\n    batch: 0\n    precision: fp32\n", 3, 12,
               "must be >= 1");
  expect_error(load,
               "runs:\n  - model: m\n    batch: 8\n    precision: fp32\n    layers:\n"
               "      - name: a\n        kind: convolution\n        fwd: {median: 1e-3}\n"
               "        bwd: {median: 1e-3}\n",
               7, 15, "unknown layer kind 'convolution'");
  expect_error(load,
               "runs:\n  - model: m\n    batch: 8\n    precision: fp32\n    layers:\n"
               "      - name: a\n        kind: conv\n        fwd: {median: 1e-3, min: 2e-3}\n"
               "        bwd: {median: 1e-3}\n",
               8, 14, "min <= median <= max");
  expect_error(load,
               "runs:\n  - model: m\n    batch: 8\n    precision: fp32\n    layers:\n"
               "      - name: a\n        kind: conv\n        fwd: {median: 1e-3}\n",
               6, 9, "missing key 'bwd'");
  expect_error(load, "ceilings:\n  d2d: {bytes: 1GiB, time: {median: 1e-3}, bandwidth: fast}\n", 2,
               55, "bandwidth");
  expect_error(load, "roofline_efficiency: {conv: 0}\n", 1, 29, "must be > 0");
  expect_error(load, "notes: [\"a\"\n", 2, 1, "invalid YAML");
  // Implausible values that would overflow the simulator's sums are rejected at the value.
  expect_error(load,
               "runs:\n  - model: m\n    batch: 8\n    precision: fp32\n    layers:\n"
               "      - name: a\n        kind: conv\n        fwd: {median: 1e300}\n"
               "        bwd: {median: 1e-3}\n",
               8, 23, "at most 1e6 seconds");
  expect_error(load, "runs:\n  - model: m\n    batch: 99999999999\n    precision: fp32\n", 3, 12,
               "must be <= 2147483647");
  expect_error(load, "", 1, 1, "empty file");
  expect_error(load, "- 1\n- 2\n", 1, 1, "expected a map");
}

TEST(ProfileErrors, MissingFileNamesThePath) {
  try {
    load_profile("/nonexistent/profile.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/profile.yaml");
  }
}

}  // namespace
}  // namespace ddpsim
