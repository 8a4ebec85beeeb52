// sync.buffer_broadcast: DDP's broadcast of the model's buffers before every forward. On two
// single-GPU nodes joined by one NIC (alpha latency model) it adds exactly one collective of its
// size to every step, all of it exposed: S / B + 2 alpha (the two-rank ring's closed form), and
// the breakdown still adds up. Zero, parameter servers and a single GPU add nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_process.h"

namespace ddpsim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kBinary = DDPSIM_BINARY;
const testing::ScratchFolder kScratch("ddpsim-buffer-broadcast-test");

// 2 nodes x 1 GPU, a 10 Gbps NIC with 5 us per message, PCIe far faster than the NIC.
json simulate(const std::string& name, const std::string& sync_extra, int nodes = 2) {
  const fs::path dir = kScratch.fresh(name);
  std::ofstream(dir / "s.yaml")
      << "cluster: {nodes: " << nodes
      << ", gpus_per_node: 1, gpu: a100-sxm-40gb, pcie: 1TB/s, nic: {bandwidth: 10Gbps, "
         "latency: 5us}}\n"
      << "model: {name: mlp, layers: [1024, 1024, 10]}\n"
      << "training: {batch_per_gpu: 32, iterations: 3, warmup: 1}\n"
      << "sync: {latency_model: alpha" << sync_extra << "}\n";
  const testing::Exited r =
      testing::run_program({kBinary, "simulate", (dir / "s.yaml").string(), "-o",
                            (dir / "out").string(), "--no-baseline", "--trace-gpus", "none"},
                           kScratch);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(testing::read_text(dir / "out" / "results.json"));
}

double sum_of_breakdown(const json& b) {
  double total = 0;
  for (const auto& [key, value] : b.items())
    if (key != "total_s") total += value.get<double>();
  return total;
}

TEST(BufferBroadcast, AddsOneExposedCollectivePerStep) {
  const double bytes = 48720;  // MobileNetV3-small's batch-norm buffers
  const json without = simulate("without", "");
  const json with = simulate("with", ", buffer_broadcast: 48720B");
  const double expected = bytes / 1.25e9 + 2 * 5e-6;
  const json& a = without["result"];
  const json& b = with["result"];
  EXPECT_NEAR(b["iteration_time_s"].get<double>() - a["iteration_time_s"].get<double>(), expected,
              1e-9);
  EXPECT_NEAR(b["breakdown"]["exposed_comm_s"].get<double>() -
                  a["breakdown"]["exposed_comm_s"].get<double>(),
              expected, 1e-9);
  EXPECT_NEAR(sum_of_breakdown(b["breakdown"]), b["iteration_time_s"].get<double>(), 1e-9);
  EXPECT_EQ(with["scenario"]["sync"]["buffer_broadcast_bytes"].get<double>(), bytes);
  EXPECT_NE(with["result"]["notes"].dump().find("of buffers broadcast before every forward"),
            std::string::npos)
      << with["result"]["notes"].dump();
}

TEST(BufferBroadcast, NothingWhenZeroOrAlone) {
  const double base = simulate("base", "")["result"]["iteration_time_s"];
  EXPECT_DOUBLE_EQ(simulate("zero", ", buffer_broadcast: 0")["result"]["iteration_time_s"], base);
  const double alone = simulate("alone", "", 1)["result"]["iteration_time_s"];
  EXPECT_DOUBLE_EQ(
      simulate("alone-bcast", ", buffer_broadcast: 1MiB", 1)["result"]["iteration_time_s"], alone);
}

}  // namespace
}  // namespace ddpsim
