// What the profile records about the machine: device name, compute capability, memory, SMs,
// local GPU count, driver / runtime / cuBLAS / cuDNN / NCCL versions, host and date.
#pragma once

#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

DeviceInfo describe_device(int device, int gpus);

}  // namespace ddpsim::calibrate
