//===- Kernels.cpp - CPU forward kernels (all but attention) --------------===//
//
// Row-major f32 kernels of sprt/kernels.h. GEMMs go through cblas_sgemm
// (OpenBLAS); everything else is a loop over tokens with the feature
// dimension innermost, so every pass streams through memory once.
//
// Reductions (norm statistics, softmax denominators, the loss mean) are
// accumulated in double: the results are then at least as accurate as
// torch's f32 kernels, and do not depend on the summation order of a shard.
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"
#include "DropoutKey.h"
#include "NormRows.h"
#include "RowOps.h"
#include "Scratch.h"
#include "Tanh.h"

#include <cblas.h>

#include "sprt/dtype.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

using namespace sprt::cpu;

namespace {

float labelLogit(const float *row, int64_t label, int64_t V,
                 int64_t vocab_offset, int64_t ignore_index) {
  if (label == ignore_index)
    return 0.0f;
  int64_t c = label - vocab_offset;
  return (c >= 0 && c < V) ? row[c] : 0.0f;
}

/// sum / count, 0 when nothing counts.
float meanOver(double sum, double count) {
  return count > 0.0 ? float(sum / count) : 0.0f;
}

} // namespace

extern "C" {

void sprt_linear_f32(const float *x, const float *w, const float *bias,
                     float *y, int64_t M, int64_t K, int64_t N,
                     int32_t weight_in_out) {
  if (M <= 0 || N <= 0)
    return;
  // With a bias, y starts as the broadcast bias and the GEMM accumulates into
  // it (beta = 1), as torch's addmm does; otherwise beta = 0 overwrites y.
  float beta = 0.0f;
  if (bias) {
    for (int64_t m = 0; m < M; ++m)
      std::memcpy(y + m * N, bias, size_t(N) * sizeof(float));
    beta = 1.0f;
  }
  if (K <= 0) {
    if (!bias)
      std::fill(y, y + M * N, 0.0f);
    return;
  }
  const bool inOut = weight_in_out != 0;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, inOut ? CblasNoTrans : CblasTrans,
              blasint(M), blasint(N), blasint(K), 1.0f, x, blasint(K), w,
              blasint(inOut ? N : K), beta, y, blasint(N));
}

void sprt_embedding_f32(const int64_t *ids, const float *table, float *y,
                        int64_t T, int64_t V, int64_t H, int64_t vocab_offset) {
  for (int64_t t = 0; t < T; ++t) {
    int64_t r = ids[t] - vocab_offset;
    float *out = y + t * H;
    if (r >= 0 && r < V)
      std::memcpy(out, table + r * H, size_t(H) * sizeof(float));
    else
      std::fill(out, out + H, 0.0f);
  }
}

void sprt_layer_norm_f32(const float *x, const float *weight, const float *bias,
                         float *y, int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  for (int64_t t = 0; t < T; ++t)
    layerNormRow(x + t * H, weight, bias, y + t * H, H, eps);
}

void sprt_rms_norm_f32(const float *x, const float *weight, float *y, int64_t T,
                       int64_t H, double eps) {
  if (H <= 0)
    return;
  for (int64_t t = 0; t < T; ++t)
    rmsNormRow(x + t * H, weight, y + t * H, H, eps);
}

} // extern "C"

