//===- Attention.cpp - CPU scaled dot-product attention -------------------===//
//
// sprt_attention_f32 (and sprt_attention_lse_f32, which also writes each
// row's log-sum-exp): per (batch, query head), the head's q rows (Sq of
// them, global rows q_offset..) and k, v rows (Sk) are gathered from the
// [rows, B, heads * head_dim] activations into contiguous [rows, head_dim]
// panels (applying rotary embeddings on the way), then query rows are
// processed in blocks: scores = q k^T (cblas_sgemm), masked softmax with
// dropout in place, out = P v (cblas_sgemm, written straight into the
// strided output). Under a causal mask a block of global query rows
// [i0, i1) only needs keys [0, i1), so the upper triangle is neither
// computed nor stored. Under a document-causal mask (packed documents) row
// i also drops the keys before its document's start, i - positions[i].
//
// Numerics follow Hugging Face's eager attention in f32: inv_freq, the
// rotary angles and their cos/sin are computed in float, scores are scaled
// by 1/sqrt(head_dim), softmax subtracts the row maximum.
//
//===----------------------------------------------------------------------===//

#include "AttentionPanels.h"
#include "DropoutKey.h"
#include "Scratch.h"
#include "sprt/kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace sprt::cpu;

extern "C" {

const char *sprt_attention_select(int32_t, const char *request) {
  const char *req = request ? request : "";
  return std::strcmp(req, "cudnn") == 0
             ? "native (the cpu backend has no cuDNN)"
             : "native (the cpu backend's kernels)";
}

// One kernel, no plans, scratch taken per call: nothing to ready.
void sprt_attention_prepare(int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int64_t, int32_t, int32_t, double,
                            int32_t) {}

} // extern "C"

/// sprt_attention_f32, and with `lse` not null sprt_attention_lse_f32: each
/// row's log-sum-exp from its softmax, the output the same bits either way.
static void attention(const char *what, const float *q, const float *k,
                      const float *v, const int64_t *positions, float *out,
                      float *lse, int64_t Sq, int64_t Sk, int64_t q_offset,
                      int64_t B, int64_t heads, int64_t kv_heads,
                      int64_t head_dim, int32_t causal, int32_t document_causal,
                      int64_t rotary_dim, double theta, double dropout_rate,
                      uint64_t seed, uint64_t stream, int64_t batch_offset,
                      int64_t global_heads, int64_t head_offset) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  checkQueryRows(what, Sq, Sk, q_offset);
  const int64_t group = heads / kv_heads;
  const int64_t outStride = B * heads * head_dim;

  AttentionConstants constants(rotary_dim, head_dim, theta, Sk, dropout_rate);
  RotaryTables &rotary = constants.rotary;
  const int64_t half = rotary.half;
  const float *cosT = rotary.cosT.data(), *sinT = rotary.sinT.data();
  // The query rows' angles: rows q_offset.. of the key tables.
  const float *cosQ = cosT + q_offset * half, *sinQ = sinT + q_offset * half;
  const float scale = constants.scale, keepScale = constants.keepScale;
  const bool dropout = constants.dropout;

  ScratchVector<float> qh(size_t(Sq * head_dim)), kh(size_t(Sk * head_dim)),
      vh(size_t(Sk * head_dim));
  const int64_t rowBlock = std::min(Sq, kRowBlock);
  ScratchVector<float> P(size_t(rowBlock * Sk));

  for (int64_t b = 0; b < B; ++b) {
    rotary.fill(positions, Sk, B, b);
    for (int64_t g = 0; g < kv_heads; ++g) {
      gatherHead(k, kh.data(), Sk, B, kv_heads, head_dim, b, g, half, cosT,
                 sinT);
      gatherHead(v, vh.data(), Sk, B, kv_heads, head_dim, b, g, 0, nullptr,
                 nullptr);
      for (int64_t r = 0; r < group; ++r) {
        const int64_t h = g * group + r;
        gatherHead(q, qh.data(), Sq, B, heads, head_dim, b, h, half, cosQ,
                   sinQ);
        const uint64_t headBase = uint64_t(
            ((b + batch_offset) * global_heads + h + head_offset) * Sk * Sk);
        float *outHead = out + b * heads * head_dim + h * head_dim;

        for (int64_t i0 = 0; i0 < Sq; i0 += rowBlock) {
          const int64_t rows = std::min(rowBlock, Sq - i0);
          // Keys this block can see: all of them, or [0, q_offset + i0 +
          // rows).
          const int64_t nk = causal ? q_offset + i0 + rows : Sk;
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blasint(rows),
                      blasint(nk), blasint(head_dim), scale,
                      qh.data() + i0 * head_dim, blasint(head_dim), kh.data(),
                      blasint(head_dim), 0.0f, P.data(), blasint(nk));
          for (int64_t r2 = 0; r2 < rows; ++r2) {
            const int64_t i = q_offset + i0 + r2; // the global query row
            float *p = P.data() + r2 * nk;
            // Visible keys [first, last).
            const int64_t last = causal ? i + 1 : nk;
            const int64_t first =
                firstVisibleKey(document_causal, positions, B, b, i);
            const float rowLse = softmaxRow(p, first, last, nk);
            if (lse)
              lse[((i0 + r2) * B + b) * heads + h] = rowLse;
            if (dropout) {
              // Masked probabilities are zero either way; only visible keys
              // need a draw.
              const uint64_t rowBase = headBase + uint64_t(i * Sk);
              for (int64_t j = first; j < last; ++j) {
                bool keep =
                    double(sprt_uniform(sprt::cpu::dropoutKey(seed), stream,
                                        rowBase + uint64_t(j))) >= dropout_rate;
                p[j] = keep ? p[j] * keepScale : 0.0f;
              }
            }
          }
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(rows),
                      blasint(head_dim), blasint(nk), 1.0f, P.data(),
                      blasint(nk), vh.data(), blasint(head_dim), 0.0f,
                      outHead + i0 * outStride, blasint(outStride));
        }
      }
    }
  }
}

