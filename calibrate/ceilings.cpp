#include "calibrate/ceilings.h"

#include "calibrate/event_timer.h"
#include "calibrate/layer_runner.h"
#include "kernels/check.h"
#include "kernels/device_buffer.h"
#include "kernels/elementwise.h"

namespace ddpsim::calibrate {

GemmCeiling measure_gemm(kernels::Blas& blas, Precision precision, int64_t size,
                         const TimingOptions& t) {
  kernels::ScopedLayer scope(std::string("GEMM ceiling ") + precision_name(precision));
  const kernels::GemmMath math = gemm_math(precision);
  const kernels::DType dtype = kernels::gemm_dtype(math);
  const int64_t elems = size * size;
  kernels::DeviceBuffer a(elems * kernels::dtype_size(dtype)),
      b(elems * kernels::dtype_size(dtype)), c(elems * kernels::dtype_size(dtype));
  kernels::fill_uniform(dtype, a.get(), elems, -1.f, 1.f, 1, blas.stream());
  kernels::fill_uniform(dtype, b.get(), elems, -1.f, 1.f, 2, blas.stream());
  kernels::GemmPlan plan(blas, math, false, false, size, size, size);
  GemmCeiling g;
  g.precision = precision;
  g.m = g.n = g.k = size;
  g.time = time_on_stream(blas.stream(), t.warmup, t.repeats,
                          [&] { plan.run(1.f, a.get(), b.get(), 0.f, c.get()); });
  g.flops = plan.flops() / g.time.median;
  return g;
}

CopyCeiling measure_copy(cudaStream_t stream, CopyKind kind, size_t bytes, const TimingOptions& t) {
  const char* name = kind == CopyKind::kDeviceToDevice ? "D2D copy ceiling"
                     : kind == CopyKind::kHostToDevice ? "H2D copy ceiling"
                                                       : "D2H copy ceiling";
  kernels::ScopedLayer scope(name);
  kernels::DeviceBuffer device_a(bytes);
  std::optional<kernels::DeviceBuffer> device_b;
  std::optional<kernels::PinnedBuffer> host;
  if (kind == CopyKind::kDeviceToDevice) {
    device_b.emplace(bytes);
  } else {
    host.emplace(bytes);
  }
  device_a.zero(stream);
  auto copy = [&] {
    switch (kind) {
      case CopyKind::kDeviceToDevice:
        DDPSIM_CUDA_CHECK(cudaMemcpyAsync(device_b->get(), device_a.get(), bytes,
                                          cudaMemcpyDeviceToDevice, stream));
        break;
      case CopyKind::kHostToDevice:
        DDPSIM_CUDA_CHECK(
            cudaMemcpyAsync(device_a.get(), host->get(), bytes, cudaMemcpyHostToDevice, stream));
        break;
      case CopyKind::kDeviceToHost:
        DDPSIM_CUDA_CHECK(
            cudaMemcpyAsync(host->get(), device_a.get(), bytes, cudaMemcpyDeviceToHost, stream));
        break;
    }
  };
  CopyCeiling c;
  c.bytes = static_cast<double>(bytes);
  c.time = time_on_stream(stream, t.warmup, t.repeats, copy);
  c.bandwidth = (kind == CopyKind::kDeviceToDevice ? 2.0 : 1.0) * c.bytes / c.time.median;
  return c;
}

}  // namespace ddpsim::calibrate
