// Own CUDA kernels for nn.Embedding: a row gather forward and a scatter-add backward (atomic
// fp32 adds, so repeated token ids accumulate as PyTorch's non-deterministic path does).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"

namespace ddpsim::kernels {

// out[t, :] = table[ids[t], :]; table and out of `dtype`.
void embedding_fwd(DType dtype, const void* table, const int32_t* ids, void* out, int64_t tokens,
                   int64_t dim, cudaStream_t stream);
// dtable (fp32, vocab x dim) is zeroed here, then dtable[ids[t], :] += dout[t, :].
void embedding_bwd(DType dtype, const void* dout, const int32_t* ids, float* dtable, int64_t tokens,
                   int64_t vocab, int64_t dim, cudaStream_t stream);

}  // namespace ddpsim::kernels
