// The bad-input catalogue through the real binary: every file in tests/data/bad_inputs holds one
// mistake a user makes (its first line says which; a JSON file says it in its "mistake" key) in
// a scenario, a sweep, an alpha-beta table, model file or config.json it refers to, an
// nccl-tests log or a torch.profiler trace, and `ddpsim` must print exactly one line
// "error: FILE:LINE:COLUMN: MESSAGE" and exit 2. The loader's own table
// (tests/data/bad_scenarios, scenario_loader_test.cpp) is run through the binary too.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/sweep/results_csv.h"
#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = DDPSIM_SOURCE_DIR;
const std::string kBinary = DDPSIM_BINARY;
const std::string kDir = kSourceDir + "/tests/data/bad_inputs";

using Outcome = ddpsim::testing::Exited;

using ddpsim::testing::read_text;

const ddpsim::testing::ScratchFolder kScratch("ddpsim-bad-input-test");

fs::path scratch_dir() { return kScratch.root(); }

// Runs `ddpsim ARGS` (ARGS already shell-quoted) and captures both streams.
Outcome run_ddpsim(const std::string& args) {
  Outcome o = ddpsim::testing::run_shell_captured("'" + kBinary + "' " + args, kScratch);
  o.err = ddpsim::testing::without_sanitizer_warning(o.err);
  return o;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

enum Command { kSimulate, kSweep, kImport, kImportTrace };

std::string command_line(Command command, const std::string& path) {
  const std::string out = quoted((scratch_dir() / "out").string());
  switch (command) {
    case kSimulate:
      return "simulate " + quoted(path) + " -o " + out + " --no-baseline";
    case kSweep:
      return "sweep " + quoted(path) + " -o " + out + " --list";
    case kImport:
      return "calibrate --import-nccl-tests " + quoted(path) + " -o " +
             quoted((scratch_dir() / "profile.yaml").string());
    case kImportTrace:
      return "calibrate --import-torch-trace " + quoted(path) + " --model net --batch 8 -o " +
             quoted((scratch_dir() / "profile.yaml").string());
  }
  return "";
}

struct BadInput {
  const char* file;     // in tests/data/bad_inputs
  Command command;      // how the user fed it to ddpsim
  const char* where;    // "LINE:COLUMN" in `file`, a file it refers to ("files/x.yaml:7:21"),
                        // or "" for the file as a whole (e.g. its simulated clock overflows)
  const char* message;  // exact; $DIR stands for tests/data/bad_inputs
};

const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> cases = {
      {"sharding_unknown.yaml", kSimulate, "12:13",
       "sync.sharding: unknown value 'zero4'; allowed: none, zero1, zero2, zero3, fsdp-hybrid "
       "(or FSDP's no_shard, full_shard, hybrid_shard)"},
      {"sharding_with_ps.yaml", kSimulate, "13:13",
       "sync.sharding: zero3 is data parallelism over all-reduce collectives and does not "
       "combine with sync.strategy ps; allowed with sharding: sync.strategy allreduce"},
      {"sharding_wrap_unknown.yaml", kSimulate, "13:16",
       "sync.fsdp.wrap: unknown value 'transformer'; allowed: per-layer, or a parameter count "
       "such as 100000000 or 100M"},
      {"sharding_prefetch_unknown.yaml", kSimulate, "13:29",
       "sync.fsdp.backward_prefetch: unknown value 'early'; allowed: pre, post, none"},
      {"algorithm_unknown.yaml", kSimulate, "12:14",
       "sync.algorithm: unknown value 'butterfly'; allowed: ring, tree, "
       "halving-doubling, hierarchical, auto, nvls, pat"},
      {"nvls_without_sharp.yaml", kSimulate, "11:14",
       "sync.algorithm: nvls needs NVLink SHARP: cluster.intra_node.kind nvswitch, at least 3 "
       "GPUs per node (NCCL enables NVLS above 2) and a GPU of compute capability 9.0 or later "
       "(H100, H200, H800, B200, GB200); this cluster has nvswitch, 8 GPU(s) per node and compute "
       "capability 8.0; "
       "allowed: ring, tree, halving-doubling, hierarchical, auto"},
      {"nvls_with_ll.yaml", kSimulate, "12:13",
       "sync.protocol: NCCL runs NVLS with the Simple protocol only, not ll; allowed with "
       "sync.algorithm nvls: auto, simple"},
      {"nvls_with_sharding.yaml", kSimulate, "11:14",
       "sync.algorithm: nvls is modelled for all-reduce only, and zero3 also runs "
       "reduce-scatter and all-gather; allowed with sharding: ring, auto"},
      {"alpha_beta_is_a_scenario.yaml", kSimulate, "files/not_a_table.yaml:2:1",
       "unknown key 'cluster' in the profile; allowed: format, device, notes, runs, "
       "ceilings, roofline_efficiency, overlap, collectives"},
      {"alpha_beta_negative_beta.yaml", kSimulate, "files/table_negative_beta.yaml:6:61",
       "collectives[0].fit[0].beta (seconds per byte): must be >= 0, got -1e-10"},
      {"alpha_beta_not_contiguous.yaml", kSimulate, "files/table_gap.yaml:7:21",
       "collectives[0].fit[1].min_bytes: ranges must be contiguous: expected 65536 (the "
       "previous range's max_bytes)"},
      {"alpha_beta_too_small.yaml", kSimulate, "13:15",
       "the all_reduce table in $DIR/files/table_small_sizes.yaml (auto) was measured from "
       "8.00 B to 1.00 MiB, but this scenario reduces buckets of 7.82 MiB to 30.0 MiB; a fit is "
       "not extrapolated: measure larger sizes (nccl-tests -e 30.0 MiB) or drop sync.alpha_beta "
       "to use the link model"},
      {"alpha_beta_jump.yaml", kSimulate, "files/table_jump.yaml:7:52",
       "collectives[0].fit[1]: the time jumps from 1.85536e-05 s to 2.32768e-05 s (+25.5 %) at "
       "65536 B, the boundary with the previous range; ranges must join within 1 % (refit the "
       "table: `ddpsim calibrate` fits continuous curves)"},
      {"calibration_unknown_parameter.yaml", kSimulate,
       "files/platform_unknown_parameter.yaml:6:16",
       "parameters[1].parameter: unknown link parameter 'cluster.nic.speed'; allowed: "
       "cluster.intra_node.bandwidth, cluster.intra_node.latency, cluster.pcie, "
       "cluster.nic.bandwidth, cluster.nic.latency"},
      {"calibration_negative_latency.yaml", kSimulate, "files/platform_negative_latency.yaml:5:12",
       "parameters[0].value: '-2us' is negative, but a duration cannot be negative"},
      {"alpha_beta_other_algorithm.yaml", kSimulate, "files/table_tree_only.yaml",
       "the alpha-beta table has no all_reduce rows for algorithm 'ring' nor for "
       "'auto'; add them or choose an algorithm it has"},
      {"alpha_beta_table_missing.yaml", kSimulate, "12:15",
       "sync.alpha_beta: file not found: 'files/no-such-table.yaml' (looked for "
       "'$DIR/files/no-such-table.yaml')"},
      {"bandwidth_overflow.yaml", kSimulate, "7:9", "cluster.pcie: '1e400GB/s' is out of range"},
      {"batch_per_gpu_zero.yaml", kSimulate, "12:18",
       "training.batch_per_gpu: expected an integer >= 1, got 0"},
      {"bucket_cap_negative.yaml", kSimulate, "12:15",
       "sync.bucket_cap: '-25MB' is negative, but a size cannot be negative"},
      {"channels_negative.yaml", kSimulate, "12:13",
       "sync.channels: expected an integer >= 0, got -1"},
      {"cluster_too_large.yaml", kSimulate, "2:1",
       "cluster: nodes x gpus_per_node = 1600000 GPUs; at most 1048576 are supported"},
      {"compute_mode_unknown.yaml", kSimulate, "12:9",
       "compute.mode: unknown value 'guess'; allowed: roofline, measured, profile"},
      {"cpu_cores_zero.yaml", kSimulate, "8:14",
       "cluster.cpu_cores: expected an integer >= 1, got 0"},
      {"decode_gpu_without_time.yaml", kSimulate, "16:3",
       "missing required key 'gpu_time' in data.decode (decode kind gpu: GPU time per "
       "sample, e.g. 0.1ms)"},
      {"dedicated_ps_without_nic.yaml", kSimulate, "2:1",
       "missing required key 'nic' in cluster (dedicated parameter servers are reached "
       "over the network): {count: 8, bandwidth: 200Gbps, latency: 2us}"},
      {"document_is_a_list.yaml", kSimulate, "2:1",
       "a scenario is a mapping of sections (cluster, model, training, sync, compute, "
       "data, stragglers), got a sequence"},
      {"duration_as_bandwidth.yaml", kSimulate, "7:9",
       "cluster.pcie: 'ms' is a duration unit, but a bandwidth is expected here; a "
       "bandwidth takes one of: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, bps, "
       "Kbps, Mbps, Gbps, Tbps"},
      {"efficiency_zero.yaml", kSimulate, "12:15",
       "compute.efficiency: expected a number > 0 and <= 1, got 0"},
      {"empty_file.yaml", kSimulate, "1:1",
       "missing required key 'cluster' in the top level (nodes, gpus_per_node, gpu, "
       "intra_node, pcie, nic, fabric)"},
      {"fabric_kind_unknown.yaml", kSimulate, "8:18",
       "cluster.fabric.kind: unknown value 'torus'; allowed: leaf-spine"},
      {"fusion_not_a_mapping.yaml", kSimulate, "12:11",
       "sync.fusion: expected a mapping with keys threshold, cycle_time, coordination, got 'on'"},
      {"gpu_as_list.yaml", kSimulate, "5:8",
       "cluster.gpu: expected a GPU preset name (k80, p100-sxm2-16gb, v100-sxm2-16gb, "
       "v100-sxm2-32gb, rtx-2080-ti, t4, a100-sxm-40gb, a100-sxm-80gb, a100-pcie-40gb, "
       "rtx-3090, l4, rtx-4090, h100-sxm-80gb, h100-pcie-80gb, h200-sxm-141gb, b200-sxm-180gb, "
       "gb200-186gb, mi300x-192gb) or a mapping of preset, fp32, tf32, fp16, bf16, fp8, memory, "
       "hbm_bandwidth, compute_capability"},
      {"host_sockets_three.yaml", kSimulate, "8:19",
       "cluster.host.sockets: expected an integer in [1, 2], got 3 (too large)"},
      {"gradient_accumulation_zero.yaml", kSimulate, "12:26",
       "training.gradient_accumulation: expected an integer >= 1, got 0"},
      {"precision_fp8_on_v100.yaml", kSimulate, "12:14",
       "training.precision: fp8 needs fp8 tensor cores; GPU 'v100-sxm2-16gb' has none (presets "
       "with fp8: h100-sxm-80gb, h100-pcie-80gb, h200-sxm-141gb, b200-sxm-180gb, gb200-186gb, "
       "mi300x-192gb; a custom GPU gives cluster.gpu.fp8)"},
      {"gradient_dtype_unknown.yaml", kSimulate, "12:19",
       "sync.gradient_dtype: unknown value 'fp8'; allowed: fp32, fp16, bf16"},
      {"nic_efficiency_above_one.yaml", kSimulate, "7:56",
       "cluster.nic.efficiency: expected a number > 0 and <= 1, got 1.2"},
      {"nic_transport_unknown.yaml", kSimulate, "7:39",
       "cluster.nic.transport: unknown value 'roce'; allowed: rdma, tcp"},
      {"p2p_on_nvlink.yaml", kSimulate, "6:57",
       "cluster.intra_node.p2p: p2p applies to kind: pcie (NVLink GPUs reach each other "
       "directly)"},
      {"pcie_switch_uneven.yaml", kSimulate, "9:23",
       "cluster.pcie_switch.gpus: a switch sits under one socket: gpus (8) must divide the GPUs "
       "per socket (4)"},
      {"intra_node_kind_unknown.yaml", kSimulate, "6:22",
       "cluster.intra_node.kind: unknown value 'nvlink'; allowed: nvswitch, "
       "nvlink-mesh, pcie"},
      {"intra_node_missing.yaml", kSimulate, "2:1",
       "missing required key 'intra_node' in cluster (GPUs in a node talk over it: "
       "{kind: nvswitch|nvlink-mesh|pcie, bandwidth: 300GB/s, latency: 1us})"},
      {"iterations_not_a_number.yaml", kSimulate, "12:15",
       "training.iterations: expected an integer >= 1, got 'five'"},
      {"latency_without_unit.yaml", kSimulate, "8:48",
       "cluster.nic.latency: missing unit in '2': expected a duration such as '2us'; a "
       "duration takes one of: ns, us, ms, s, min"},
      {"mlp_layers_not_a_list.yaml", kSimulate, "11:11",
       "model.layers: expected a sequence of layer widths, input first, e.g. [1024, "
       "4096, 10]"},
      {"mlp_single_width.yaml", kSimulate, "11:11",
       "model 'mlp' needs model.layers with at least 2 widths (input first, e.g. [1024, "
       "4096, 10]), got 1"},
      {"mlp_width_zero.yaml", kSimulate, "11:18",
       "model.layers[1]: expected an integer >= 1, got 0"},
      {"model_name_missing.yaml", kSimulate, "9:1",
       "missing required key 'name' in model (a model zoo key such as resnet50; see "
       "`ddpsim models`), or 'file' (a model file exported from PyTorch), or 'hf_config' (a "
       "Hugging Face config.json)"},
      {"model_name_and_file.yaml", kSimulate, "11:9",
       "model.file: give one of name, file and hf_config, not model.name and model.file"},
      {"model_file_bad_kind.yaml", kSimulate, "files/model_bad_kind.yaml:5:11",
       "layers[0].kind: unknown layer kind 'dense'; allowed: conv, linear, batch_norm, "
       "layer_norm, activation, pool, embedding, attention, softmax, dropout, elementwise, "
       "loss"},
      {"model_file_order_unknown.yaml", kSimulate, "files/model_order_unknown.yaml:3:31",
       "gradient_order[1]: unknown parameter 'fc.bias'"},
      {"hf_config_unsupported.yaml", kSimulate, "files/hf_t5_config.json:4:17",
       "model_type: model type 't5' is not supported; supported: gpt2, bert, llama, mistral, "
       "qwen2, gemma, gemma2, phi3, vit (or export the model from PyTorch: "
       "docs/model-import.md)"},
      {"hf_config_sequence_too_long.yaml", kSimulate, "11:20",
       "model.sequence_length for 'hf_gpt2_config' must be at most 1024 (its "
       "max_position_embeddings), got 2048"},
      {"torch_trace_missing_dur.json", kImportTrace, "4:3",
       "event 1: missing \"dur\" (microseconds, a number)"},
      {"name_is_a_mapping.yaml", kSimulate, "2:7", "name: expected a string, got a mapping"},
      {"nodes_integer_overflow.yaml", kSimulate, "3:10",
       "cluster.nodes: expected an integer >= 1, got '99999999999999999999'"},
      {"nodes_missing_value.yaml", kSimulate, "3:3",
       "cluster.nodes: missing value: expected an integer >= 1"},
      {"nodes_per_leaf_zero.yaml", kSimulate, "8:28",
       "cluster.fabric.nodes_per_leaf: expected an integer >= 1, got 0"},
      {"optimizer_unknown.yaml", kSimulate, "12:14",
       "training.optimizer: unknown value 'lion'; allowed: sgd, momentum, adam (also adamw)"},
      {"pcie_missing.yaml", kSimulate, "2:1",
       "missing required key 'pcie' in cluster (PCIe bandwidth per GPU and direction, "
       "e.g. 32GB/s for Gen4 x16)"},
      {"ps_servers_zero.yaml", kSimulate, "13:17",
       "sync.ps.servers: expected an integer >= 1, got 0"},
      {"samples_per_second_negative.yaml", kSimulate, "13:23",
       "compute.samples_per_second: expected a number > 0, got -300"},
      {"schedule_unknown.yaml", kSimulate, "12:13",
       "sync.schedule: unknown value 'lifo'; allowed: fifo, priority"},
      {"seed_negative.yaml", kSimulate, "2:7", "seed: expected an integer >= 0, got -7"},
      {"simulation_scope_unknown.yaml", kSimulate, "12:10",
       "simulation.scope: unknown value 'half'; allowed: auto, full, symmetric"},
      {"simulation_symmetric_ps.yaml", kSimulate, "15:10",
       "simulation.scope: symmetric does not fit this scenario: colocated and BytePS parameter "
       "servers are not folded (a server's NIC also carries its node's own pushes and pulls: no "
       "slice reproduces its sharing between them and every worker of the cluster); symmetric "
       "scope supports all-reduce and local SGD with algorithm ring, hierarchical, tree, nvls or "
       "auto in flow mode, sharded data parallelism (zero1, zero2, zero3, fsdp-hybrid) with ring, "
       "tree or auto, and synchronous dedicated parameter servers, FIFO bucket order, without "
       "alpha-beta tables, fixed stragglers or loader stalls, on full leaves (drawn stragglers "
       "fold as the expected slowest of N draws) (or use scope full or auto)"},
      {"stall_without_duration.yaml", kSimulate, "17:3",
       "missing required key 'duration' in data.stall (how long one stall lasts, e.g. "
       "50ms)"},
      {"straggler_sigma_negative.yaml", kSimulate, "13:10",
       "stragglers.sigma: expected a number >= 0 and <= 2, got -0.1"},
      {"strategy_unknown.yaml", kSimulate, "12:13",
       "sync.strategy: unknown value 'ring-allreduce'; allowed: allreduce, ps, local-sgd"},
      {"sweep_bad_value.yaml", kSweep, "12:22", "cluster.nodes: expected an integer >= 1, got 0"},
      {"sweep_empty_list.yaml", kSweep, "12:18",
       "sweep of cluster.nodes: expected a non-empty list of values, e.g. [1, 2, 4], "
       "got an empty list"},
      {"sweep_not_a_mapping.yaml", kSweep, "12:3",
       "sweep: expected a mapping of scenario paths to lists of values (e.g. "
       "cluster.nodes: [1, 2, 4]), got a list"},
      {"sweep_repeated_value.yaml", kSweep, "12:27",
       "value '25MB' appears twice in the sweep of sync.bucket_cap (first at line 12)"},
      {"sweep_unknown_key.yaml", kSweep, "12:3",
       "sweep of cluster.node: unknown key 'node' in cluster; allowed keys: nodes, "
       "gpus_per_node, gpu, intra_node, pcie, pcie_switch, host, cpu_cores, nic, fabric, "
       "calibration "
       "(did you mean 'nodes'?)"},
      {"sync_protocol_unknown.yaml", kSimulate, "10:18",
       "sync.protocol: unknown value 'll256'; allowed: auto, ll, ll128, simple"},
      {"tcp_with_gpudirect.yaml", kSimulate, "8:66",
       "cluster.nic.gpudirect: GPUDirect RDMA needs transport: rdma; TCP always stages through "
       "host memory"},
      {"sweep_too_many_points.yaml", kSweep, "12:3",
       "the sweep has 1.84e+19 points (the product of its 16 axes' sizes), more than the 1000000 "
       "one sweep may have: sweep fewer values, or run several sweeps"},
      {"tab_indentation.yaml", kSimulate, "10:1",
       "YAML syntax error: a tab in the indentation; YAML indents with spaces only (replace the "
       "tab with spaces)"},
      {"unclosed_quote.yaml", kSimulate, "10:9",
       "unknown model 'resnet50 '; known models: resnet50, resnet101, resnet152, "
       "resnext50-32x4d, resnext101-32x8d, vgg16, alexnet, inception-v3, vit-b16, bert-base, "
       "bert-large, bert-base-squad, bert-large-squad, gpt2, gpt2-medium, gpt2-large, gpt2-xl, "
       "transformer-big, llama2-7b, llama2-13b, llama3-8b, mistral-7b, mlp"},
      {"unit_unknown.yaml", kSimulate, "8:30",
       "cluster.nic.bandwidth: unknown unit 'Gbs' in '100Gbs' (units are case-sensitive: did you "
       "mean 'GB/s' (gigabytes per second) or 'Gbps' (gigabits per second)?); a bandwidth takes "
       "one of: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, bps, Kbps, Mbps, Gbps, Tbps"},
      {"warmup_negative.yaml", kSimulate, "12:11",
       "training.warmup: expected an integer >= 0, got -1"},
      // One YAML document per file: the rest of a stream is refused, not dropped.
      {"two_documents.yaml", kSimulate, "12:1",
       "a second YAML document starts here (after '---'), but a scenario file holds one "
       "document; put each document in a file of its own"},
      {"two_documents_sweep.yaml", kSweep, "14:1",
       "a second YAML document starts here (after '---'), but a scenario file holds one "
       "document; put each document in a file of its own"},
      {"alpha_beta_two_documents.yaml", kSimulate, "files/table_two_documents.yaml:8:1",
       "a second YAML document starts here (after '---'), but a profile or alpha-beta table "
       "holds one document; put each document in a file of its own"},
      // A name becomes a folder name and a printed line.
      {"name_with_slash.yaml", kSimulate, "2:7",
       "name: the name holds '/', but it names the output folder (out/<name>) and is printed: "
       "use letters, digits, spaces and . - _"},
      {"name_dot_dot.yaml", kSimulate, "2:7",
       "name: expected a name for the output folder (out/<name>), got '..'"},
      {"name_with_nul.yaml", kSimulate, "2:7",
       "name: the name holds the control character 0x00, but it names the output folder "
       "(out/<name>) and is printed: use letters, digits, spaces and . - _"},
      {"name_with_newline.yaml", kSimulate, "2:7",
       "name: the name holds the control character 0x0A, but it names the output folder "
       "(out/<name>) and is printed: use letters, digits, spaces and . - _"},
      // Straggler factors and spreads have bounds that keep the simulated clock finite.
      {"straggler_factor_too_large.yaml", kSimulate, "12:14",
       "stragglers.fixed.3: expected a number >= 1 and <= 1000, got 1e6"},
      {"straggler_max_too_large.yaml", kSimulate, "13:8",
       "stragglers.max: expected a number >= 1 and <= 1000, got 1e300"},
      {"straggler_sigma_too_large.yaml", kSimulate, "13:10",
       "stragglers.sigma: expected a number >= 0 and <= 2, got 30"},
      // A simulated clock that overflows is said to be one.
      {"clock_overflow_step_time.yaml", kSimulate, "",
       "the simulated clock would overflow: the run lasts at least 5e+300 s of simulated time "
       "(1.58e+293 "
       "years), beyond the 1e+09 s (31.7 years) ddpsim's clock resolves to the microsecond; "
       "some time or rate in the scenario is out of any realistic range (compute.step_time or "
       "samples_per_second, bandwidths, latencies, data.stall.duration, straggler factors, "
       "training.iterations)"},
      {"clock_overflow_iterations.yaml", kSimulate, "",
       "the simulated clock would overflow: the run lasts at least 2e+09 s of simulated time (63.4 "
       "years), "
       "beyond the 1e+09 s (31.7 years) ddpsim's clock resolves to the microsecond; some time "
       "or rate in the scenario is out of any realistic range (compute.step_time or "
       "samples_per_second, bandwidths, latencies, data.stall.duration, straggler factors, "
       "training.iterations)"},
      {"clock_overflow_slow_nic.yaml", kSimulate, "",
       "the simulated clock overflowed: it reached 5.37e+09 s of simulated time (170 years), "
       "beyond the 1e+09 s (31.7 years) ddpsim's clock resolves to the microsecond; some time "
       "or rate in the scenario is out of any realistic range (compute.step_time or "
       "samples_per_second, bandwidths, latencies, data.stall.duration, straggler factors, "
       "training.iterations)"},
      // Unit slips (issue 35): a unit that is near both a byte and a bit rate names both.
      {"unit_bits_or_bytes.yaml", kSimulate, "8:30",
       "cluster.nic.bandwidth: unknown unit 'GBps' in '50GBps' (units are case-sensitive: did you "
       "mean 'GB/s' (gigabytes per second) or 'Gbps' (gigabits per second)?); a bandwidth takes "
       "one of: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, bps, Kbps, Mbps, Gbps, Tbps"},
      {"unit_gibps.yaml", kSimulate, "8:30",
       "cluster.nic.bandwidth: unknown unit 'GiBps' in '2GiBps' (units are case-sensitive: did "
       "you mean 'GiB/s' (gibibytes per second)?); a bandwidth takes one of: B/s, KB/s, MB/s, "
       "GB/s, TB/s, KiB/s, MiB/s, GiB/s, bps, Kbps, Mbps, Gbps, Tbps"},
      {"gpu_ambiguous.yaml", kSimulate, "5:8",
       "cluster.gpu: 'H100' names more than one GPU preset: h100-sxm-80gb, h100-pcie-80gb; write "
       "one of them"},
      {"name_not_utf8.yaml", kSimulate, "2:10",
       "byte 0xE9 is not valid UTF-8: save the file as UTF-8 (results are JSON, which can carry "
       "no other encoding)"},
      {"nccl_other_collective.log", kImport, "4:26",
       "count 2 x sizeof(float) = 8 differs from size 128: this is not an all_reduce "
       "log (pass the collective it measured with --op)"},
      {"nccl_two_runs_two_tables.log", kImport, "7:1",
       "2 all_reduce tables in this file (header lines 2, 7): pass --table 1 to --table 2 to "
       "import one of them"},
      {"nccl_row_before_header.log", kImport, "2:12",
       "a data row before the column header; expected a line like '#  size  count  type "
       " redop  root  time  algbw  busbw  #wrong ...'"},
      {"nccl_sizes_start_over.log", kImport, "6:12",
       "size 8 is not larger than the previous row's 16: sizes must increase (is this "
       "two runs in one file?)"},
      {"nccl_time_not_a_number.log", kImport, "5:59",
       "time: expected a positive number of microseconds, got 'nan'"},
      {"nccl_wrong_results.log", kImport, "5:84",
       "3 wrong results at size 16: the run is broken, its times are not measurements "
       "to calibrate with"},
  };
  return cases;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string expected_stderr(const BadInput& c) {
  const bool in_file = std::isdigit(static_cast<unsigned char>(c.where[0]));
  const std::string location = in_file           ? kDir + "/" + c.file + ":" + c.where
                               : c.where[0] == 0 ? kDir + "/" + c.file  // the file as a whole
                                                 : kDir + "/" + c.where;
  return "error: " + location + ": " + replace_all(c.message, "$DIR", kDir) + "\n";
}

TEST(BadInputs, EachMistakeExitsTwoWithItsExactLocatedMessage) {
  for (const BadInput& c : bad_inputs()) {
    const Outcome o = run_ddpsim(command_line(c.command, kDir + "/" + c.file));
    EXPECT_EQ(o.exit_code, 2) << c.file << ": " << o.err;
    EXPECT_EQ(o.err, expected_stderr(c)) << c.file;
  }
}

TEST(BadInputs, EveryFileInTheFolderIsInTheTableAndSaysWhatIsWrong) {
  std::set<std::string> listed;
  for (const BadInput& c : bad_inputs()) EXPECT_TRUE(listed.insert(c.file).second) << c.file;
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(kDir)) {
    if (!entry.is_regular_file()) continue;  // files/: what the scenarios refer to
    const std::string name = entry.path().filename().string();
    present.insert(name);
    const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    EXPECT_EQ(read_text(entry.path()).rfind(json ? "{\"mistake\": \"" : "# Mistake", 0), 0u)
        << name << " does not start with a '# Mistake' line (JSON: a \"mistake\" key)";
  }
  EXPECT_EQ(present, listed);
}

