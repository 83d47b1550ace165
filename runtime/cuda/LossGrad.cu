//===- LossGrad.cu - CUDA backward of the cross-entropy kernels -----------===//
//
// The loss gradients of sprt/grad_kernels.h. The number of non-ignored
// tokens is counted on the device (launchCountLabels) and read by the
// kernels, so nothing is copied to the host. Softmax rows are recomputed
// from the same float pieces as the forward (Loss.cuh); each gradient is
// evaluated in double and rounded once, as runtime/cpu/GradKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.cuh"
#include "Loss.cuh"
#include "sprt/grad_kernels.h"

using namespace sprt::cuda;

namespace {

// dlogits row t: (exp(row - max) / sumexp - onehot(c)) * dloss / count, zero
// for ignored tokens and when no token counts. With stats == NULL the max and
// sumexp are the row's own (unsplit logits, c = label). Logits and dlogits
// of type D: each logit widened, each gradient rounded once from its f32
// value.
template <int32_t D>
__global__ void softmaxGradKernel(
    const void *__restrict__ logits, const float *__restrict__ maxIn,
    const float *__restrict__ sumexpIn, const int64_t *__restrict__ labels,
    const float *__restrict__ dloss, const int64_t *__restrict__ count,
    const float *__restrict__ countIn, void *__restrict__ dlogits, int64_t V,
    int64_t vocabOffset, int64_t ignoreIndex) {
  __shared__ float redF[32];
  __shared__ double redD[32];
  const int64_t t = blockIdx.x;
  const void *row = elementAt<D>(logits, t * V);
  void *out = elementAt<D>(dlogits, t * V);
  const double n = countIn ? double(*countIn) : double(*count);
  if (!(n > 0.0) || labels[t] == ignoreIndex) { // uniform across the block
    for (int64_t v = threadIdx.x; v < V; v += blockDim.x)
      Quad<D>::storeOne(out, v, 0.0f);
    return;
  }
  float m, s;
  if (maxIn) {
    m = maxIn[t];
    s = sumexpIn[t];
  } else {
    m = rowMax<D>(row, V, redF);
    s = rowSumExp<D>(row, m, V, redD);
  }
  const double g = double(*dloss) / n;
  const double inv = 1.0 / double(s);
  const int64_t c = labels[t] - vocabOffset;
  for (int64_t v = threadIdx.x; v < V; v += blockDim.x) {
    const double p = double(expf(Quad<D>::loadOne(row, v) - m)) * inv;
    Quad<D>::storeOne(out, v, float((v == c ? p - 1.0 : p) * g));
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

/// softmaxGradKernel on logits and dlogits of SPRT_DTYPE_* `dtype`.
void launchSoftmaxGrad(int32_t dtype, const void *logits, const float *max,
                       const float *sumexp, const int64_t *labels,
                       const float *dloss, const float *countIn, void *dlogits,
                       int64_t T, int64_t V, int64_t vocabOffset,
                       int64_t ignoreIndex, const char *what) {
  if (V <= 0 || T <= 0)
    return;
  checkRows(T, what);
  const int64_t *count =
      countIn ? nullptr : launchCountLabels(labels, T, ignoreIndex);
  auto launch = [&](auto kernel) {
    kernel<<<unsigned(T), kThreads, 0, stream()>>>(
        logits, max, sumexp, labels, dloss, count, countIn, dlogits, V,
        vocabOffset, ignoreIndex);
  };
  if (dtype == SPRT_DTYPE_F32)
    launch(softmaxGradKernel<SPRT_DTYPE_F32>);
  else if (dtype == SPRT_DTYPE_BF16)
    launch(softmaxGradKernel<SPRT_DTYPE_BF16>);
  else
    launch(softmaxGradKernel<SPRT_DTYPE_F16>);
  SPRT_CUDA_CHECK_LAUNCH("softmaxGradKernel");
}

} // namespace

extern "C" {

void sprt_cross_entropy_grad_f32(const float *logits, const int64_t *labels,
                                 const float *dloss, const float *count_in,
                                 float *dlogits, int64_t T, int64_t V,
                                 int64_t ignore_index) {
  launchSoftmaxGrad(SPRT_DTYPE_F32, logits, nullptr, nullptr, labels, dloss,
                    count_in, dlogits, T, V, 0, ignore_index,
                    "sprt_cross_entropy_grad_f32");
}

void sprt_cross_entropy_grad_typed(const void *logits, int32_t logits_dtype,
                                   const int64_t *labels, const float *dloss,
                                   const float *count_in, void *dlogits,
                                   int32_t dlogits_dtype, int64_t T, int64_t V,
                                   int64_t ignore_index) {
  checkDtypeCode(logits_dtype, "sprt_cross_entropy_grad_typed");
  checkDtypeCode(dlogits_dtype, "sprt_cross_entropy_grad_typed");
  if (logits_dtype == dlogits_dtype) {
    launchSoftmaxGrad(logits_dtype, logits, nullptr, nullptr, labels, dloss,
                      count_in, dlogits, T, V, 0, ignore_index,
                      "sprt_cross_entropy_grad_typed");
    return;
  }
  // Mixed types: the gradient in f32 from the logits as stored, then
  // rounded into place (or written in place when dlogits is f32).
  const int64_t n = T > 0 && V > 0 ? T * V : 0;
  void *out = dlogits_dtype == SPRT_DTYPE_F32
                  ? dlogits
                  : scratch(Scratch::NormOut, size_t(n) * sizeof(float));
  const void *in = logits;
  if (logits_dtype != SPRT_DTYPE_F32) {
    void *wide = scratch(Scratch::NormX, size_t(n) * sizeof(float));
    sprt_convert(logits, logits_dtype, wide, SPRT_DTYPE_F32, n);
    in = wide;
  }
  launchSoftmaxGrad(SPRT_DTYPE_F32, in, nullptr, nullptr, labels, dloss,
                    count_in, out, T, V, 0, ignore_index,
                    "sprt_cross_entropy_grad_typed");
  if (out != dlogits)
    sprt_convert(out, SPRT_DTYPE_F32, dlogits, dlogits_dtype, n);
}

void sprt_vocab_parallel_cross_entropy_grad_f32(
    const float *logits, const float *max, const float *sumexp,
    const int64_t *labels, const float *dloss, float *dlogits, int64_t T,
    int64_t V, int64_t vocab_offset, int64_t ignore_index) {
  launchSoftmaxGrad(SPRT_DTYPE_F32, logits, max, sumexp, labels, dloss, nullptr,
                    dlogits, T, V, vocab_offset, ignore_index,
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
