//===- LossGrad.cu - CUDA backward of the cross-entropy kernels -----------===//
//
// The loss gradients of sprt/grad_kernels.h. The number of non-ignored
// tokens is counted on the device (launchCountLabels) and read by the
// kernels, so nothing is copied to the host. Softmax rows are recomputed
// from the same float pieces as the forward (Loss.cuh); each gradient is
// evaluated in double and rounded once, as runtime/cpu/GradKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "Loss.cuh"
#include "sprt/grad_kernels.h"

using namespace sprt::cuda;

namespace {

// dlogits row t: (exp(row - max) / sumexp - onehot(c)) * dloss / count, zero
// for ignored tokens and when no token counts. With stats == NULL the max and
// sumexp are the row's own (unsplit logits, c = label).
__global__ void softmaxGradKernel(
    const float *__restrict__ logits, const float *__restrict__ maxIn,
    const float *__restrict__ sumexpIn, const int64_t *__restrict__ labels,
    const float *__restrict__ dloss, const int64_t *__restrict__ count,
    const float *__restrict__ countIn, float *__restrict__ dlogits, int64_t V,
    int64_t vocabOffset, int64_t ignoreIndex) {
  __shared__ float redF[32];
  __shared__ double redD[32];
  const int64_t t = blockIdx.x;
  const float *row = logits + t * V;
  float *out = dlogits + t * V;
  const double n = countIn ? double(*countIn) : double(*count);
  if (!(n > 0.0) || labels[t] == ignoreIndex) { // uniform across the block
    for (int64_t v = threadIdx.x; v < V; v += blockDim.x)
      out[v] = 0.0f;
    return;
  }
  float m, s;
  if (maxIn) {
    m = maxIn[t];
    s = sumexpIn[t];
  } else {
    m = rowMax(row, V, redF);
    s = rowSumExp(row, m, V, redD);
  }
  const double g = double(*dloss) / n;
  const double inv = 1.0 / double(s);
  const int64_t c = labels[t] - vocabOffset;
  for (int64_t v = threadIdx.x; v < V; v += blockDim.x) {
    const double p = double(expf(row[v] - m)) * inv;
    out[v] = float((v == c ? p - 1.0 : p) * g);
  }
}

__global__ void fromStatsGradKernel(
    const float *__restrict__ sumexp, const int64_t *__restrict__ labels,
    const float *__restrict__ dloss, const int64_t *__restrict__ count,
    const float *__restrict__ countIn, float *__restrict__ dsumexp,
    float *__restrict__ dlabelLogit, int64_t T, int64_t ignoreIndex) {
  const double n = countIn ? double(*countIn) : double(*count);
  const bool any = n > 0.0;
  const double g = any ? double(*dloss) / n : 0.0;
  SPRT_FOR_EACH(t, T) {
    const bool used = labels[t] != ignoreIndex && any;
    dsumexp[t] = used ? float(g / double(sumexp[t])) : 0.0f;
    dlabelLogit[t] = used ? float(-g) : 0.0f;
  }
}

__global__ void sumExpGradKernel(const float *__restrict__ logits,
                                 const float *__restrict__ max,
                                 const float *__restrict__ dsumexp,
                                 float *__restrict__ dlogits, int64_t T,
                                 int64_t V) {
  SPRT_FOR_EACH(e, T * V) {
    const int64_t t = e / V;
    dlogits[e] = expf(logits[e] - max[t]) * dsumexp[t];
  }
}

__global__ void labelLogitGradKernel(const int64_t *__restrict__ labels,
                                     const float *__restrict__ dz,
                                     float *__restrict__ dlogits, int64_t T,
                                     int64_t V, int64_t vocabOffset,
                                     int64_t ignoreIndex) {
  SPRT_FOR_EACH(e, T * V) {
    const int64_t t = e / V, v = e % V;
    const int64_t label = labels[t];
    dlogits[e] =
        (label != ignoreIndex && label - vocabOffset == v) ? dz[t] : 0.0f;
  }
}

void launchSoftmaxGrad(const float *logits, const float *max,
                       const float *sumexp, const int64_t *labels,
                       const float *dloss, const float *countIn, float *dlogits,
                       int64_t T, int64_t V, int64_t vocabOffset,
                       int64_t ignoreIndex, const char *what) {
  if (V <= 0 || T <= 0)
    return;
  checkRows(T, what);
  const int64_t *count =
      countIn ? nullptr : launchCountLabels(labels, T, ignoreIndex);
  softmaxGradKernel<<<unsigned(T), kThreads, 0, stream()>>>(
      logits, max, sumexp, labels, dloss, count, countIn, dlogits, V,
      vocabOffset, ignoreIndex);
  SPRT_CUDA_CHECK_LAUNCH("softmaxGradKernel");
}

} // namespace

extern "C" {

void sprt_cross_entropy_grad_f32(const float *logits, const int64_t *labels,
                                 const float *dloss, const float *count_in,
                                 float *dlogits, int64_t T, int64_t V,
                                 int64_t ignore_index) {
  launchSoftmaxGrad(logits, nullptr, nullptr, labels, dloss, count_in, dlogits,
                    T, V, 0, ignore_index, "sprt_cross_entropy_grad_f32");
}

void sprt_vocab_parallel_cross_entropy_grad_f32(
    const float *logits, const float *max, const float *sumexp,
    const int64_t *labels, const float *dloss, float *dlogits, int64_t T,
    int64_t V, int64_t vocab_offset, int64_t ignore_index) {
  launchSoftmaxGrad(logits, max, sumexp, labels, dloss, nullptr, dlogits, T, V,
                    vocab_offset, ignore_index,
                    "sprt_vocab_parallel_cross_entropy_grad_f32");
}

void sprt_cross_entropy_from_stats_grad_f32(const float *sumexp,
                                            const int64_t *labels,
                                            const float *dloss,
                                            const float *count_in,
                                            float *dsumexp, float *dlabel_logit,
                                            int64_t T, int64_t ignore_index) {
  if (T <= 0)
    return;
  const int64_t *count =
      count_in ? nullptr : launchCountLabels(labels, T, ignore_index);
  SPRT_LAUNCH(fromStatsGradKernel, T, sumexp, labels, dloss, count, count_in,
              dsumexp, dlabel_logit, T, ignore_index);
}

void sprt_logits_sumexp_grad_f32(const float *logits, const float *max,
                                 const float *dsumexp, float *dlogits,
                                 int64_t T, int64_t V) {
  SPRT_LAUNCH(sumExpGradKernel, T * V, logits, max, dsumexp, dlogits, T, V);
}

void sprt_label_logit_grad_f32(const int64_t *labels, const float *dz,
                               float *dlogits, int64_t T, int64_t V,
                               int64_t vocab_offset, int64_t ignore_index) {
  SPRT_LAUNCH(labelLogitGradKernel, T * V, labels, dz, dlogits, T, V,
              vocab_offset, ignore_index);
}

} // extern "C"
