//===- GradKernels.cpp - CPU backward kernels (all but attention) ---------===//
//
// The backward kernels of sprt/grad_kernels.h except attention's
// (AttentionGrad.cpp) and the optimizer updates (Optimizer.cpp). Same
// conventions as the forward kernels in Kernels.cpp: row-major f32, GEMMs
// through cblas_sgemm, loops over tokens with the feature dimension
// innermost, every output overwritten.
//
// Numerics. Reductions (norm statistics and their gradients, bias and norm
// weight gradients, the sum over repeated heads) are accumulated in double
// and rounded once. Elementwise derivatives (gelu, silu) are evaluated in
// double on the forward's exact formulas, constants included (the forward's
// float constants promoted to double), so they are the derivative of the
// function the forward computes, rounded once. Cross-entropy recomputes the
// softmax from the same float pieces as the forward (row max, f32 exp of
// logit - max, double sum rounded to float).
//
//===----------------------------------------------------------------------===//

#include "NormRows.h"
#include "RowOps.h"
#include "Scratch.h"
#include "Tanh.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace sprt::cpu;

namespace {

// dlogits row of a token: (exp(row - max) / sumexp - onehot) * g, where the
// label column `c` may lie outside [0, V) (not on this shard).
void softmaxGradRow(const float *row, float max, float sumexp, int64_t c,
                    double g, float *out, int64_t V) {
  const double inv = 1.0 / double(sumexp);
  for (int64_t v = 0; v < V; ++v) {
    double p = double(std::exp(row[v] - max)) * inv;
    out[v] = float((v == c ? p - 1.0 : p) * g);
  }
}

int64_t countLabels(const int64_t *labels, int64_t T, int64_t ignore_index) {
  int64_t count = 0;
  for (int64_t t = 0; t < T; ++t)
    count += labels[t] != ignore_index;
  return count;
}

} // namespace

extern "C" {

//===------------------------------ linear -------------------------------===//

void sprt_linear_grad_input_f32(const float *dy, const float *w, float *dx,
                                int64_t M, int64_t K, int64_t N,
                                int32_t weight_in_out) {
  if (M <= 0 || K <= 0)
    return;
  if (N <= 0) {
    std::fill(dx, dx + M * K, 0.0f);
    return;
  }
  // W [N, K]: y = x W^T, dx = dy W. W [K, N]: y = x W, dx = dy W^T.
  const bool inOut = weight_in_out != 0;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, inOut ? CblasTrans : CblasNoTrans,
              blasint(M), blasint(K), blasint(N), 1.0f, dy, blasint(N), w,
              blasint(inOut ? N : K), 0.0f, dx, blasint(K));
}

/// dw (= or +=, by beta) dy^T x for W [N, K], x^T dy for W [K, N].
static void gradWeightGemm(const float *x, const float *dy, float *dw,
                           int64_t M, int64_t K, int64_t N,
                           int32_t weight_in_out, float beta) {
  if (weight_in_out) // dw [K, N] = x^T dy
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, blasint(K), blasint(N),
                blasint(M), 1.0f, x, blasint(K), dy, blasint(N), beta, dw,
                blasint(N));
  else // dw [N, K] = dy^T x
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, blasint(N), blasint(K),
                blasint(M), 1.0f, dy, blasint(N), x, blasint(K), beta, dw,
                blasint(K));
}

void sprt_linear_grad_weight_f32(const float *x, const float *dy, float *dw,
                                 int64_t M, int64_t K, int64_t N,
                                 int32_t weight_in_out) {
  if (K <= 0 || N <= 0)
    return;
  if (M <= 0) {
    std::fill(dw, dw + K * N, 0.0f);
    return;
  }
  gradWeightGemm(x, dy, dw, M, K, N, weight_in_out, 0.0f);
}

void sprt_linear_grad_weight_acc_f32(const float *x, const float *dy, float *dw,
                                     int64_t M, int64_t K, int64_t N,
                                     int32_t weight_in_out) {
  if (K <= 0 || N <= 0 || M <= 0)
    return;
  gradWeightGemm(x, dy, dw, M, K, N, weight_in_out, 1.0f);
}

void sprt_bias_grad_f32(const float *dy, float *db, int64_t T, int64_t H) {
  if (H <= 0)
    return;
  ScratchVector<double> acc(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    const float *r = dy + t * H;
    for (int64_t i = 0; i < H; ++i)
      acc[i] += double(r[i]);
  }
  for (int64_t i = 0; i < H; ++i)
    db[i] = float(acc[i]);
}

//===------------------------------- norms -------------------------------===//

// NormRows.h has the formulas.
void sprt_layer_norm_grad_f32(const float *dy, const float *x,
                              const float *weight, float *dx, float *dw,
                              float *db, int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  ScratchVector<double> dwAcc(dw ? size_t(H) : 0, 0.0),
      dbAcc(db ? size_t(H) : 0, 0.0), xhat(static_cast<size_t>(H)),
      g(static_cast<size_t>(H));
  for (int64_t t = 0; t < T; ++t)
    layerNormGradRow(dy + t * H, x + t * H, weight, dx + t * H,
                     dw ? dwAcc.data() : nullptr, db ? dbAcc.data() : nullptr,
                     H, eps, xhat.data(), g.data());
  if (dw)
    for (int64_t i = 0; i < H; ++i)
      dw[i] = float(dwAcc[i]);
  if (db)
    for (int64_t i = 0; i < H; ++i)
      db[i] = float(dbAcc[i]);
}