// The loader's catalogue (line, column and message checked by scenario_loader_test.cpp) reaches
// the user the same way: one located line and exit 2, never an internal error.
TEST(BadInputs, LoaderCatalogueFailsThroughTheBinaryWithExitTwo) {
  const std::string dir = kSourceDir + "/tests/data/bad_scenarios";
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    const Outcome o = run_ddpsim(command_line(kSimulate, path));
    EXPECT_EQ(o.exit_code, 2) << path << ": " << o.err;
    const std::regex located(
        "error: " + std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
        R"(:[0-9]+:[0-9]+: [^\n]+\n)");
    EXPECT_TRUE(std::regex_match(o.err, located)) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    ++files;
  }
  // Issue 8 asks for at least 50 distinct mistakes across both catalogues.
  EXPECT_GE(files + bad_inputs().size(), 50u);
}

// docs/reliability.md states the catalogue's size in two places; they drifted apart (93 and 91
// against the folder's files, issue 35). Both are the table's size here.
TEST(BadInputs, TheReliabilityPageCountsTheCatalogueAsItIs) {
  const std::string page = read_text(kSourceDir + "/docs/reliability.md");
  size_t scenarios = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/tests/data/bad_scenarios"))
    scenarios += entry.is_regular_file() ? 1 : 0;
  const std::string inputs = std::to_string(bad_inputs().size());
  EXPECT_NE(page.find(inputs + " in `tests/data/bad_inputs/`"), std::string::npos) << inputs;
  EXPECT_NE(page.find("| `tests/data/bad_inputs/` | " + inputs + " |"), std::string::npos)
      << inputs;
  EXPECT_NE(page.find("| `tests/data/bad_scenarios/` | " + std::to_string(scenarios) + " |"),
            std::string::npos)
      << scenarios;
}