namespace {
/// Reads and writes elements of one SPRT_DTYPE_* as f32.
struct F32Elems {
  static constexpr size_t kBytes = 4;
  static float load(const void *p, int64_t i) {
    return static_cast<const float *>(p)[i];
  }
  static void store(void *p, int64_t i, float v) {
    static_cast<float *>(p)[i] = v;
  }
  static float round(float v) { return v; }
};
template <int32_t DType> struct HalfElems {
  static constexpr size_t kBytes = 2;
  static float load(const void *p, int64_t i) {
    uint16_t h = static_cast<const uint16_t *>(p)[i];
    return DType == SPRT_DTYPE_BF16 ? sprt::dtype::bf16ToF32(h)
                                    : sprt::dtype::f16ToF32(h);
  }
  static void store(void *p, int64_t i, float v) {
    static_cast<uint16_t *>(p)[i] = DType == SPRT_DTYPE_BF16
                                        ? sprt::dtype::f32ToBf16(v)
                                        : sprt::dtype::f32ToF16(v);
  }
  /// v as store() rounds it, widened again.
  static float round(float v) {
    uint16_t h;
    store(&h, 0, v);
    return load(&h, 0);
  }
};

/// sprt_dropout_f32 on elements read and written by `Elems`: a kept element
/// is scaled in f32 and stored once. With `residual`, each dropped-out
/// element, rounded as it would be stored, is added to the residual's in f32
/// and the sum stored once (sprt_dropout_add_typed).
template <typename Elems>
void dropout(const void *x, const void *residual, void *y, uint8_t *mask,
             int32_t rank, const int64_t *shape, const int64_t *global_shape,
             const int64_t *offset, double rate, uint64_t seed,
             uint64_t stream) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= shape[d];
  if (n <= 0)
    return;
  if (rate <= 0.0 && !residual) {
    if (y != x)
      std::memcpy(y, x, size_t(n) * Elems::kBytes);
    if (mask)
      std::memset(mask, 1, size_t(n));
    return;
  }
  // rate >= 1 drops everything (no uniform draw reaches 1); the scale would
  // be infinite, so dropped elements are written as plain zeros below.
  const float scale = rate < 1.0 ? float(1.0 / (1.0 - rate)) : 0.0f;

  // Row-major strides of the global tensor; the innermost local dimension is
  // contiguous in the global index too, so each local row is one run of
  // consecutive global indices starting at `base`.
  ScratchVector<int64_t> gstride(size_t(std::max(rank, 1)), 1);
  for (int32_t d = rank - 2; d >= 0; --d)
    gstride[d] = gstride[d + 1] * global_shape[d + 1];
  const int64_t inner = rank > 0 ? shape[rank - 1] : 1;
  const int64_t outer = n / inner;
  ScratchVector<int64_t> idx(size_t(std::max(rank, 1)), 0);

  for (int64_t o = 0; o < outer; ++o) {
    int64_t base = rank > 0 ? offset[rank - 1] : 0;
    for (int32_t d = 0; d + 1 < rank; ++d)
      base += (offset[d] + idx[d]) * gstride[d];
    uint8_t *mr = mask ? mask + o * inner : nullptr;
    for (int64_t i = 0; i < inner; ++i) {
      // The comparison is in double: the uniform is exact in float, rate is
      // not rounded to float.
      bool keep = rate <= 0.0 ||
                  double(sprt_uniform(sprt::cpu::dropoutKey(seed), stream,
                                      uint64_t(base + i))) >= rate;
      int64_t e = o * inner + i;
      float v = keep ? Elems::load(x, e) * scale : 0.0f;
      if (residual)
        v = Elems::load(residual, e) + Elems::round(v);
      Elems::store(y, e, v);
      if (mr)
        mr[i] = keep ? 1 : 0;
    }
    // Advance the multi-index over the outer (all but last) dimensions.
    for (int32_t d = rank - 2; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}
} // namespace

/// The dropout kernel of element type `dtype` (an unknown one aborts,
/// naming `fn`).
static decltype(&dropout<F32Elems>) dropoutOf(int32_t dtype, const char *fn) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return dropout<F32Elems>;
  case SPRT_DTYPE_BF16:
    return dropout<HalfElems<SPRT_DTYPE_BF16>>;
  case SPRT_DTYPE_F16:
    return dropout<HalfElems<SPRT_DTYPE_F16>>;
  default:
    std::fprintf(stderr, "%s: unknown element type code %d\n", fn, int(dtype));
    std::abort();
  }
}