void sprt_rms_norm_grad_f32(const float *dy, const float *x,
                            const float *weight, float *dx, float *dw,
                            int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  ScratchVector<double> dwAcc(dw ? size_t(H) : 0, 0.0);
  for (int64_t t = 0; t < T; ++t)
    rmsNormGradRow(dy + t * H, x + t * H, weight, dx + t * H,
                   dw ? dwAcc.data() : nullptr, H, eps);
  if (dw)
    for (int64_t i = 0; i < H; ++i)
      dw[i] = float(dwAcc[i]);
}

//===---------------------------- activations ----------------------------===//

void sprt_gelu_grad_f32(const float *dy, const float *x, float *dx, int64_t n,
                        int32_t tanh_approx) {
  if (tanh_approx) {
    // y = x/2 (1 + tanh(u)), u = beta (x + kappa x^3):
    // y' = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) beta (1 + 3 kappa x^2).
    const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      float th, sech2;
      sprt::cpu::tanhAndSech2(kBeta * (v + kKappa * v * v * v), th, sech2);
      const float d = 0.5f * (1.0f + th) +
                      0.5f * v * sech2 * kBeta * (1.0f + 3.0f * kKappa * v * v);
      dx[i] = dy[i] * d;
    }
  } else {
    // y = x/2 (1 + erf(c x)), c ~ 1/sqrt(2):
    // y' = (1 + erf(c x))/2 + x c exp(-(c x)^2) / sqrt(pi).
    const double kC = double(0.7071067811865476f);
    const double kRsqrtPi = 0.5641895835477563; // 1 / sqrt(pi)
    for (int64_t i = 0; i < n; ++i) {
      const double v = x[i], cv = kC * v;
      const double d =
          0.5 * (1.0 + std::erf(cv)) + v * kC * kRsqrtPi * std::exp(-cv * cv);
      dx[i] = float(double(dy[i]) * d);
    }
  }
}

void sprt_silu_grad_f32(const float *dy, const float *x, float *dx, int64_t n) {
  // silu = x s(x), s = 1 / (1 + exp(-x)): silu' = s (1 + x (1 - s)). For
  // x << 0, exp(-x) overflows to inf, s = 0 and the result is 0, not NaN.
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    const double s = 1.0 / (1.0 + std::exp(-v));
    dx[i] = float(double(dy[i]) * s * (1.0 + v * (1.0 - s)));
  }
}

void sprt_relu_grad_f32(const float *dy, const float *x, float *dx, int64_t n) {
  // relu'(0) = 0, as torch's threshold_backward (x <= 0 gives 0, so a NaN
  // x passes dy through).
  for (int64_t i = 0; i < n; ++i)
    dx[i] = x[i] <= 0.0f ? 0.0f : dy[i];
}

//===----------------------------- embedding -----------------------------===//

void sprt_embedding_grad_f32(const int64_t *ids, const float *dy, float *dtable,
                             int64_t T, int64_t V, int64_t H,
                             int64_t vocab_offset) {
  if (V <= 0 || H <= 0)
    return;
  std::fill(dtable, dtable + V * H, 0.0f);
  // Scatter-add in token order (as torch's embedding_dense_backward on CPU
  // does, in f32): the result does not depend on the vocabulary split.
  for (int64_t t = 0; t < T; ++t) {
    const int64_t r = ids[t] - vocab_offset;
    if (r < 0 || r >= V)
      continue;
    const float *src = dy + t * H;
    float *dst = dtable + r * H;
    for (int64_t i = 0; i < H; ++i)
      dst[i] += src[i];
  }
}

//===--------------------------- head reshaping --------------------------===//

void sprt_qkv_concat(const void *dq, const void *dk, const void *dv, void *dqkv,
                     int64_t T, int64_t heads, int64_t kv_heads,
                     int64_t head_dim, int32_t packing_heads,
                     int32_t elem_bytes) {
  const int64_t hd = head_dim * elem_bytes;
  const int64_t qW = heads * hd, kvW = kv_heads * hd, rowW = qW + 2 * kvW;
  const char *qb = static_cast<const char *>(dq),
             *kb = static_cast<const char *>(dk),
             *vb = static_cast<const char *>(dv);
  char *dst = static_cast<char *>(dqkv);
  for (int64_t t = 0; t < T; ++t) {
    char *out = dst + t * rowW;
    const char *qr = qb + t * qW, *kr = kb + t * kvW, *vr = vb + t * kvW;
    if (!packing_heads) {
      std::memcpy(out, qr, size_t(qW));
      std::memcpy(out + qW, kr, size_t(kvW));
      std::memcpy(out + qW + kvW, vr, size_t(kvW));
      continue;
    }
    // The inverse of sprt_qkv_split's per-group packing
    // [q_0 .. q_{factor-1} k v] (per head [q k v] when heads == kv_heads).
    const int64_t factor = kv_heads > 0 ? heads / kv_heads : 0;
    const int64_t groupW = (factor + 2) * hd;
    for (int64_t g = 0; g < kv_heads; ++g) {
      char *grp = out + g * groupW;
      std::memcpy(grp, qr + g * factor * hd, size_t(factor * hd));
      std::memcpy(grp + factor * hd, kr + g * hd, size_t(hd));
      std::memcpy(grp + (factor + 1) * hd, vr + g * hd, size_t(hd));
    }
  }
}