// ---------------------------------------------------------------- mistakes on the command line
//
// What cannot be a file in git (a named pipe, a socket, a 65 MiB file, /dev/zero) is made here,
// and every run goes through `timeout`, so a regression that blocks on a pipe fails instead of
// hanging the suite. Each mistake: exit 2, exactly one line on stderr, nothing on stdout, and the
// output the command would have written does not exist.

struct CommandMistake {
  std::string what;                 // class / instance, for failure messages
  std::vector<std::string> args;    // after the binary
  std::string err;                  // exact stderr
  std::string must_not_exist = "";  // what the command must not have created
};

Outcome run_args(const std::vector<std::string>& args) {
  const std::string limit = std::to_string(static_cast<int>(60 * ddpsim::testing::kBuildSlowdown));
  std::vector<std::string> all = {"/usr/bin/timeout", limit, kBinary};
  all.insert(all.end(), args.begin(), args.end());
  return ddpsim::testing::run_program(all, kScratch);
}

bool matplotlib_available() {
  return ddpsim::testing::run_shell("/usr/bin/python3 -c 'import matplotlib'").code == 0;
}

// The special files, once per test process.
struct SpecialFiles {
  std::string dir, fifo, socket, folder, huge, good, a_file, csv_fifo_sweep, csv_folder_sweep,
      damaged;

