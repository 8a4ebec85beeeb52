// Whether a calibration profile may drive a scenario's compute (compute.mode: profile).
//
// Device: a profile records the device it was measured on (device.name: "NVIDIA H100 80GB
// HBM3" from the CUDA harness or a torch.profiler trace, "CPU: <model> (N threads)" from
// `ddpsim_torch.py export --time --device cpu`). Names are compared by GPU family (gpu_family in
// gpu_aliases.h, "NVIDIA H100 80GB HBM3" and the preset "h100-sxm-80gb" are both h100); a CPU
// profile never matches a GPU; a name of no known family, or none, cannot be checked and counts as
// a mismatch. Variants of one family (H100 SXM against PCIe) are not told apart. Precision: the
// precisions a profile has are those of its runs and of its GEMM ceilings. fp8 needs bf16 (the
// harness measures GEMMs up to bf16; fp8 GEMMs take the GPU's datasheet fp8 rate, everything else
// the measured bf16 figures: documented in docs/calibration.md). A profile with compute
// measurements but none at the scenario's precision is refused by the loader (exit 2); one measured
// on another device, or whose layers were timed only at other precisions, gives
// ComputeSpec::profile_mismatch (a warning, and a wider range).
#pragma once

#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim {

// The precisions the profile measured anything at (runs or GEMM ceilings), in enum order.
std::vector<Precision> profile_precisions(const CalibrationProfile& profile);

// The precision whose measurements a scenario at `precision` uses (fp8 -> bf16).
Precision measured_precision(Precision precision);

// "" when the profile can be checked and matches; else why it does not, in one sentence.
std::string profile_device_mismatch(const CalibrationProfile& profile, const GpuSpec& gpu);

// Empty when the profile has `precision` (or nothing to compute with at all: only copies or
// overlap measured); else the message of the refusal, naming the file and what it has.
std::string profile_precision_missing(const CalibrationProfile& profile, Precision precision);

// Everything profile_mismatch says, joined with "; " ("" when device and precision match).
std::string profile_mismatch(const CalibrationProfile& profile, const GpuSpec& gpu,
                             Precision precision);

}  // namespace ddpsim