extern "C" {

void sprt_dropout_f32(const float *x, float *y, uint8_t *mask, int32_t rank,
                      const int64_t *shape, const int64_t *global_shape,
                      const int64_t *offset, double rate, uint64_t seed,
                      uint64_t stream) {
  dropout<F32Elems>(x, nullptr, y, mask, rank, shape, global_shape, offset,
                    rate, seed, stream);
}

void sprt_dropout_typed(const void *x, void *y, uint8_t *mask, int32_t rank,
                        const int64_t *shape, const int64_t *global_shape,
                        const int64_t *offset, double rate, uint64_t seed,
                        uint64_t stream, int32_t dtype) {
  dropoutOf(dtype, "sprt_dropout_typed")(x, nullptr, y, mask, rank, shape,
                                         global_shape, offset, rate, seed,
                                         stream);
}

void sprt_dropout_add_typed(const void *x, const void *residual, void *y,
                            int32_t rank, const int64_t *shape,
                            const int64_t *global_shape, const int64_t *offset,
                            double rate, uint64_t seed, uint64_t stream,
                            int32_t dtype) {
  dropoutOf(dtype, "sprt_dropout_add_typed")(x, residual, y, nullptr, rank,
                                             shape, global_shape, offset, rate,
                                             seed, stream);
}

void sprt_gelu_f32(const float *x, float *y, int64_t n, int32_t tanh_approx) {
  using sprt::cpu::fastTanh;
  if (tanh_approx) {
    const float kBeta = 0.7978845608028654f; // sqrt(2 / pi)
    const float kKappa = 0.044715f;
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      float inner = kBeta * (v + kKappa * v * v * v);
      y[i] = 0.5f * v * (1.0f + fastTanh(inner));
    }
  } else {
    const float kRsqrt2 = 0.7071067811865476f;
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      y[i] = 0.5f * v * (1.0f + std::erf(v * kRsqrt2));
    }
  }
}

void sprt_silu_f32(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i] / (1.0f + vexp(-x[i]));
}

void sprt_relu_f32(const float *x, float *y, int64_t n) {
  // x < 0 ? 0 : x, not max: a NaN input propagates, as torch.relu.
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

void sprt_mul_f32(const float *a, const float *b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] * b[i];
}

void sprt_add_f32(const float *a, const float *b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] + b[i];
}

void sprt_bias_add_f32(const float *x, const float *bias, float *y, int64_t T,
                       int64_t H) {
  for (int64_t t = 0; t < T; ++t) {
    const float *xr = x + t * H;
    float *yr = y + t * H;
    for (int64_t i = 0; i < H; ++i)
      yr[i] = xr[i] + bias[i];
  }
}

void sprt_qkv_split(const void *qkv, void *q, void *k, void *v, int64_t T,
                    int64_t heads, int64_t kv_heads, int64_t head_dim,
                    int32_t packing_heads, int32_t elem_bytes) {
  // In bytes: the elements are moved, never converted.
  const int64_t es = elem_bytes, hd = head_dim * es;
  const int64_t qW = heads * hd, kvW = kv_heads * hd, rowW = qW + 2 * kvW;
  const char *src = static_cast<const char *>(qkv);
  char *qb = static_cast<char *>(q), *kb = static_cast<char *>(k),
       *vb = static_cast<char *>(v);
  for (int64_t t = 0; t < T; ++t) {
    const char *in = src + t * rowW;
    char *qr = qb + t * qW, *kr = kb + t * kvW, *vr = vb + t * kvW;
    if (!packing_heads) {
      std::memcpy(qr, in, size_t(qW));
      std::memcpy(kr, in + qW, size_t(kvW));
      std::memcpy(vr, in + qW + kvW, size_t(kvW));
      continue;
    }
    // Per-head packing. With heads == kv_heads (GPT-NeoX) every head is
    // [q k v]; the layout generalises to grouped heads as Megatron packs
    // them: per kv group [q_0 .. q_{factor-1} k v].
    const int64_t factor = kv_heads > 0 ? heads / kv_heads : 0;
    const int64_t groupW = (factor + 2) * hd;
    for (int64_t g = 0; g < kv_heads; ++g) {
      const char *grp = in + g * groupW;
      std::memcpy(qr + g * factor * hd, grp, size_t(factor * hd));
      std::memcpy(kr + g * hd, grp + factor * hd, size_t(hd));
      std::memcpy(vr + g * hd, grp + (factor + 1) * hd, size_t(hd));
    }
  }
}

