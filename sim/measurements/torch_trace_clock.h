// The time a torch.profiler trace gives an interval of its host timeline: host wall time
// without GPU kernels, else the GPU busy time of the work launched in it (the Clock below says
// why). Internal to torch_trace_*.cpp.
#pragma once

#include <algorithm>
#include <map>
#include <vector>

#include "sim/measurements/torch_trace_events.h"

namespace ddpsim::torch_trace {

inline bool is_gpu_activity(const Event& e) {
  return e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset";
}

// ---------------------------------------------------------------- time: CPU or GPU

inline bool is_collective_kernel(const Event& e) {
  return e.name.find("nccl") != std::string::npos || e.name.find("Nccl") != std::string::npos;
}

// Time on the host timeline. Without kernels it is the host time itself. With kernels, an
// interval [begin, end) of the host timeline is worth the GPU busy time of the work launched in
// it: the sum of the kernels', copies' and memsets' durations. Not the span from the first
// kernel's start to the last one's end: under the profiler the host launches slower than the
// GPU runs, and the GPU waits between kernels (seen on an H200: ResNet-50 at batch 64 spans
// 84 ms per profiled step, its kernels are busy 27.4 ms, and the step without the profiler takes
// 29.0 ms). Collective kernels (NCCL) wait for their peers; they are counted only where a
// collective call is timed, never in a layer's time.
class Clock {
 public:
  explicit Clock(const Trace& t) {
    std::map<int64_t, double> launch;  // correlation -> launch time
    for (const Event& e : t.events)
      if (e.cat == "cuda_runtime" || e.cat == "cuda_driver")
        if (auto c = int_arg(e, "correlation")) launch[*c] = e.start;
    std::vector<Kernel> compute, all;
    for (const Event& e : t.events) {
      if (!is_gpu_activity(e)) continue;
      auto c = int_arg(e, "correlation");
      auto it = c ? launch.find(*c) : launch.end();
      const Kernel k{it != launch.end() ? it->second : e.start, e.duration()};
      all.push_back(k);
      if (!is_collective_kernel(e)) compute.push_back(k);
    }
    compute_ = Busy(std::move(compute));
    all_ = Busy(std::move(all));
  }

  bool gpu() const { return !all_.empty(); }

  // Values of the sorted host-time boundaries b[0] <= b[1] <= ...: consecutive differences are
  // the compute busy time launched between them.
  std::vector<double> values(const std::vector<double>& b) const {
    if (!gpu()) return b;
    std::vector<double> v;
    for (double host : b) v.push_back(compute_.before(host));
    return v;
  }

  // Compute busy time of the work launched inside [begin, end) (CPU: end - begin).
  double span(double begin, double end) const {
    return gpu() ? compute_.before(end) - compute_.before(begin) : end - begin;
  }

  // The same with collective kernels counted: the GPU time of a collective call.
  double collective_span(double begin, double end) const {
    return all_.before(end) - all_.before(begin);
  }

 private:
  struct Kernel {
    double host, duration;
  };
  // Prefix sums of durations in launch order.
  class Busy {
   public:
    Busy() = default;
    explicit Busy(std::vector<Kernel> k) : kernels_(std::move(k)) {
      std::stable_sort(kernels_.begin(), kernels_.end(),
                       [](const Kernel& a, const Kernel& b) { return a.host < b.host; });
      prefix_.assign(1, 0);
      for (const Kernel& x : kernels_) prefix_.push_back(prefix_.back() + x.duration);
    }
    bool empty() const { return kernels_.empty(); }
    double before(double host) const {
      const auto k = std::lower_bound(kernels_.begin(), kernels_.end(), host,
                                      [](const Kernel& x, double h) { return x.host < h; });
      return prefix_.empty() ? 0 : prefix_[k - kernels_.begin()];
    }

   private:
    std::vector<Kernel> kernels_;
    std::vector<double> prefix_;
  };
  Busy compute_, all_;
};

}  // namespace ddpsim::torch_trace
