#include "sim/scenario/gpu_presets.h"

namespace ddpsim {
namespace {

constexpr double kTera = 1e12;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kGBps = 1e9;

GpuPreset preset(const char* key, const char* description, const char* source, double fp32,
                 double tf32, double fp16, double bf16, double memory, double hbm,
                 int compute_capability, bool pcie_p2p = true) {
  GpuPreset p;
  p.key = key;
  p.description = description;
  p.source = source;
  p.spec.name = key;
  p.spec.fp32_flops = fp32;
  p.spec.tf32_flops = tf32;
  p.spec.fp16_flops = fp16;
  p.spec.bf16_flops = bf16;
  p.spec.memory_bytes = memory;
  p.spec.hbm_bandwidth = hbm;
  p.spec.compute_capability = compute_capability;
  p.spec.pcie_p2p = pcie_p2p;
  return p;
}

GpuPreset with_fp8(GpuPreset p, double fp8) {
  p.spec.fp8_flops = fp8;
  return p;
}

}  // namespace

// Conventions:
// - The compute capability is CUDA's (NVIDIA CUDA C++ Programming Guide, "Compute Capabilities");
//   NCCL's tuning tables depend on it. GeForce cards do not support PCIe peer-to-peer (the driver
//   reports "CANNOT Access Peer"; NVIDIA/nccl-tests#117 shows it for the RTX 2080 Ti), so their
//   intra-node traffic is staged through host memory; every other preset allows it.
// - FLOP/s are the datasheet peaks at boost clock. Datasheets since Ampere print tensor-core
//   figures "with sparsity" (marked *); the dense figure used here is half of that.
// - fp16 is the rate mixed-precision training gets (fp16 inputs, fp32 accumulation). GPUs
//   without fast fp16 arithmetic (Kepler) get their fp32 rate. tf32/bf16 = 0 means the GPU has
//   no such path; the cost model then falls back as scenario.h says. fp8 = 0: no fp8 tensor
//   cores (training.precision: fp8 is refused); Hopper and later have them.
// - Memory capacities are binary: a "16 GB" HBM2 card holds 16 GiB (nvidia-smi: 16384 MiB).
//   Memory bandwidths are decimal, as printed. Where the printed size is not what nvidia-smi
//   reports (H200, B200, GB200), the preset holds nvidia-smi's memory.total: what a job can use.
// - AMD GPUs: the datasheet prints dense and sparse figures both; fp32 is the matrix-core rate.
//   compute_capability is 0 (no CUDA SM version); RCCL's tuning is NCCL's, so the NCCL model
//   applies with its defaults for an unknown GPU.
const std::vector<GpuPreset>& gpu_presets() {
  static const std::vector<GpuPreset> presets = {
      // Kepler. K80 board = two GK210 dies: 8.73 TFLOPS fp32 (boost), 24 GB, 480 GB/s in total.
      // Frameworks see each die as one GPU, so the preset is one die: half of each figure.
      preset("k80", "NVIDIA Tesla K80, one GK210 die (a board has two)",
             "NVIDIA Tesla K80 datasheet (2014): 8.73 TFLOPS fp32 boost, 24 GB GDDR5, 480 GB/s "
             "per board of two GPUs",
             4.365 * kTera, 0, 4.365 * kTera, 0, 12 * kGiB, 240 * kGBps, 37),
      // Pascal: fp16 at twice the fp32 rate, no tensor cores.
      preset("p100-sxm2-16gb", "NVIDIA Tesla P100 SXM2 16 GB",
             "NVIDIA Tesla P100 datasheet (NVLink version): 10.6 TFLOPS fp32, 21.2 TFLOPS fp16, "
             "16 GB HBM2 at 732 GB/s",
             10.6 * kTera, 0, 21.2 * kTera, 0, 16 * kGiB, 732 * kGBps, 60),
      // Volta: tensor cores for fp16, no tf32/bf16.
      preset("v100-sxm2-16gb", "NVIDIA Tesla V100 SXM2 16 GB",
             "NVIDIA Tesla V100 datasheet (SXM2): 15.7 TFLOPS fp32, 125 TFLOPS tensor, 16 GB "
             "HBM2 at 900 GB/s",
             15.7 * kTera, 0, 125 * kTera, 0, 16 * kGiB, 900 * kGBps, 70),
      preset("v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32 GB",
             "NVIDIA Tesla V100 datasheet (SXM2): 15.7 TFLOPS fp32, 125 TFLOPS tensor, 32 GB "
             "HBM2 at 900 GB/s",
             15.7 * kTera, 0, 125 * kTera, 0, 32 * kGiB, 900 * kGBps, 70),
      // Turing. GeForce cards run fp16 tensor ops with fp32 accumulation at half rate:
      // 53.8 TFLOPS, not the 107.6 TFLOPS quoted for fp16 accumulation.
      preset("rtx-2080-ti", "NVIDIA GeForce RTX 2080 Ti (reference clocks)",
             "NVIDIA Turing architecture whitepaper, Appendix A: 13.4 TFLOPS fp32, 53.8 TFLOPS "
             "fp16 tensor with fp32 accumulate, 11 GB GDDR6 at 616 GB/s",
             13.4 * kTera, 0, 53.8 * kTera, 0, 11 * kGiB, 616 * kGBps, 75, /*pcie_p2p=*/false),
      preset("t4", "NVIDIA T4 16 GB",
             "NVIDIA T4 datasheet: 8.1 TFLOPS fp32, 65 TFLOPS mixed fp16/fp32, 16 GB GDDR6 at "
             "320 GB/s",
             8.1 * kTera, 0, 65 * kTera, 0, 16 * kGiB, 320 * kGBps, 75),
      // Ampere.
      preset("a100-sxm-40gb", "NVIDIA A100 SXM4 40 GB",
             "NVIDIA A100 datasheet: 19.5 TFLOPS fp32, 156 TFLOPS tf32, 312 TFLOPS fp16/bf16 "
             "(dense), 40 GB HBM2 at 1555 GB/s",
             19.5 * kTera, 156 * kTera, 312 * kTera, 312 * kTera, 40 * kGiB, 1555 * kGBps, 80),
      preset("a100-sxm-80gb", "NVIDIA A100 SXM4 80 GB",
             "NVIDIA A100 datasheet: 19.5 TFLOPS fp32, 156 TFLOPS tf32, 312 TFLOPS fp16/bf16 "
             "(dense), 80 GB HBM2e at 2039 GB/s",
             19.5 * kTera, 156 * kTera, 312 * kTera, 312 * kTera, 80 * kGiB, 2039 * kGBps, 80),
      preset("a100-pcie-40gb", "NVIDIA A100 PCIe 40 GB",
             "NVIDIA A100 datasheet: 19.5 TFLOPS fp32, 156 TFLOPS tf32, 312 TFLOPS fp16/bf16 "
             "(dense), 40 GB HBM2 at 1555 GB/s",
             19.5 * kTera, 156 * kTera, 312 * kTera, 312 * kTera, 40 * kGiB, 1555 * kGBps, 80),
      // Ampere GeForce: tensor fp16/bf16 with fp32 accumulation at half rate, like Turing's.
      preset("rtx-3090", "NVIDIA GeForce RTX 3090",
             "NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A: 35.6 TFLOPS fp32, 35.6 "
             "TFLOPS tf32 tensor, 71 TFLOPS fp16/bf16 tensor with fp32 accumulate (dense), 24 GB "
             "GDDR6X at 936 GB/s",
             35.6 * kTera, 35.6 * kTera, 71 * kTera, 71 * kTera, 24 * kGiB, 936 * kGBps, 86,
             /*pcie_p2p=*/false),
      // Ada.
      preset("l4", "NVIDIA L4 24 GB",
             "NVIDIA L4 datasheet: 30.3 TFLOPS fp32, 120* TFLOPS tf32, 242* TFLOPS fp16/bf16 "
             "(* sparse), 24 GB GDDR6 at 300 GB/s",
             30.3 * kTera, 60 * kTera, 121 * kTera, 121 * kTera, 24 * kGiB, 300 * kGBps, 89),
      preset("rtx-4090", "NVIDIA GeForce RTX 4090",
             "NVIDIA Ada GPU architecture whitepaper, Appendix A: 82.6 TFLOPS fp32, 82.6 TFLOPS "
             "tf32 tensor, 165.2 TFLOPS fp16/bf16 tensor with fp32 accumulate (dense), 24 GB "
             "GDDR6X at 1008 GB/s",
             82.6 * kTera, 82.6 * kTera, 165.2 * kTera, 165.2 * kTera, 24 * kGiB, 1008 * kGBps, 89,
             /*pcie_p2p=*/false),
      // Hopper: fp8 tensor cores at twice the fp16 rate.
      with_fp8(preset("h100-sxm-80gb", "NVIDIA H100 SXM5 80 GB",
                      "NVIDIA H100 Tensor Core GPU datasheet (SXM): 67 TFLOPS fp32, 989* TFLOPS "
                      "tf32, 1979* TFLOPS fp16/bf16, 3958* TFLOPS fp8 (* sparse), 80 GB HBM3 at "
                      "3.35 TB/s",
                      67 * kTera, 494.5 * kTera, 989.5 * kTera, 989.5 * kTera, 80 * kGiB,
                      3350 * kGBps, 90),
               1979 * kTera),
      with_fp8(preset("h100-pcie-80gb", "NVIDIA H100 PCIe 80 GB",
                      "NVIDIA H100 Tensor Core GPU datasheet (PCIe): 51 TFLOPS fp32, 756* TFLOPS "
                      "tf32, 1513* TFLOPS fp16/bf16, 3026* TFLOPS fp8 (* sparse), 80 GB HBM2e at "
                      "2 TB/s",
                      51 * kTera, 378 * kTera, 756.5 * kTera, 756.5 * kTera, 80 * kGiB,
                      2000 * kGBps, 90),
               1513 * kTera),
      // 141 GB as printed; nvidia-smi reports 143771 MiB, which is what a job can address.
      with_fp8(preset("h200-sxm-141gb", "NVIDIA H200 SXM 141 GB",
                      "NVIDIA H200 Tensor Core GPU datasheet (SXM): 67 TFLOPS fp32, 989* TFLOPS "
                      "tf32, 1979* TFLOPS fp16/bf16, 3958* TFLOPS fp8 (* sparse), 141 GB HBM3e at "
                      "4.8 TB/s",
                      67 * kTera, 494.5 * kTera, 989.5 * kTera, 989.5 * kTera, 143771.0 * kMiB,
                      4800 * kGBps, 90),
               1979 * kTera),
      // Blackwell (compute capability 10.0; the NCCL v2.20.3 tuning tables ddpsim follows predate
      // it, so LL128 stays off). One B200 of an 8-GPU HGX/DGX B200 board (1000 W).
      // The datasheet prints 180 GB per GPU (1,440 GB per DGX B200 at 64 TB/s: 8 TB/s each);
      // nvidia-smi reports 183359 MiB.
      with_fp8(preset("b200-sxm-180gb", "NVIDIA B200 (HGX/DGX B200) 180 GB",
                      "NVIDIA HGX B200 datasheet, per GPU: 75 TFLOPS fp32, 2.2* PFLOPS tf32, 4.5* "
                      "PFLOPS fp16/bf16, 9* PFLOPS fp8 (* sparse), 180 GB HBM3e; DGX B200 "
                      "datasheet: 1,440 GB at 64 TB/s per 8 GPUs",
                      75 * kTera, 1100 * kTera, 2250 * kTera, 2250 * kTera, 183359.0 * kMiB,
                      8000 * kGBps, 100),
               4500 * kTera),
      // The B200 of a GB200 superchip (NVL72 rack; 1200 W): faster clocks, more memory than HGX.
      // The datasheet prints 186 GB per GPU; nvidia-smi reports 189471 MiB.
      with_fp8(preset("gb200-186gb", "NVIDIA GB200 NVL72, one Blackwell GPU",
                      "NVIDIA GB200 NVL72 datasheet, per Blackwell GPU: 80 TFLOPS fp32, 2.5* "
                      "PFLOPS tf32, 5* PFLOPS fp16/bf16, 10* PFLOPS fp8 (* sparse), 186 GB HBM3e "
                      "at 8 TB/s",
                      80 * kTera, 1250 * kTera, 2500 * kTera, 2500 * kTera, 189471.0 * kMiB,
                      8000 * kGBps, 100),
               5000 * kTera),
      // AMD CDNA 3 (RCCL, no CUDA compute capability). 192 GB as printed; rocm-smi's "VRAM Total
      // Memory (B)" and torch's totalGlobalMem report 205822885888 bytes (191.7 GiB).
      with_fp8(preset("mi300x-192gb", "AMD Instinct MI300X 192 GB",
                      "AMD Instinct MI300X data sheet: 163.4 TFLOPS fp32 matrix, 653.7 TFLOPS "
                      "tf32, 1307.4 TFLOPS fp16/bf16, 2614.9 TFLOPS fp8 (dense; sparse twice "
                      "that), 192 GB HBM3 at 5.3 TB/s",
                      163.4 * kTera, 653.7 * kTera, 1307.4 * kTera, 1307.4 * kTera, 205822885888.0,
                      5300 * kGBps, 0),
               2614.9 * kTera),
  };
  return presets;
}

const GpuPreset* find_gpu_preset(std::string_view key) {
  for (const GpuPreset& p : gpu_presets()) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

namespace {

std::string names_where(bool (*keep)(const GpuPreset&)) {
  std::string out;
  for (const GpuPreset& p : gpu_presets()) {
    if (!keep(p)) continue;
    if (!out.empty()) out += ", ";
    out += p.key;
  }
  return out;
}

}  // namespace

std::string gpu_preset_names() {
  return names_where([](const GpuPreset&) { return true; });
}

std::string fp8_preset_names() {
  return names_where([](const GpuPreset& p) { return p.spec.fp8_flops > 0; });
}

}  // namespace ddpsim
