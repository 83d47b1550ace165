//===- Loss.cu - CUDA vocabulary-parallel cross-entropy pieces ------------===//
//
// The loss kernels of sprt/kernels.h. Row statistics take one block per
// token (Loss.cuh); the means over tokens are one-block reductions in double
// in a fixed order, so the loss is reproducible run to run. The loss stays
// on the device.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.cuh"
#include "Loss.cuh"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace sprt::cuda {

__global__ void __launch_bounds__(kReduceThreads)
    countLabels(const int64_t *labels, int64_t T, int64_t ignoreIndex,
                int64_t *count) {
  __shared__ double red[32];
  double c = 0.0; // exact below 2^53 tokens
  for (int64_t t = threadIdx.x; t < T; t += blockDim.x)
    c += labels[t] != ignoreIndex ? 1.0 : 0.0;
  c = blockSum(c, red);
  if (threadIdx.x == 0)
    *count = int64_t(c);
}

int64_t *launchCountLabels(const int64_t *labels, int64_t T,
                           int64_t ignoreIndex) {
  int64_t *count =
      static_cast<int64_t *>(scratch(Scratch::Reduce, sizeof(int64_t)));
  countLabels<<<1, kReduceThreads, 0, stream()>>>(labels, T, ignoreIndex,
                                                  count);
  SPRT_CUDA_CHECK_LAUNCH("countLabels");
  return count;
}

} // namespace sprt::cuda

namespace {

template <int32_t D = SPRT_DTYPE_F32>
__device__ inline float labelLogit(const void *row, int64_t label, int64_t V,
                                   int64_t vocabOffset, int64_t ignoreIndex) {
  if (label == ignoreIndex)
    return 0.0f;
  const int64_t c = label - vocabOffset;
  return (c >= 0 && c < V) ? Quad<D>::loadOne(row, c) : 0.0f;
}

__global__ void logitsMaxKernel(const float *__restrict__ logits,
                                float *__restrict__ max, int64_t V) {
  __shared__ float red[32];
  const float m = rowMax(logits + blockIdx.x * V, V, red);
  if (threadIdx.x == 0)
    max[blockIdx.x] = m;
}

__global__ void logitsSumExpKernel(const float *__restrict__ logits,
                                   const float *__restrict__ max,
                                   float *__restrict__ sumexp, int64_t V) {
  __shared__ double red[32];
  const float s = rowSumExp(logits + blockIdx.x * V, max[blockIdx.x], V, red);
  if (threadIdx.x == 0)
    sumexp[blockIdx.x] = s;
}

__global__ void labelLogitKernel(const float *__restrict__ logits,
                                 const int64_t *__restrict__ labels,
                                 float *__restrict__ out, int64_t T, int64_t V,
                                 int64_t vocabOffset, int64_t ignoreIndex) {
  SPRT_FOR_EACH(t, T) {
    out[t] = labelLogit(logits + t * V, labels[t], V, vocabOffset, ignoreIndex);
  }
}

// *loss = mean over non-ignored tokens of terms[t] (or of log(sumexp) + max -
// label_logit when terms is NULL); 0 if there are none. With countIn, the
// sum divided by *countIn instead (0 if it is 0). One block.
__global__ void __launch_bounds__(kReduceThreads) meanLossKernel(
    const double *__restrict__ terms, const float *__restrict__ max,
    const float *__restrict__ sumexp, const float *__restrict__ labelLogits,
    const int64_t *__restrict__ labels, const float *__restrict__ countIn,
    float *__restrict__ loss, int64_t T, int64_t ignoreIndex) {
  __shared__ double red[32];
  double acc = 0.0, count = 0.0;
  for (int64_t t = threadIdx.x; t < T; t += blockDim.x) {
    if (labels[t] == ignoreIndex)
      continue;
    acc += terms ? terms[t]
                 : log(double(sumexp[t])) + double(max[t]) -
                       double(labelLogits[t]);
    count += 1.0;
  }
  acc = blockSum(acc, red);
  count = blockSum(count, red);
  if (countIn)
    count = double(*countIn);
  if (threadIdx.x == 0)
    *loss = count > 0.0 ? float(acc / count) : 0.0f;
}

// *count = the number of non-ignored labels, as a float. One block.
__global__ void __launch_bounds__(kReduceThreads)
    labelCountKernel(const int64_t *__restrict__ labels,
                     float *__restrict__ count, int64_t T,
                     int64_t ignoreIndex) {
  __shared__ double red[32];
  double c = 0.0;
  for (int64_t t = threadIdx.x; t < T; t += blockDim.x)
    c += labels[t] != ignoreIndex ? 1.0 : 0.0;
  c = blockSum(c, red);
  if (threadIdx.x == 0)
    *count = float(c);
}

// terms[t] = log(sumexp) + max - label logit of row t (0 when ignored), on
// logits of type D.
template <int32_t D>
__global__ void lossTermsKernel(const void *__restrict__ logits,
                                const int64_t *__restrict__ labels,
                                double *__restrict__ terms, int64_t V,
                                int64_t ignoreIndex) {
  __shared__ float redF[32];
  __shared__ double redD[32];
  const int64_t t = blockIdx.x;
  if (labels[t] == ignoreIndex) { // uniform across the block
    if (threadIdx.x == 0)
      terms[t] = 0.0;
    return;
  }
  const void *row = elementAt<D>(logits, t * V);
  const float m = rowMax<D>(row, V, redF);
  const float s = rowSumExp<D>(row, m, V, redD);
  if (threadIdx.x == 0)
    terms[t] = log(double(s)) + double(m) -
               double(labelLogit<D>(row, labels[t], V, 0, ignoreIndex));
}

} // namespace

