// Overlap interference: how much slower a GEMM runs while communication runs beside it on
// another stream, the factor the simulator applies to compute that overlaps a bucket's
// all-reduce. The GEMM (square, the run's precision) is timed alone, then while a queue of
// device-to-device copies, then of NCCL all-reduces, keeps a second stream busy for longer than
// all the GEMM repeats take.
#pragma once

#include "calibrate/ceilings.h"
#include "calibrate/collective_sweep.h"
#include "kernels/gemm.h"
#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

// comm may be null (no NCCL): then only the copy interference is measured.
OverlapInterference measure_overlap(kernels::Blas& blas, Precision precision, int64_t gemm_size,
                                    Communicator* comm, const TimingOptions& t);

}  // namespace ddpsim::calibrate
