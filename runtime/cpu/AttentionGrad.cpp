//===- AttentionGrad.cpp - CPU backward of scaled dot-product attention ---===//
//
// sprt_attention_grad_f32 recomputes what sprt_attention_f32 computed
// (Attention.cpp) with the same arithmetic: the same float rotary tables,
// the same gathered and rotated [S, head_dim] panels, the same 128-row query
// blocks, scores through the same cblas_sgemm call, the same softmax and the
// same dropout draws keyed by the global [B, heads, S, S] index. Then, per
// block of query rows [i0, i0 + rows) and the keys [0, nk) it sees (P the
// probabilities, Pd = P * mask / (1 - rate) the dropped-out ones):
//
//   dV[:nk]  += Pd^T dO                         (cblas_sgemm)
//   dPd       = dO V[:nk]^T                     (cblas_sgemm)
//   dP        = dPd * mask / (1 - rate)
//   dS        = P * (dP - rowsum(dP * P)) / sqrt(head_dim)
//   dQr       = dS K_rot[:nk]                   (cblas_sgemm)
//   dKr[:nk] += dS^T Q_rot                      (cblas_sgemm)
//
// and the rotation's transpose (rotation by -angle) takes dQr, dKr back to
// the unrotated q, k. Memory per head is O(128 S + S head_dim). A call on
// Sq query rows starting at global row q_offset (of the Sk keys) does the
// arithmetic of those rows' blocks; with accumulate_dkv its dk, dv are
// added (in float) to the previous call's.
//
// The kv gradients of the query heads sharing a kv head are summed in
// double in increasing head order and rounded once, exactly as
// sprt_repeat_heads_grad_f32 sums: the GQA gradient equals the MHA gradient
// on repeated k/v reduced by repeat_heads_grad, bitwise. A run on a slice of
// heads or batches (with its offsets) does the arithmetic of that slice of
// the full run, so its dq, and its dk, dv when it holds every query head of
// its kv heads, equal the full run's bitwise.
//
//===----------------------------------------------------------------------===//

#include "AttentionPanels.h"
#include "DropoutKey.h"
#include "Scratch.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace sprt::cpu;

namespace {

// The transpose of gatherHead's rotation, in place on a gradient panel
// g [S, headDim]: the rotation [[c, -s], [s, c]] of (x1, x2) has transpose
// [[c, s], [-s, c]], i.e. the rotation by -angle.
void unrotate(float *g, int64_t S, int64_t headDim, int64_t half,
              const float *cosT, const float *sinT) {
  if (half == 0)
    return;
  for (int64_t s = 0; s < S; ++s) {
    float *r = g + s * headDim;
    const float *c = cosT + s * half, *sn = sinT + s * half;
    for (int64_t i = 0; i < half; ++i) {
      float g1 = r[i], g2 = r[i + half];
      r[i] = g1 * c[i] + g2 * sn[i];
      r[i + half] = g2 * c[i] - g1 * sn[i];
    }
  }
}

// Writes src [S, headDim] into head `h` of batch `b` of a [S, B, nHeads *
// headDim] tensor, rounding to float (added to what is there when
// `accumulate`).
template <typename T>
void scatterHead(const T *src, float *dst, int64_t S, int64_t B, int64_t nHeads,
                 int64_t headDim, int64_t b, int64_t h,
                 bool accumulate = false) {
  const int64_t rowStride = B * nHeads * headDim;
  float *base = dst + b * nHeads * headDim + h * headDim;
  for (int64_t s = 0; s < S; ++s)
    for (int64_t d = 0; d < headDim; ++d) {
      float x = float(src[s * headDim + d]);
      base[s * rowStride + d] = accumulate ? base[s * rowStride + d] + x : x;
    }
}

} // namespace