  SpecialFiles() {
    dir = kScratch.fresh("special").string();
    fifo = dir + "/fifo.yaml";
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    socket = dir + "/socket.yaml";
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket.c_str());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << socket;
    ::close(fd);  // the socket file stays
    folder = dir + "/folder.yaml";
    fs::create_directories(folder);
    huge = dir + "/huge.yaml";
    std::ofstream(huge) << "name: huge\n";
    fs::resize_file(huge, 65u << 20);  // sparse: no disk is spent
    good = dir + "/good.yaml";
    fs::copy_file(kSourceDir + "/tests/data/small_cluster.yaml", good);
    a_file = dir + "/a-file";
    std::ofstream(a_file) << "not a folder\n";
    csv_fifo_sweep = dir + "/sweep-with-fifo";
    fs::create_directories(csv_fifo_sweep);
    EXPECT_EQ(::mkfifo((csv_fifo_sweep + "/results.csv").c_str(), 0644), 0);
    csv_folder_sweep = dir + "/sweep-with-folder";
    fs::create_directories(csv_folder_sweep + "/results.csv");
  }
};

const SpecialFiles& special() {
  static const SpecialFiles files;
  return files;
}

std::vector<CommandMistake> special_file_mistakes() {
  const SpecialFiles& s = special();
  const std::string out = s.dir + "/out";
  const std::string pipe = "it is a named pipe (FIFO), not a regular file";
  const std::string device =
      "it is a character device (like /dev/null, /dev/zero or a terminal), not a regular file";
  const std::string folder = "it is a folder, not a regular file";
  const std::string socket = "it is a socket, not a regular file";
  const std::string huge =
      "it is 65.0 MiB, above the 64.0 MiB limit for it (is this the right file?)";
  std::vector<CommandMistake> m;
  // The scenario, through simulate and sweep.
  for (const char* command : {"simulate", "sweep"}) {
    const std::string c = command;
    auto scenario = [&](const std::string& path, const std::string& why) {
      m.push_back({c + " scenario " + path,
                   {c, path, "-o", out},
                   "error: " + path + ": cannot read the scenario file: " + why + "\n",
                   out});
    };
    scenario(s.fifo, pipe);
    scenario("/dev/zero", device);
    scenario("/dev/null", device);
    scenario(s.folder, folder);
    scenario(s.socket, socket);
    scenario(s.huge, huge);
  }
  // Files a scenario refers to.
  m.push_back({"profile is a pipe",
               {"simulate", s.good, "--set", "compute.mode=profile", "--set",
                "compute.profile=" + s.fifo, "-o", out},
               "error: <--set compute.profile>: compute.profile: '" + s.fifo +
                   "' is a named pipe (FIFO), not a file\n",
               out});
  m.push_back({"alpha-beta table is /dev/zero",
               {"simulate", s.good, "--set", "sync.alpha_beta=/dev/zero", "-o", out},
               "error: <--set sync.alpha_beta>: sync.alpha_beta: '/dev/zero' is a character "
               "device (like /dev/null, /dev/zero or a terminal), not a file\n",
               out});
  m.push_back({"alpha-beta table is a folder",
               {"simulate", s.good, "--set", "sync.alpha_beta=" + s.folder, "-o", out},
               "error: <--set sync.alpha_beta>: sync.alpha_beta: '" + s.folder +
                   "' is a folder, not a file\n",
               out});
  m.push_back(
      {"alpha-beta table is huge",
       {"simulate", s.good, "--set", "sync.alpha_beta=" + s.huge, "-o", out, "--no-baseline"},
       "error: " + s.huge + ": cannot read the alpha-beta table: " + huge + "\n",
       out});
  // An nccl-tests log.
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {s.fifo, pipe}, {"/dev/zero", device}, {s.folder, folder}, {s.huge, huge}}) {
    m.push_back({"nccl-tests log " + path,
                 {"calibrate", "--import-nccl-tests", path, "-o", s.dir + "/profile.yaml"},
                 "error: " + path + ": cannot read the nccl-tests log: " + why + "\n",
                 s.dir + "/profile.yaml"});
  }
  // A model file or a Hugging Face config a scenario names, and a torch.profiler trace.
  m.push_back(
      {"model file is a pipe",
       {"simulate", s.good, "--set", "model={file: " + s.fifo + "}", "-o", out},
       "error: <--set model>: model.file: '" + s.fifo + "' is a named pipe (FIFO), not a file\n",
       out});
  m.push_back({"model file is huge",
               {"simulate", s.good, "--set", "model={file: " + s.huge + "}", "-o", out},
               "error: " + s.huge +
                   ": cannot read the model file: it is 65.0 MiB, above the 4.00 MiB limit for it "
                   "(is this the right file?)\n",
               out});
  m.push_back({"Hugging Face config is /dev/zero",
               {"simulate", s.good, "--set", "model={hf_config: /dev/zero}", "-o", out},
               "error: <--set model>: model.hf_config: '/dev/zero' is a character device (like "
               "/dev/null, /dev/zero or a terminal), not a file\n",
               out});
  for (const auto& [path, why] :
       std::vector<std::pair<std::string, std::string>>{{s.fifo, pipe}, {s.folder, folder}}) {
    m.push_back({"torch.profiler trace " + path,
                 {"calibrate", "--import-torch-trace", path, "--model", "net", "--batch", "8", "-o",
                  s.dir + "/profile.yaml"},
                 "error: " + path + ": cannot read the torch.profiler trace: " + why + "\n",
                 s.dir + "/profile.yaml"});
  }
  // A sweep folder given to merge (its results.csv), or something else in its place.
  m.push_back(
      {"merge: results.csv is a pipe",
       {"merge", s.csv_fifo_sweep, "-o", out},
       "error: " + s.csv_fifo_sweep + "/results.csv: cannot read the results.csv: " + pipe + "\n",
       out});
  m.push_back({"merge: results.csv is a folder",
               {"merge", s.csv_folder_sweep, "-o", out},
               "error: " + s.csv_folder_sweep +
                   "/results.csv: cannot read the results.csv: " + folder + "\n",
               out});
  m.push_back({"merge: the input is a pipe",
               {"merge", s.fifo, "-o", out},
               "error: " + s.fifo + ": cannot read the results.csv: " + pipe + "\n",
               out});
  m.push_back({"merge: the input is /dev/zero",
               {"merge", "/dev/zero", "-o", out},
               "error: /dev/zero: cannot read the results.csv: " + device + "\n",
               out});
  m.push_back(
      {"validate: the folder is a pipe",
       {"validate", s.fifo, "-o", out},
       "error: " + s.fifo + ": it is a named pipe (FIFO), not a folder of validation scenarios\n",
       out});
  m.push_back({"report: the folder is a pipe",
               {"report", s.fifo},
               "error: " + s.fifo +
                   ": cannot draw a report of it: it is a named pipe (FIFO), not the output "
                   "folder of `ddpsim sweep` or `simulate`\n"});
  m.push_back({"report: the folder is /dev/null",
               {"report", "/dev/null"},
               "error: /dev/null: cannot draw a report of it: it is a character device (like "
               "/dev/null, /dev/zero or a terminal), not the output folder of `ddpsim sweep` or "
               "`simulate`\n"});
  if (matplotlib_available()) {
    m.push_back(
        {"report: results.csv is a pipe",
         {"report", s.csv_fifo_sweep},
         "error: " + s.csv_fifo_sweep + "/results.csv: cannot read the results.csv: " + pipe + "\n",
         s.csv_fifo_sweep + "/report"});
  }
  return m;
}