void sprt_repeat_heads_grad_f32(const float *dy, float *dx, int64_t T,
                                int64_t heads, int64_t head_dim,
                                int64_t factor) {
  if (head_dim <= 0)
    return;
  // Sum over r in increasing order, in double, rounded once (the attention
  // backward sums its per-head kv gradients the same way, so a GQA gradient
  // equals this applied to the MHA gradient on repeated k/v, bitwise).
  ScratchVector<double> acc(static_cast<size_t>(head_dim));
  for (int64_t t = 0; t < T; ++t) {
    const float *yr = dy + t * heads * factor * head_dim;
    float *xr = dx + t * heads * head_dim;
    for (int64_t h = 0; h < heads; ++h) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t r = 0; r < factor; ++r) {
        const float *src = yr + (h * factor + r) * head_dim;
        for (int64_t d = 0; d < head_dim; ++d)
          acc[d] += double(src[d]);
      }
      for (int64_t d = 0; d < head_dim; ++d)
        xr[h * head_dim + d] = float(acc[d]);
    }
  }
}

//===--------------------------- cross-entropy ---------------------------===//

void sprt_cross_entropy_grad_f32(const float *logits, const int64_t *labels,
                                 const float *dloss, const float *count_in,
                                 float *dlogits, int64_t T, int64_t V,
                                 int64_t ignore_index) {
  sprt_cross_entropy_grad_typed(logits, SPRT_DTYPE_F32, labels, dloss, count_in,
                                dlogits, SPRT_DTYPE_F32, T, V, ignore_index);
}

void sprt_cross_entropy_grad_typed(const void *logits, int32_t logits_dtype,
                                   const int64_t *labels, const float *dloss,
                                   const float *count_in, void *dlogits,
                                   int32_t dlogits_dtype, int64_t T, int64_t V,
                                   int64_t ignore_index) {
  if (V <= 0)
    return;
  // Rows widened (WidenedRows); a bf16 / f16 gradient row is computed in
  // f32 and rounded once into place.
  WidenedRows rows(logits, logits_dtype, V);
  sprt_convert(nullptr, SPRT_DTYPE_F32, nullptr, dlogits_dtype, 0);
  const bool narrow = dlogits_dtype != SPRT_DTYPE_F32;
  ScratchVector<float> outRow(narrow ? size_t(V) : 0);
  const size_t outBytes = narrow ? 2 : 4;
  auto outAt = [&](int64_t t) {
    return narrow ? outRow.data() : static_cast<float *>(dlogits) + t * V;
  };
  auto store = [&](int64_t t) {
    if (narrow)
      sprt_convert(outRow.data(), SPRT_DTYPE_F32,
                   static_cast<char *>(dlogits) + t * V * outBytes,
                   dlogits_dtype, V);
  };
  const double count = count_in ? double(*count_in)
                                : double(countLabels(labels, T, ignore_index));
  const bool none = !(count > 0.0); // the loss is the constant 0
  const double g = none ? 0.0 : double(*dloss) / double(count);
  for (int64_t t = 0; t < T; ++t) {
    float *out = outAt(t);
    if (none || labels[t] == ignore_index) {
      std::fill(out, out + V, 0.0f);
    } else {
      const float *row = rows.row(t);
      const float m = rowMax(row, V);
      softmaxGradRow(row, m, rowSumExp(row, m, V), labels[t], g, out, V);
    }
    store(t);
  }
}

void sprt_vocab_parallel_cross_entropy_grad_f32(
    const float *logits, const float *max, const float *sumexp,
    const int64_t *labels, const float *dloss, float *dlogits, int64_t T,
    int64_t V, int64_t vocab_offset, int64_t ignore_index) {
  if (V <= 0)
    return;
  const int64_t count = countLabels(labels, T, ignore_index);
  if (count == 0) {
    std::fill(dlogits, dlogits + T * V, 0.0f);
    return;
  }
  const double g = double(*dloss) / double(count);
  for (int64_t t = 0; t < T; ++t) {
    float *out = dlogits + t * V;
    if (labels[t] == ignore_index) {
      std::fill(out, out + V, 0.0f);
      continue;
    }
    softmaxGradRow(logits + t * V, max[t], sumexp[t], labels[t] - vocab_offset,
                   g, out, V);
  }
}

} // extern "C"