extern "C" {

void sprt_attention_grad_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, float *dq, float *dk, float *dv, int64_t Sq,
    int64_t Sk, int64_t q_offset, int64_t B, int64_t heads, int64_t kv_heads,
    int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t global_batch, int64_t batch_offset,
    int64_t global_heads, int64_t head_offset, int32_t accumulate_dkv) {
  (void)global_batch; // The global index only needs the heads extent.
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  checkQueryRows("sprt_attention_grad_f32", Sq, Sk, q_offset);
  const int64_t S = Sk;
  const int64_t group = heads / kv_heads;
  const int64_t D = head_dim;

  // Rotary tables, scales and dropout exactly as the forward.
  AttentionConstants constants(rotary_dim, head_dim, theta, S, dropout_rate);
  RotaryTables &rotary = constants.rotary;
  const int64_t half = rotary.half;
  const float *cosT = rotary.cosT.data(), *sinT = rotary.sinT.data();
  const float *cosQ = cosT + q_offset * half, *sinQ = sinT + q_offset * half;
  const float scale = constants.scale, keepScale = constants.keepScale;
  const bool dropout = constants.dropout;

  // Panels of the current (b, kv head) and query head.
  ScratchVector<float> qh(size_t(Sq * D)), kh(size_t(S * D)), vh(size_t(S * D)),
      doh(size_t(Sq * D)), dqh(size_t(Sq * D)), dkh(size_t(S * D)),
      dvh(size_t(S * D));
  ScratchVector<double> dkAcc(size_t(S * D)), dvAcc(size_t(S * D));
  // One block of rows: probabilities, dropped-out probabilities (reused for
  // dS), the gradient w.r.t. the dropped-out probabilities, the keep mask.
  const int64_t rowBlock = std::min(Sq, kRowBlock);
  ScratchVector<float> P(size_t(rowBlock * S)), Pd(size_t(rowBlock * S)),
      dP(size_t(rowBlock * S));
  ScratchVector<uint8_t> keep(dropout ? size_t(rowBlock * S) : 0);

  for (int64_t b = 0; b < B; ++b) {
    rotary.fill(positions, S, B, b);
    for (int64_t g = 0; g < kv_heads; ++g) {
      gatherHead(k, kh.data(), S, B, kv_heads, D, b, g, half, cosT, sinT);
      gatherHead(v, vh.data(), S, B, kv_heads, D, b, g, 0, nullptr, nullptr);
      std::fill(dkAcc.begin(), dkAcc.end(), 0.0);
      std::fill(dvAcc.begin(), dvAcc.end(), 0.0);
      for (int64_t r = 0; r < group; ++r) {
        const int64_t h = g * group + r;
        gatherHead(q, qh.data(), Sq, B, heads, D, b, h, half, cosQ, sinQ);
        gatherHead(dout, doh.data(), Sq, B, heads, D, b, h, 0, nullptr,
                   nullptr);
        std::fill(dkh.begin(), dkh.end(), 0.0f);
        std::fill(dvh.begin(), dvh.end(), 0.0f);
        const uint64_t headBase = uint64_t(
            ((b + batch_offset) * global_heads + h + head_offset) * S * S);

        for (int64_t i0 = 0; i0 < Sq; i0 += rowBlock) {
          const int64_t rows = std::min(rowBlock, Sq - i0);
          const int64_t nk = causal ? q_offset + i0 + rows : S;
          const float *qBlk = qh.data() + i0 * D, *doBlk = doh.data() + i0 * D;

          // The forward's probabilities, then their dropped-out copy.
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blasint(rows),
                      blasint(nk), blasint(D), scale, qBlk, blasint(D),
                      kh.data(), blasint(D), 0.0f, P.data(), blasint(nk));
          for (int64_t r2 = 0; r2 < rows; ++r2) {
            const int64_t i = q_offset + i0 + r2; // the global query row
            float *p = P.data() + r2 * nk, *pd = Pd.data() + r2 * nk;
            const int64_t last = causal ? i + 1 : nk;
            const int64_t first =
                firstVisibleKey(document_causal, positions, B, b, i);
            softmaxRow(p, first, last, nk);
            if (dropout) {
              uint8_t *kp = keep.data() + r2 * nk;
              const uint64_t rowBase = headBase + uint64_t(i * S);
              for (int64_t j = 0; j < first; ++j) {
                kp[j] = 0;
                pd[j] = 0.0f;
              }
              for (int64_t j = first; j < last; ++j) {
                kp[j] =
                    double(sprt_uniform(sprt::cpu::dropoutKey(seed), stream,
                                        rowBase + uint64_t(j))) >= dropout_rate;
                pd[j] = kp[j] ? p[j] * keepScale : 0.0f;
              }
              for (int64_t j = last; j < nk; ++j) {
                kp[j] = 0;
                pd[j] = 0.0f;
              }
            }
          }
          const float *pdUse = dropout ? Pd.data() : P.data();

          // dV[:nk] += Pd^T dO_blk.
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, blasint(nk),
                      blasint(D), blasint(rows), 1.0f, pdUse, blasint(nk),
                      doBlk, blasint(D), 1.0f, dvh.data(), blasint(D));
          // dPd = dO_blk V[:nk]^T.
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blasint(rows),
                      blasint(nk), blasint(D), 1.0f, doBlk, blasint(D),
                      vh.data(), blasint(D), 0.0f, dP.data(), blasint(nk));
          // dS (scaled) into Pd, which is no longer needed.
          float *dS = Pd.data();
          for (int64_t r2 = 0; r2 < rows; ++r2) {
            const int64_t i = q_offset + i0 + r2; // the global query row
            const float *p = P.data() + r2 * nk;
            float *dp = dP.data() + r2 * nk, *ds = dS + r2 * nk;
            const int64_t last = causal ? i + 1 : nk;
            const int64_t first =
                firstVisibleKey(document_causal, positions, B, b, i);
            if (dropout) {
              const uint8_t *kp = keep.data() + r2 * nk;
              for (int64_t j = first; j < last; ++j)
                dp[j] = kp[j] ? dp[j] * keepScale : 0.0f;
            }
            double dot = 0.0;
            for (int64_t j = first; j < last; ++j)
              dot += double(dp[j]) * double(p[j]);
            for (int64_t j = 0; j < first; ++j)
              ds[j] = 0.0f;
            for (int64_t j = first; j < last; ++j)
              ds[j] =
                  float(double(scale) * double(p[j]) * (double(dp[j]) - dot));
            for (int64_t j = last; j < nk; ++j)
              ds[j] = 0.0f;
          }
          // dQr[block] = dS K_rot[:nk]; dKr[:nk] += dS^T Q_rot[block].
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(rows),
                      blasint(D), blasint(nk), 1.0f, dS, blasint(nk), kh.data(),
                      blasint(D), 0.0f, dqh.data() + i0 * D, blasint(D));
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, blasint(nk),
                      blasint(D), blasint(rows), 1.0f, dS, blasint(nk), qBlk,
                      blasint(D), 1.0f, dkh.data(), blasint(D));
        }

        unrotate(dqh.data(), Sq, D, half, cosQ, sinQ);
        scatterHead(dqh.data(), dq, Sq, B, heads, D, b, h);
        unrotate(dkh.data(), S, D, half, cosT, sinT);
        for (int64_t e = 0; e < S * D; ++e) {
          dkAcc[e] += double(dkh[e]);
          dvAcc[e] += double(dvh[e]);
        }
      }
      scatterHead(dkAcc.data(), dk, S, B, kv_heads, D, b, g, accumulate_dkv);
      scatterHead(dvAcc.data(), dv, S, B, kv_heads, D, b, g, accumulate_dkv);
    }
  }
}

} // extern "C"