std::vector<CommandMistake> output_folder_mistakes() {
  const SpecialFiles& s = special();
  const std::string device =
      "it is a character device (like /dev/null, /dev/zero or a terminal), not a folder; give a "
      "folder";
  std::vector<CommandMistake> m;
  auto folder = [&](const std::string& what, std::vector<std::string> args, const std::string& dir,
                    const std::string& why) {
    args.push_back("-o");
    args.push_back(dir);
    m.push_back({what + " -o " + dir, args, "error: " + dir + ": " + why + "\n"});
  };
  const std::vector<std::string> simulate = {"simulate", s.good, "--no-baseline"};
  const std::vector<std::string> sweep = {"sweep", s.good, "--sweep", "cluster.nodes=1,2"};
  const std::vector<std::string> validate = {"validate", kSourceDir + "/scenarios/validation"};
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"simulate", simulate}, {"sweep", sweep}, {"validate", validate}}) {
    folder(name, args, "/dev/null", "cannot write results here (-o): " + device);
    folder(name, args, s.a_file,
           "cannot write results here (-o): it is a file, not a folder; give a folder");
    folder(name, args, s.a_file + "/sub",
           "cannot create the output folder (-o): " + s.a_file + " is a file, not a folder");
    // /proc takes no new files, not even root's (chmod would not stop root, who runs CI).
    folder(name, args, "/proc/ddpsim-output/run1",
           "cannot create the output folder (-o) in /proc: No such file or directory");
  }
  folder("merge", {"merge", kSourceDir + "/tests/data/nccl-tests"}, "/dev/null",
         "cannot write results here (-o): " + device);
  // Files ddpsim writes: a device or a folder in their place is refused, never replaced.
  const std::string log = kSourceDir + "/tests/data/nccl-tests/all_reduce_2x8_a100_ib.log";
  m.push_back({"calibrate -o /dev/null",
               {"calibrate", "--import-nccl-tests", log, "-o", "/dev/null"},
               "error: /dev/null: cannot write the file (-o): it is a character device (like "
               "/dev/null, /dev/zero or a terminal), not a regular file\n"});
  m.push_back({"calibrate -o a folder",
               {"calibrate", "--import-nccl-tests", log, "-o", s.folder},
               "error: " + s.folder +
                   ": cannot write the file (-o): it is a folder, not a "
                   "regular file\n"});
  m.push_back({"compare -o /dev/null",
               {"compare", s.good, "--strategies", "ring", "-o", "/dev/null"},
               "error: /dev/null: cannot write the file (-o): it is a character device (like "
               "/dev/null, /dev/zero or a terminal), not a regular file\n"});
  if (matplotlib_available()) {  // the report of a real run, written where it cannot be
    const std::string run = s.dir + "/report-source";
    const Outcome ran = run_args({"simulate", s.good, "-o", run, "--no-baseline"});
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    for (const std::string& where : {std::string("/dev/null"), s.a_file}) {
      m.push_back({"report -o " + where,
                   {"report", run, "-o", where},
                   "error: " + where + ": cannot write the report here: not a folder\n"});
    }
  }
  m.push_back({"compare -o in a missing folder under a file",
               {"compare", s.good, "--strategies", "ring", "-o", s.a_file + "/x/cells.csv"},
               "error: " + s.a_file + "/x: cannot create the output folder (-o): " + s.a_file +
                   " is a file, not a folder\n"});
  return m;
}

