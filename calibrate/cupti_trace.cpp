#include "calibrate/cupti_trace.h"

#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "kernels/check.h"

namespace ddpsim::calibrate {

namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kAlign = 8;

std::mutex g_mutex;
std::vector<std::pair<uint64_t, uint64_t>> g_kernels;  // (start, end) ns

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      g_kernels.emplace_back(k->start, k->end);
    }
  }
  std::free(buffer);
}

}  // namespace

KernelTracer::KernelTracer() {
  try {
    DDPSIM_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    available_ = true;
  } catch (const kernels::GpuError& e) {
    why_ = e.what();
  }
}

KernelTracer::~KernelTracer() {
  if (available_) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

KernelTrace KernelTracer::trace(cudaStream_t stream, const std::function<void()>& work) {
  KernelTrace trace;
  if (!available_) return trace;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_kernels.clear();
  }
  DDPSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  try {
    DDPSIM_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  } catch (const kernels::GpuError& e) {
    available_ = false;  // e.g. CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: say so once, go on
    why_ = e.what();
    return trace;
  }
  work();
  DDPSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  DDPSIM_CUPTI_CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  DDPSIM_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

  std::vector<std::pair<uint64_t, uint64_t>> kernels;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    kernels.swap(g_kernels);
  }
  std::sort(kernels.begin(), kernels.end());
  uint64_t busy_until = 0;
  for (const auto& [start, end] : kernels) {
    trace.kernel_seconds += (end - start) * 1e-9;
    if (busy_until != 0 && start > busy_until) trace.gap_seconds += (start - busy_until) * 1e-9;
    busy_until = std::max(busy_until, end);
  }
  trace.kernels = static_cast<int>(kernels.size());
  return trace;
}

}  // namespace ddpsim::calibrate
