#include "calibrate/overlap.h"

#include <algorithm>
#include <cmath>

#include "calibrate/event_timer.h"
#include "calibrate/layer_runner.h"
#include "kernels/check.h"
#include "kernels/device_buffer.h"
#include "kernels/elementwise.h"

namespace ddpsim::calibrate {

namespace {

// How many background operations of `each` seconds cover `window` seconds three times over.
int queue_length(double window, double each) {
  return static_cast<int>(std::min(100000.0, std::ceil(3 * window / std::max(each, 1e-7))));
}

}  // namespace

OverlapInterference measure_overlap(kernels::Blas& blas, Precision precision, int64_t gemm_size,
                                    Communicator* comm, const TimingOptions& t) {
  kernels::ScopedLayer scope("overlap interference");
  const kernels::GemmMath math = gemm_math(precision);
  const kernels::DType dtype = kernels::gemm_dtype(math);
  const int64_t elems = gemm_size * gemm_size;
  const size_t bytes = elems * kernels::dtype_size(dtype);
  kernels::DeviceBuffer a(bytes), b(bytes), c(bytes);
  kernels::fill_uniform(dtype, a.get(), elems, -1.f, 1.f, 11, blas.stream());
  kernels::fill_uniform(dtype, b.get(), elems, -1.f, 1.f, 12, blas.stream());
  kernels::GemmPlan plan(blas, math, false, false, gemm_size, gemm_size, gemm_size);
  auto gemm = [&] { plan.run(1.f, a.get(), b.get(), 0.f, c.get()); };

  OverlapInterference o;
  o.gemm_alone = time_on_stream(blas.stream(), t.warmup, t.repeats, gemm);
  const double window = (t.warmup + t.repeats) * o.gemm_alone.median;

  // Copies on a second stream of the same device.
  {
    cudaStream_t side = nullptr;
    DDPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    try {
      const size_t copy_bytes = size_t{256} << 20;
      kernels::DeviceBuffer src(copy_bytes), dst(copy_bytes);
      src.zero(side);
      auto copy = [&] {
        DDPSIM_CUDA_CHECK(
            cudaMemcpyAsync(dst.get(), src.get(), copy_bytes, cudaMemcpyDeviceToDevice, side));
      };
      const RepeatStats one = time_on_stream(side, 1, 3, copy);
      const int n = queue_length(window, one.median);
      for (int i = 0; i < n; ++i) copy();
      o.gemm_with_copy = time_on_stream(blas.stream(), t.warmup, t.repeats, gemm);
      DDPSIM_CUDA_CHECK(cudaStreamSynchronize(side));
    } catch (...) {
      cudaStreamDestroy(side);
      throw;
    }
    DDPSIM_CUDA_CHECK(cudaStreamDestroy(side));
  }

  // NCCL all-reduces on every rank's communication stream (rank 0 shares the GEMM's device).
  if (comm != nullptr) {
    const size_t ar_bytes = std::min<size_t>(size_t{64} << 20, comm->max_bytes());
    comm->launch(CollectiveOp::kAllReduce, ar_bytes);
    comm->synchronize();
    RepeatStats one;
    {
      CurrentDeviceGuard guard;  // rank 0's stream lives on device 0
      DDPSIM_CUDA_CHECK(cudaSetDevice(0));
      one = time_on_stream(comm->stream(0), 1, 3,
                           [&] { comm->launch(CollectiveOp::kAllReduce, ar_bytes); });
    }
    const int n = queue_length(window, one.median);
    for (int i = 0; i < n; ++i) comm->launch(CollectiveOp::kAllReduce, ar_bytes);
    o.gemm_with_allreduce = time_on_stream(blas.stream(), t.warmup, t.repeats, gemm);
    comm->synchronize();
  }
  return o;
}

}  // namespace ddpsim::calibrate