extern "C" {

void sprt_attention_f32(const float *q, const float *k, const float *v,
                        const int64_t *positions, float *out, int64_t Sq,
                        int64_t Sk, int64_t q_offset, int64_t B, int64_t heads,
                        int64_t kv_heads, int64_t head_dim, int32_t causal,
                        int32_t document_causal, int64_t rotary_dim,
                        double theta, double dropout_rate, uint64_t seed,
                        uint64_t stream, int64_t global_batch,
                        int64_t batch_offset, int64_t global_heads,
                        int64_t head_offset) {
  (void)global_batch; // The global index only needs the heads extent.
  attention("sprt_attention_f32", q, k, v, positions, out, nullptr, Sq, Sk,
            q_offset, B, heads, kv_heads, head_dim, causal, document_causal,
            rotary_dim, theta, dropout_rate, seed, stream, batch_offset,
            global_heads, head_offset);
}

void sprt_attention_lse_f32(const float *q, const float *k, const float *v,
                            const int64_t *positions, float *out, float *lse,
                            int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
                            int64_t heads, int64_t kv_heads, int64_t head_dim,
                            int32_t causal, int32_t document_causal,
                            int64_t rotary_dim, double theta,
                            double dropout_rate, uint64_t seed, uint64_t stream,
                            int64_t global_batch, int64_t batch_offset,
                            int64_t global_heads, int64_t head_offset) {
  (void)global_batch;
  attention("sprt_attention_lse_f32", q, k, v, positions, out, lse, Sq, Sk,
            q_offset, B, heads, kv_heads, head_dim, causal, document_causal,
            rotary_dim, theta, dropout_rate, seed, stream, batch_offset,
            global_heads, head_offset);
}

} // extern "C"