std::vector<CommandMistake> option_mistakes() {
  const SpecialFiles& s = special();
  const std::string out = s.dir + "/out";
  std::vector<CommandMistake> m;
  auto option = [&](const std::string& what, std::vector<std::string> args,
                    const std::string& err) {
    m.push_back({what, args, "error: " + err + " (see --help)\n", out});
  };
  for (const char* value : {"nan", "inf", "-inf", "1e999", "NaN"}) {
    option(std::string("--max-wall ") + value, {"simulate", s.good, "-o", out, "--max-wall", value},
           std::string("--max-wall: expected a finite number > 0, got '") + value + "'");
  }
  option("--max-wall -1", {"simulate", s.good, "-o", out, "--max-wall", "-1"},
         "--max-wall: expected a number > 0, got -1");
  // -j 0 is one process per CPU, the default of sweep, compare and validate (docs/cli.md).
  for (const char* value : {"nan", "inf", "1.5", "-2"}) {
    option(std::string("-j ") + value,
           {"sweep", s.good, "--sweep", "cluster.nodes=1,2", "-o", out, "-j", value},
           std::string("--jobs: expected a whole number >= 0, got '") + value + "'");
    option(std::string("compare -j ") + value, {"compare", s.good, "-j", value},
           std::string("--jobs: expected a whole number >= 0, got '") + value + "'");
  }
  option("validate -j nan", {"validate", "-j", "nan", "-o", out},
         "--jobs: expected a whole number >= 0, got 'nan'");
  for (const char* value : {"inf", "nan", "-1", "3-1", "0,", "1,,2", "0-99999999", "x"}) {
    option(std::string("--trace-gpus ") + value,
           {"simulate", s.good, "-o", out, "--trace-gpus", value},
           std::string("--trace-gpus: expected auto, all, none or GPU ranks such as 0,5,8-15 (at "
                       "most 1048576), got '") +
               value + "'");
  }
  // A GPU the cluster does not have (small_cluster.yaml: 4 GPUs), in simulate and in a sweep.
  m.push_back({"--trace-gpus beyond the cluster",
               {"simulate", s.good, "-o", out, "--trace-gpus", "0,9"},
               "error: --trace-gpus: GPU 9 is not in the cluster (4 GPUs: ranks 0-3)\n",
               out});
  m.push_back({"sweep --trace-gpus beyond a point's cluster",
               {"sweep", s.good, "--sweep", "cluster.nodes=2,1", "-o", out, "--trace-gpus", "3"},
               "error: --trace-gpus: GPU 3 is not in the cluster (2 GPUs: ranks 0-1)\n",
               out});
  option("--max-median nan", {"validate", "--max-median", "nan", "-o", out},
         "--max-median: expected a finite number >= 0, got 'nan'");
  option("--max-case inf", {"validate", "--max-case", "inf", "-o", out},
         "--max-case: expected a finite number >= 0, got 'inf'");
  option("--tolerance nan",
         {"calibrate", "--import-nccl-tests", s.good, "--tolerance", "nan", "-o", out},
         "--tolerance: expected a finite number >= 1e-06, got 'nan'");
  for (const char* shard : {"nan/2", "inf/4", "1/inf", "0/nan"}) {
    m.push_back({std::string("--shard ") + shard,
                 {"sweep", s.good, "--sweep", "cluster.nodes=1,2", "-o", out, "--shard", shard},
                 std::string("error: <--shard ") + shard +
                     ">: expected i/n with whole numbers 0 <= i < n (e.g. 0/4), got '" + shard +
                     "'\n",
                 out});
  }
  // A --set or --sweep value with a second YAML document.
  const std::string two =
      "the value holds more than one YAML document (a line starting with "
      "'---'); give one value, and quote it if '---' belongs to it";
  m.push_back({"--set two documents",
               {"simulate", s.good, "-o", out, "--set", "cluster.nodes=2\n---\n3"},
               "error: <--set cluster.nodes>: " + two + "\n",
               out});
  m.push_back({"--set two documents in a mapping",
               {"simulate", s.good, "-o", out, "--set", "cluster.nic={count: 1}\n--- {count: 2}"},
               "error: <--set cluster.nic>: " + two + "\n",
               out});
  m.push_back({"--sweep two documents",
               {"sweep", s.good, "-o", out, "--sweep", "cluster.nodes=1,2\n---\n4"},
               "error: <--sweep cluster.nodes>: " + two + "\n",
               out});
  // A --set error names its own option, whichever order the options come in.
  const std::string bad_bytes =
      "error: <--set data.sample_bytes>: data.sample_bytes: 'lots' does not start with a "
      "number: expected a size such as '25MiB'\n";
  const std::vector<std::string> data_sets = {"--set", "data.decode.samples_per_core=300", "--set",
                                              "data.sample_bytes=lots"};
  m.push_back(
      {"--set order: section first",
       {"simulate", s.good, "-o", out, data_sets[0], data_sets[1], data_sets[2], data_sets[3]},
       bad_bytes,
       out});
  m.push_back(
      {"--set order: section last",
       {"simulate", s.good, "-o", out, data_sets[2], data_sets[3], data_sets[0], data_sets[1]},
       bad_bytes,
       out});
  m.push_back(
      {"--set order: before the scenario",
       {"simulate", data_sets[2], data_sets[3], data_sets[0], data_sets[1], s.good, "-o", out},
       bad_bytes,
       out});
  // Slips on the command line (issue 35): each answered with what was meant, by its own option.
  m.push_back({"a misspelt option",
               {"simulate", s.good, "-o", out, "--uncertanity"},
               "error: unknown option '--uncertanity' for ddpsim simulate; did you mean "
               "--uncertainty? (see ddpsim simulate --help)\n",
               out});
  m.push_back({"--set k v",
               {"simulate", s.good, "-o", out, "--set", "cluster.nodes", "2"},
               "error: --set takes key=value as one word: did you mean --set cluster.nodes=2?\n",
               out});
  m.push_back({"compare --nic in GBps",
               {"compare", s.good, "--strategies", "ring", "--nic", "25GBps", "-o", out + ".csv"},
               "error: <--nic 25GBps>: unknown unit 'GBps' in '25GBps' (units are case-sensitive: "
               "did you mean 'GB/s' (gigabytes per second) or 'Gbps' (gigabits per second)?); a "
               "bandwidth takes one of: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, bps, "
               "Kbps, Mbps, Gbps, Tbps\n",
               out + ".csv"});
  m.push_back({"compare --strategies misspelt",
               {"compare", s.good, "--strategies", "full-shard", "-o", out + ".csv"},
               "error: <--strategies full-shard>: unknown strategy 'full-shard'; did you mean "
               "'full_shard'? Strategies: horovod, priority, byteps, local-sgd, ps, ddp, "
               "sharding, allreduce, ring, tree, halving-doubling, hierarchical, auto, nvls, "
               "pat, zero1, zero2, zero3, fsdp-hybrid, full_shard, hybrid_shard, no_shard "
               "(options such as ps:K, zero3:ckpt: see ddpsim compare --help)\n",
               out + ".csv"});
  return m;
}

