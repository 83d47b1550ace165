//===- Dropout.cu - CUDA inverted dropout ---------------------------------===//
//
// sprt_dropout_f32 and sprt_dropout_typed with the CPU backend's rule: element
// e of the local tensor is kept iff sprt::philox::uniform(seed, stream, global
// index of e) >= rate (compared in double), and scaled by 1 / (1 - rate). The
// draw is the shared header's Philox, so masks are bit-identical to the CPU's.
// Each element is loaded and stored in its type (Elementwise.cuh): a bf16 / f16
// kept element is scaled in f32 and rounded once. sprt_dropout_add_typed adds
// the rounded element to a residual in f32 and rounds the sum once.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "sprt/device.h"
#include "sprt/kernels.h"
#include "sprt/philox.h"

using namespace sprt::cuda;

namespace {

constexpr int kMaxRank = 8;

// The local shape and, per dimension, the offset of the shard and the stride
// of the global tensor (row-major), passed by value.
struct DropoutGeometry {
  int32_t rank;
  int64_t shape[kMaxRank], offset[kMaxRank], gstride[kMaxRank];
};

__global__ void dropoutKernel(const void *x, const void *residual, void *y,
                              uint8_t *__restrict__ mask, int64_t n,
                              DropoutGeometry geo, double rate, float scale,
                              uint64_t seed, const uint64_t *__restrict__ salt,
                              uint64_t stream, int32_t dtype) {
  // The draws' key: the seed XOR the step's salt (sprt_step_values).
  const uint64_t key = seed ^ *salt;
  SPRT_FOR_EACH(e, n) {
    // Global index: the local multi-index of e plus the shard's offsets,
    // against the global strides.
    int64_t rest = e, global = 0;
    for (int32_t d = geo.rank - 1; d >= 0; --d) {
      const int64_t idx = rest % geo.shape[d];
      rest /= geo.shape[d];
      global += (geo.offset[d] + idx) * geo.gstride[d];
    }
    const bool keep = rate <= 0.0 || sprt::philox::dropoutKeep(
                                         key, stream, uint64_t(global), rate);
    // __fmul_rn / __fadd_rn: never contracted into one FMA, so the fused
    // sum is the two kernels' (a product stored, then added).
    float v = keep ? __fmul_rn(loadElement(x, dtype, e), scale) : 0.0f;
    if (residual) {
      // The dropout's element as tfm.dropout stores it, then tfm.add's sum.
      float stored[1];
      storeElement(stored, dtype, 0, v);
      v = __fadd_rn(loadElement(residual, dtype, e),
                    loadElement(stored, dtype, 0));
    }
    storeElement(y, dtype, e, v);
    if (mask)
      mask[e] = keep ? 1 : 0;
  }
}

} // namespace

/// sprt_dropout_typed, added to `residual` when it is not null.
static void launchDropout(const void *x, const void *residual, void *y,
                          uint8_t *mask, int32_t rank, const int64_t *shape,
                          const int64_t *global_shape, const int64_t *offset,
                          double rate, uint64_t seed, uint64_t stream,
                          int32_t dtype, const char *fn) {
  checkDtypeCode(dtype, fn);
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= shape[d];
  if (n <= 0)
    return;
  cudaStream_t st = sprt::cuda::stream();
  if (rate <= 0.0 && !residual) {
    if (y != x)
      SPRT_CUDA_CHECK(
          cudaMemcpyAsync(y, x, size_t(n) * (dtype == SPRT_DTYPE_F32 ? 4 : 2),
                          cudaMemcpyDeviceToDevice, st));
    if (mask)
      SPRT_CUDA_CHECK(cudaMemsetAsync(mask, 1, size_t(n), st));
    return;
  }
  if (rank > kMaxRank)
    throw std::runtime_error("sprt cuda backend: " + std::string(fn) +
                             ": rank " + std::to_string(rank) + " > " +
                             std::to_string(kMaxRank));
  DropoutGeometry geo{};
  geo.rank = rank;
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    geo.shape[d] = shape[d];
    geo.offset[d] = offset[d];
    geo.gstride[d] = stride;
    stride *= global_shape[d];
  }
  // rate >= 1 drops everything (no uniform draw reaches 1); dropped
  // elements are plain zeros, so the infinite scale is never used.
  const float scale = rate < 1.0 ? float(1.0 / (1.0 - rate)) : 0.0f;
  dropoutKernel<<<gridFor(n), kThreads, 0, st>>>(
      x, residual, y, mask, n, geo, rate, scale, seed,
      &sprt_step_values_device()->dropout_salt, stream, dtype);
  SPRT_CUDA_CHECK_LAUNCH("dropoutKernel");
}

extern "C" void sprt_dropout_typed(const void *x, void *y, uint8_t *mask,
                                   int32_t rank, const int64_t *shape,
                                   const int64_t *global_shape,
                                   const int64_t *offset, double rate,
                                   uint64_t seed, uint64_t stream,
                                   int32_t dtype) {
  launchDropout(x, nullptr, y, mask, rank, shape, global_shape, offset, rate,
                seed, stream, dtype, "sprt_dropout_typed");
}

extern "C" void sprt_dropout_add_typed(
    const void *x, const void *residual, void *y, int32_t rank,
    const int64_t *shape, const int64_t *global_shape, const int64_t *offset,
    double rate, uint64_t seed, uint64_t stream, int32_t dtype) {
  launchDropout(x, residual, y, nullptr, rank, shape, global_shape, offset,
                rate, seed, stream, dtype, "sprt_dropout_add_typed");
}

extern "C" void sprt_dropout_f32(const float *x, float *y, uint8_t *mask,
                                 int32_t rank, const int64_t *shape,
                                 const int64_t *global_shape,
                                 const int64_t *offset, double rate,
                                 uint64_t seed, uint64_t stream) {
  sprt_dropout_typed(x, y, mask, rank, shape, global_shape, offset, rate, seed,
                     stream, SPRT_DTYPE_F32);
}