void sprt_repeat_heads(const void *x, void *y, int64_t T, int64_t heads,
                       int64_t head_dim, int64_t factor, int32_t elem_bytes) {
  const int64_t hd = head_dim * elem_bytes;
  const char *xb = static_cast<const char *>(x);
  char *yb = static_cast<char *>(y);
  for (int64_t t = 0; t < T; ++t) {
    const char *xr = xb + t * heads * hd;
    char *yr = yb + t * heads * factor * hd;
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t r = 0; r < factor; ++r)
        std::memcpy(yr + (h * factor + r) * hd, xr + h * hd, size_t(hd));
  }
}

void sprt_position_ids_i64(int64_t *out, int64_t S, int64_t B,
                           int64_t seq_offset) {
  for (int64_t s = 0; s < S; ++s)
    for (int64_t b = 0; b < B; ++b)
      out[s * B + b] = seq_offset + s;
}

void sprt_logits_max_f32(const float *logits, float *max, int64_t T,
                         int64_t V) {
  for (int64_t t = 0; t < T; ++t)
    max[t] = rowMax(logits + t * V, V);
}

void sprt_logits_sumexp_f32(const float *logits, const float *max,
                            float *sumexp, int64_t T, int64_t V) {
  for (int64_t t = 0; t < T; ++t)
    sumexp[t] = rowSumExp(logits + t * V, max[t], V);
}

void sprt_label_logit_f32(const float *logits, const int64_t *labels,
                          float *out, int64_t T, int64_t V,
                          int64_t vocab_offset, int64_t ignore_index) {
  for (int64_t t = 0; t < T; ++t)
    out[t] =
        labelLogit(logits + t * V, labels[t], V, vocab_offset, ignore_index);
}

void sprt_cross_entropy_from_stats_f32(const float *max, const float *sumexp,
                                       const float *label_logit,
                                       const int64_t *labels,
                                       const float *count_in, float *loss,
                                       int64_t T, int64_t ignore_index) {
  double acc = 0.0;
  int64_t count = 0;
  for (int64_t t = 0; t < T; ++t) {
    if (labels[t] == ignore_index)
      continue;
    acc +=
        std::log(double(sumexp[t])) + double(max[t]) - double(label_logit[t]);
    ++count;
  }
  *loss = meanOver(acc, count_in ? double(*count_in) : double(count));
}

void sprt_cross_entropy_f32(const float *logits, const int64_t *labels,
                            const float *count_in, float *loss, int64_t T,
                            int64_t V, int64_t ignore_index) {
  sprt_cross_entropy_typed(logits, SPRT_DTYPE_F32, labels, count_in, loss, T, V,
                           ignore_index);
}

void sprt_cross_entropy_typed(const void *logits, int32_t logits_dtype,
                              const int64_t *labels, const float *count_in,
                              float *loss, int64_t T, int64_t V,
                              int64_t ignore_index) {
  // The same per-row pieces as the vocabulary-parallel path, one row at a
  // time, so a split run differs from this only in the order of the sumexp
  // additions. A bf16 / f16 row is widened first (WidenedRows).
  WidenedRows rows(logits, logits_dtype, V);
  double acc = 0.0;
  int64_t count = 0;
  for (int64_t t = 0; t < T; ++t) {
    if (labels[t] == ignore_index)
      continue;
    const float *row = rows.row(t);
    float m = rowMax(row, V);
    float s = rowSumExp(row, m, V);
    float l = labelLogit(row, labels[t], V, 0, ignore_index);
    acc += std::log(double(s)) + double(m) - double(l);
    ++count;
  }
  *loss = meanOver(acc, count_in ? double(*count_in) : double(count));
}

void sprt_label_count_f32(const int64_t *labels, float *count, int64_t T,
                          int64_t ignore_index) {
  int64_t n = 0;
  for (int64_t t = 0; t < T; ++t)
    n += labels[t] != ignore_index;
  *count = float(n);
}

} // extern "C"
