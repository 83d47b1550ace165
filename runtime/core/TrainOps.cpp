//===- TrainOps.cpp - backward ops that need the shard's position, and the
//                    optimizer step -----------------------------------===//

#include "Failure.h"
#include "Mesh.h"

#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace sprt;

extern "C" void sprt_op_embedding_grad(const int64_t *ids, const float *dy,
                                       float *dtable, int64_t T, int64_t V,
                                       int64_t H, int32_t vocabAxis) {
  sprt_embedding_grad_f32(ids, dy, dtable, T, V, H,
                          sprt_axis_coord(vocabAxis) * V);
}

extern "C" void sprt_op_label_logit_grad(const int64_t *labels, const float *dz,
                                         float *dlogits, int64_t T, int64_t V,
                                         int32_t vocabAxis,
                                         int64_t ignoreIndex) {
  sprt_label_logit_grad_f32(labels, dz, dlogits, T, V,
                            sprt_axis_coord(vocabAxis) * V, ignoreIndex);
}

extern "C" void sprt_op_attention_grad(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, float *dq, float *dk, float *dv, int64_t S,
    int64_t B, int64_t heads, int64_t kvHeads, int64_t headDim, int32_t causal,
    int64_t rotaryDim, double theta, double dropoutRate, int64_t stream,
    int32_t batchAxis, int32_t headAxis) {
  sprt_attention_grad_f32(
      dout, q, k, v, positions, dq, dk, dv, S, B, heads, kvHeads, headDim,
      causal, rotaryDim, theta, dropoutRate, sprt_get_seed(), uint64_t(stream),
      B * sprt_axis_size(batchAxis), B * sprt_axis_coord(batchAxis),
      heads * sprt_axis_size(headAxis), heads * sprt_axis_coord(headAxis));
}

extern "C" void sprt_all_reduce_coalesced_f32(int32_t count,
                                              const float *const *ins,
                                              float *const *outs,
                                              const int64_t *sizes,
                                              int32_t kind, int32_t axis) {
  int64_t total = 0;
  for (int32_t i = 0; i < count; ++i)
    total += sizes[i];
  std::vector<float> buffer(static_cast<size_t>(total));
  int64_t at = 0;
  for (int32_t i = 0; i < count; ++i) {
    std::copy(ins[i], ins[i] + sizes[i], buffer.begin() + at);
    at += sizes[i];
  }
  sprt_all_reduce_f32(buffer.data(), buffer.data(), total, kind, axis);
  at = 0;
  for (int32_t i = 0; i < count; ++i) {
    std::copy(buffer.begin() + at, buffer.begin() + at + sizes[i], outs[i]);
    at += sizes[i];
  }
}

extern "C" void sprt_set_step(int64_t step) {
  mesh().step = step;
  mesh().optimizerStep = step;
  mesh().updateSkipped = false;
}
extern "C" int64_t sprt_get_step(void) { return mesh().step; }

extern "C" void sprt_op_scale(const float *x, float *y, int64_t n, double s) {
  if (x != y)
    std::copy(x, x + n, y);
  sprt_scale_f32(y, n, s);
}

extern "C" void sprt_op_sum_squares(const float *x, int64_t n, float *out) {
  *out = float(sprt_sum_squares_f32(x, n));
}

extern "C" void sprt_op_clip_scale(const float *sumSquares, double maxNorm,
                                   float *scale, float *norm) {
  double total = std::sqrt(double(*sumSquares));
  *norm = float(total);
  // A NaN or Inf gradient would make every parameter NaN: the update is
  // skipped and main() stops the run or counts the step (--on-nonfinite).
  if (!std::isfinite(*norm)) {
    mesh().updateSkipped = true;
    *scale = 0.0f;
    return;
  }
  *scale =
      maxNorm > 0.0 ? float(std::min(1.0, maxNorm / (total + 1e-6))) : 1.0f;
}

/// The gradient times the clipping factor, in a scratch buffer when needed.
static const float *scaled(const float *grad, const float *scale, int64_t n,
                           std::vector<float> &scratch) {
  if (*scale == 1.0f)
    return grad;
  scratch.assign(grad, grad + n);
  sprt_scale_f32(scratch.data(), n, *scale);
  return scratch.data();
}

extern "C" void sprt_op_sgd(float *param, const float *grad, const float *scale,
                            int64_t n, double lr, double weightDecay,
                            int32_t shardAxis) {
  if (mesh().updateSkipped)
    return;
  std::vector<float> scratch;
  sprt_sgd_f32(param + sprt_axis_coord(shardAxis) * n,
               scaled(grad, scale, n, scratch), n, lr, weightDecay);
}

extern "C" void sprt_op_adamw(float *param, const float *grad, float *m,
                              float *v, const float *scale, int64_t n,
                              double lr, double beta1, double beta2, double eps,
                              double weightDecay, int32_t shardAxis) {
  if (mesh().updateSkipped)
    return;
  std::vector<float> scratch;
  sprt_adamw_f32(param + sprt_axis_coord(shardAxis) * n,
                 scaled(grad, scale, n, scratch), m, v, n, lr, beta1, beta2,
                 eps, weightDecay, mesh().optimizerStep);
}

extern "C" void sprt_reduce_scatter_coalesced_f32(int32_t count,
                                                  const float *const *ins,
                                                  float *const *outs,
                                                  const int64_t *sizes,
                                                  int32_t axis) {
  // Rank r's block of every tensor, in order, so that one reduce-scatter
  // leaves each rank its blocks contiguous.
  int64_t n = sprt_axis_size(axis), total = 0;
  for (int32_t i = 0; i < count; ++i)
    total += sizes[i];
  std::vector<float> packed(static_cast<size_t>(total));
  float *at = packed.data();
  for (int64_t r = 0; r < n; ++r)
    for (int32_t i = 0; i < count; ++i) {
      int64_t block = sizes[i] / n;
      at = std::copy(ins[i] + r * block, ins[i] + (r + 1) * block, at);
    }
  std::vector<float> mine(static_cast<size_t>(total / n));
  mesh().bytesSent.at(axis) += total / n * (n - 1) * int64_t(sizeof(float));
  MPI_Request request;
  MPI_Ireduce_scatter_block(packed.data(), mine.data(), int(total / n),
                            MPI_FLOAT, MPI_SUM, mesh().comm(axis), &request);
  waitFor(request, "reduce_scatter", axis);
  const float *from = mine.data();
  for (int32_t i = 0; i < count; ++i) {
    int64_t block = sizes[i] / n;
    std::copy(from, from + block, outs[i]);
    from += block;
  }
}

extern "C" void sprt_all_gather_param(void *data, int64_t n, int64_t elemBytes,
                                      int32_t axis) {
  int64_t size = sprt_axis_size(axis);
  int64_t block = n / size * elemBytes;
  mesh().bytesSent.at(axis) += block * (size - 1);
  MPI_Request request;
  MPI_Iallgather(MPI_IN_PLACE, 0, MPI_BYTE, data, int(block), MPI_BYTE,
                 mesh().comm(axis), &request);
  waitFor(request, "all_gather", axis);
}

extern "C" void sprt_copy_scalar_to_host(float *dst, const float *src) {
  sprt_memcpy_to_host(dst, src, int64_t(sizeof(float)), sprt_current_stream());
}
