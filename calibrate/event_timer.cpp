#include "calibrate/event_timer.h"

#include <vector>

#include "kernels/check.h"

namespace ddpsim::calibrate {

RepeatStats time_on_stream(cudaStream_t stream, int warmup, int repeats,
                           const std::function<void()>& work) {
  for (int i = 0; i < warmup; ++i) work();
  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(repeats), nullptr);
  std::vector<double> samples;
  try {
    for (cudaEvent_t& e : events) DDPSIM_CUDA_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < repeats; ++i) {
      DDPSIM_CUDA_CHECK(cudaEventRecord(events[2 * i], stream));
      work();
      DDPSIM_CUDA_CHECK(cudaEventRecord(events[2 * i + 1], stream));
    }
    DDPSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < repeats; ++i) {
      float ms = 0;
      DDPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]));
      samples.push_back(ms * 1e-3);
    }
  } catch (...) {
    for (cudaEvent_t e : events)
      if (e != nullptr) cudaEventDestroy(e);
    throw;
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  return repeat_stats(samples);
}

}  // namespace ddpsim::calibrate
