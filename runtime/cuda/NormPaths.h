//===- NormPaths.h - the norm kernels' paths, named -------------*- C++ -*-===//
//
// The sprt_*norm* entry points take the fused kernels where the row fits
// (NormRows.cuh's rowShapeFor) and these otherwise. They are named here so
// that the microbenchmark (runtime/tests/NormBench.cu) can time both paths
// on the same shape. All on the compute stream; T > 0, H > 0.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_NORMPATHS_H
#define SPRT_CUDA_NORMPATHS_H

#include <cstdint>

namespace sprt::cuda {

/// One block of 256 threads per row, strided scalar loads, the row read
/// twice (statistics, then output).
void layerNormRowPerBlock(const float *x, const float *weight,
                          const float *bias, float *y, int64_t T, int64_t H,
                          double eps);
void rmsNormRowPerBlock(const float *x, const float *weight, float *y,
                        int64_t T, int64_t H, double eps);

/// The row-per-block backward (dx and the rows' statistics), then the
/// weight and bias gradients as two-stage column sums (ColumnSum.cuh) over
/// dy, x and the statistics: dy and x are read twice.
void layerNormGradTwoPass(const float *dy, const float *x, const float *weight,
                          float *dx, float *dw, float *db, int64_t T, int64_t H,
                          double eps);
void rmsNormGradTwoPass(const float *dy, const float *x, const float *weight,
                        float *dx, float *dw, int64_t T, int64_t H, double eps);

/// The fused kernels on rows whose tensors are all of SPRT_DTYPE_* `dtype`
/// (x, the weight and bias, y; dy and dx), widened on load, each result
/// rounded once from its f32 value; false (nothing launched) where the rows
/// do not fit the registers. The backward's dw and db are f32 (may be
/// null); its residual (may be null; `dtype`, as dx) is added into dx after
/// dx is rounded, as sprt_add_typed adds the stored dx.
bool layerNormFusedStored(int32_t dtype, const void *x, const void *weight,
                          const void *bias, void *y, int64_t T, int64_t H,
                          double eps);
bool rmsNormFusedStored(int32_t dtype, const void *x, const void *weight,
                        void *y, int64_t T, int64_t H, double eps);
/// The dropout of a residual sum (sprt_dropout_add_typed's): rows of a
/// rank-`rank` local tensor whose dims 0..rank-2 are `shape` and whose
/// elements have the global strides `gstride` from the shard's `offset`.
/// `rate` < 0: no dropout.
struct SumDropout {
  double rate = -1.0;
  float scale = 1.0f;
  uint64_t seed = 0, stream = 0;
  int32_t rank = 0;
  int64_t shape[3] = {1, 1, 1}, offset[3] = {0, 0, 0}, gstride[3] = {1, 1, 1};
};

/// The forward with the residual stream's sum: sum = x + residual as
/// sprt_add_typed computes it (all of `dtype`), or with `drop`
/// sprt_dropout_add_typed's residual + dropout(x), stored, and y the norm
/// of the stored sum; false (nothing launched) where the rows do not fit.
bool addLayerNormFusedStored(int32_t dtype, const void *x, const void *residual,
                             const void *weight, const void *bias, void *sum,
                             void *y, int64_t T, int64_t H, double eps,
                             const SumDropout &drop = SumDropout());
bool addRmsNormFusedStored(int32_t dtype, const void *x, const void *residual,
                           const void *weight, void *sum, void *y, int64_t T,
                           int64_t H, double eps,
                           const SumDropout &drop = SumDropout());
bool layerNormGradFusedStored(int32_t dtype, const void *dy, const void *x,
                              const void *weight, const void *residual,
                              void *dx, float *dw, float *db, int64_t T,
                              int64_t H, double eps);
bool rmsNormGradFusedStored(int32_t dtype, const void *dy, const void *x,
                            const void *weight, const void *residual, void *dx,
                            float *dw, int64_t T, int64_t H, double eps);

} // namespace sprt::cuda

#endif // SPRT_CUDA_NORMPATHS_H