// A damaged results.csv given to `ddpsim report`: file:line, exit 2, no report folder. Each one
// is a real sweep's results.csv (two points) with one kind of damage.
std::vector<CommandMistake> damaged_csv_mistakes() {
  if (!matplotlib_available()) return {};
  const SpecialFiles& s = special();
  const std::string sweep = s.dir + "/healthy-sweep";
  const Outcome ran =
      run_args({"sweep", s.good, "--sweep", "cluster.nodes=1,2", "-o", sweep, "--no-baseline"});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  const std::string csv = read_text(sweep + "/results.csv");
  std::vector<std::string> lines;  // without their line ends
  for (size_t at = 0, end; (end = csv.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(csv.substr(at, end - at));
  EXPECT_EQ(lines.size(), 3u);
  auto join = [](const std::vector<std::string>& rows) {
    std::string text;
    for (const std::string& row : rows) text += row + "\n";
    return text;
  };
  // The same lines with the first `from` in line `row` replaced by `to`.
  auto edited = [&](size_t row, const std::string& from, const std::string& to) {
    std::vector<std::string> copy = lines;
    const size_t at = copy[row].find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) copy[row].replace(at, from.size(), to);
    return join(copy);
  };
  // The same file with one cell of point `row` (from 0) set to `value`.
  auto with_cell = [&](size_t row, const std::string& column, const std::string& value) {
    ddpsim::CsvTable table = ddpsim::parse_csv(csv, "results.csv");
    table.rows.at(row).at(static_cast<size_t>(ddpsim::csv_column(table, column))) = value;
    return ddpsim::format_csv(table);
  };
  const size_t fields = std::count(lines[0].begin(), lines[0].end(), ',') + 1;
  struct Damage {
    const char* name;
    std::string text;
    std::string message;
  };
  const std::vector<Damage> damages = {
      {"cut-short", join({lines[0], lines[1]}) + lines[2].substr(0, 60),
       ":3: the last row has no line end (the file was cut short)"},
      {"extra-field", join({lines[0], lines[1], lines[2] + ",surplus"}),
       ":3: row has " + std::to_string(fields + 1) + " fields, the header has " +
           std::to_string(fields)},
      {"missing-field", join({lines[0], lines[1].substr(0, lines[1].rfind(',')), lines[2]}),
       ":2: row has " + std::to_string(fields - 1) + " fields, the header has " +
           std::to_string(fields)},
      {"word-for-number", with_cell(1, "iteration_time_s", "fast"),
       ":3: iteration_time_s 'fast': expected a finite number"},
      {"nan", with_cell(0, "samples_per_second", "nan"),
       ":2: samples_per_second 'nan': expected a finite number"},
      {"infinity", with_cell(1, "comm_share", "inf"),
       ":3: comm_share 'inf': expected a finite number"},
      {"fractional-gpus", with_cell(1, "gpus", "2.5"), ":3: gpus '2.5': expected a whole number"},
      {"bad-status", edited(1, ",ok,", ",done,"), ":2: status 'done': expected ok or failed"},
      {"duplicate-point", join({lines[0], lines[1], lines[1]}), ":3: point 0 appears twice"},
      // The quote opens the last (empty) cell: no later quote in the row can close it.
      {"quote-not-closed", join({lines[0], lines[1], lines[2] + "\""}),
       ":3: malformed CSV: unexpected end of data"},
      {"text-after-quote", edited(2, ",ok,", ",\"ok\"x,"),
       ":3: malformed CSV: ',' expected after '\"'"},
      {"no-status-column", edited(0, ",status,", ",state,"),
       ":1: not a ddpsim results.csv (no 'status' column)"},
      {"empty", "", ":1: empty file: expected a header row"},
  };
  std::vector<CommandMistake> m;
  for (const Damage& d : damages) {
    const std::string dir = s.dir + "/damaged-" + d.name;
    fs::create_directories(dir);
    std::ofstream(dir + "/results.csv", std::ios::binary) << d.text;
    m.push_back({std::string("report on a damaged results.csv: ") + d.name,
                 {"report", dir},
                 "error: " + dir + "/results.csv" + d.message + "\n",
                 dir + "/report"});
  }
  return m;
}

void expect_refused(const std::vector<CommandMistake>& mistakes) {
  for (const CommandMistake& c : mistakes) {
    fs::remove_all(special().dir + "/out");
    const Outcome o = run_args(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.what << ": " << o.err;
    EXPECT_EQ(o.err, c.err) << c.what;
    EXPECT_EQ(o.out, "") << c.what;
    if (!c.must_not_exist.empty()) {
      EXPECT_FALSE(fs::exists(fs::symlink_status(c.must_not_exist))) << c.what;
    }
  }
}

// The counts are the ones README.md and docs/reliability.md state (fewer without matplotlib,
// whose report cases are left out).
TEST(BadInputs, SpecialFilesAreNamedNeverReadNorWaitedOn) {
  const auto mistakes = special_file_mistakes();
  EXPECT_EQ(mistakes.size(), matplotlib_available() ? 33u : 32u);
  expect_refused(mistakes);
}

TEST(BadInputs, OutputFoldersThatAreFilesDevicesOrUnwritableAreBadInput) {
  const auto mistakes = output_folder_mistakes();
  EXPECT_EQ(mistakes.size(), matplotlib_available() ? 19u : 17u);
  expect_refused(mistakes);
}

TEST(BadInputs, NumericOptionsRefuseNanAndInfinityAndSetErrorsNameTheirOption) {
  const auto mistakes = option_mistakes();
  EXPECT_EQ(mistakes.size(), 42u);
  expect_refused(mistakes);
}

TEST(BadInputs, ReportOnADamagedResultsCsvSaysFileAndLineAndDrawsNothing) {
  if (!matplotlib_available()) GTEST_SKIP() << "no matplotlib for /usr/bin/python3";
  const auto mistakes = damaged_csv_mistakes();
  EXPECT_EQ(mistakes.size(), 13u);
  expect_refused(mistakes);
}

// A clock that overflows during the run is reported as such, also under --max-wall.
TEST(BadInputs, ClockOverflowIsNeverBlamedOnMaxWall) {
  const std::string path = kDir + "/clock_overflow_slow_nic.yaml";
  const Outcome o = run_args(
      {"simulate", path, "-o", special().dir + "/out", "--no-baseline", "--max-wall", "30"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("the simulated clock overflowed: it reached 1e+09 s"), std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("max-wall"), std::string::npos) << o.err;
}

}  // namespace
