//===- LossGradKernels.cpp - backward of the vocab-parallel loss pieces ---===//

#include "sprt/grad_kernels.h"

#include <cmath>
#include <cstring>

extern "C" void sprt_cross_entropy_from_stats_grad_f32(
    const float *sumexp, const int64_t *labels, const float *dloss,
    const float *countIn, float *dsumexp, float *dlabelLogit, int64_t T,
    int64_t ignoreIndex) {
  double count = 0.0;
  if (countIn)
    count = double(*countIn);
  else
    for (int64_t t = 0; t < T; ++t)
      count += labels[t] != ignoreIndex ? 1.0 : 0.0;
  const bool any = count > 0.0;
  double g = any ? double(*dloss) / count : 0.0;
  for (int64_t t = 0; t < T; ++t) {
    bool used = labels[t] != ignoreIndex && any;
    dsumexp[t] = used ? float(g / double(sumexp[t])) : 0.0f;
    dlabelLogit[t] = used ? float(-g) : 0.0f;
  }
}

extern "C" void sprt_logits_sumexp_grad_f32(const float *logits,
                                            const float *max,
                                            const float *dsumexp,
                                            float *dlogits, int64_t T,
                                            int64_t V) {
  for (int64_t t = 0; t < T; ++t) {
    const float *row = logits + t * V;
    float *out = dlogits + t * V;
    float m = max[t], d = dsumexp[t];
    for (int64_t v = 0; v < V; ++v)
      out[v] = std::exp(row[v] - m) * d;
  }
}

extern "C" void sprt_label_logit_grad_f32(const int64_t *labels,
                                          const float *dz, float *dlogits,
                                          int64_t T, int64_t V,
                                          int64_t vocabOffset,
                                          int64_t ignoreIndex) {
  std::memset(dlogits, 0, size_t(T * V) * sizeof(float));
  for (int64_t t = 0; t < T; ++t) {
    int64_t l = labels[t] - vocabOffset;
    if (labels[t] != ignoreIndex && l >= 0 && l < V)
      dlogits[t * V + l] = dz[t];
  }
}

extern "C" void sprt_fill_f32(float *x, int64_t n, double value) {
  for (int64_t i = 0; i < n; ++i)
    x[i] = float(value);
}