extern "C" {

void sprt_logits_max_f32(const float *logits, float *max, int64_t T,
                         int64_t V) {
  if (T <= 0)
    return;
  checkRows(T, "sprt_logits_max_f32");
  logitsMaxKernel<<<unsigned(T), kThreads, 0, stream()>>>(logits, max, V);
  SPRT_CUDA_CHECK_LAUNCH("logitsMaxKernel");
}

void sprt_logits_sumexp_f32(const float *logits, const float *max,
                            float *sumexp, int64_t T, int64_t V) {
  if (T <= 0)
    return;
  checkRows(T, "sprt_logits_sumexp_f32");
  logitsSumExpKernel<<<unsigned(T), kThreads, 0, stream()>>>(logits, max,
                                                             sumexp, V);
  SPRT_CUDA_CHECK_LAUNCH("logitsSumExpKernel");
}

void sprt_label_logit_f32(const float *logits, const int64_t *labels,
                          float *out, int64_t T, int64_t V,
                          int64_t vocab_offset, int64_t ignore_index) {
  SPRT_LAUNCH(labelLogitKernel, T, logits, labels, out, T, V, vocab_offset,
              ignore_index);
}

void sprt_cross_entropy_from_stats_f32(const float *max, const float *sumexp,
                                       const float *label_logit,
                                       const int64_t *labels,
                                       const float *count, float *loss,
                                       int64_t T, int64_t ignore_index) {
  meanLossKernel<<<1, kReduceThreads, 0, stream()>>>(
      nullptr, max, sumexp, label_logit, labels, count, loss, T < 0 ? 0 : T,
      ignore_index);
  SPRT_CUDA_CHECK_LAUNCH("meanLossKernel");
}

void sprt_cross_entropy_f32(const float *logits, const int64_t *labels,
                            const float *count, float *loss, int64_t T,
                            int64_t V, int64_t ignore_index) {
  sprt_cross_entropy_typed(logits, SPRT_DTYPE_F32, labels, count, loss, T, V,
                           ignore_index);
}

void sprt_cross_entropy_typed(const void *logits, int32_t logits_dtype,
                              const int64_t *labels, const float *count,
                              float *loss, int64_t T, int64_t V,
                              int64_t ignore_index) {
  checkDtypeCode(logits_dtype, "sprt_cross_entropy_typed");
  double *terms = nullptr;
  if (T > 0) {
    checkRows(T, "sprt_cross_entropy_typed");
    terms = static_cast<double *>(
        scratch(Scratch::RowStats, size_t(T) * sizeof(double)));
    if (logits_dtype == SPRT_DTYPE_F32)
      lossTermsKernel<SPRT_DTYPE_F32><<<unsigned(T), kThreads, 0, stream()>>>(
          logits, labels, terms, V, ignore_index);
    else if (logits_dtype == SPRT_DTYPE_BF16)
      lossTermsKernel<SPRT_DTYPE_BF16><<<unsigned(T), kThreads, 0, stream()>>>(
          logits, labels, terms, V, ignore_index);
    else
      lossTermsKernel<SPRT_DTYPE_F16><<<unsigned(T), kThreads, 0, stream()>>>(
          logits, labels, terms, V, ignore_index);
    SPRT_CUDA_CHECK_LAUNCH("lossTermsKernel");
  }
  meanLossKernel<<<1, kReduceThreads, 0, stream()>>>(
      terms, nullptr, nullptr, nullptr, labels, count, loss, T < 0 ? 0 : T,
      ignore_index);
  SPRT_CUDA_CHECK_LAUNCH("meanLossKernel");
}

void sprt_label_count_f32(const int64_t *labels, float *count, int64_t T,
                          int64_t ignore_index) {
  labelCountKernel<<<1, kReduceThreads, 0, stream()>>>(
      labels, count, T < 0 ? 0 : T, ignore_index);
  SPRT_CUDA_CHECK_LAUNCH("labelCountKernel");
}

} // extern "C"
