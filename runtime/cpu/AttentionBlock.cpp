//===- AttentionBlock.cpp - CPU ring-attention block steps ----------------===//
//
// sprt_attention_block_f32 / sprt_attention_block_grad_f32: the per-step
// kernels of ring attention (runtime/core/RingAttention.cpp). A step sees
// this rank's query rows and one block of key rows, both at known global
// rows of the sequence, and applies the one-rank kernel's masks (causal,
// document-causal from the queries' positions), rotary angles (from each
// side's positions) and dropout draws (keyed by the global [B, heads, L, L]
// index). The forward keeps, per query row, the block's log-sum-exp of the
// scaled scores and merges blocks with it (the flash-attention online
// softmax); the backward recomputes the probabilities of a block as
// exp(score - lse) from the whole forward's lse, and with
// D = rowsum(dout * out) (equal to rowsum(dP * P) under dropout too):
//
//   dV_j += Pd_ij dO_i,  dS_ij = P_ij (dP_ij - D_i) / sqrt(head_dim),
//   dQr_i += dS_ij K_rot_j,  dKr_j += dS_ij Q_rot_i
//
// followed by the rotation's transpose. Plain loops (no BLAS): a block is
// a chunk of the sequence; the row sums are kept in double.
//
//===----------------------------------------------------------------------===//

#include "AttentionPanels.h"
#include "DropoutKey.h"
#include "Scratch.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace sprt::cpu;

namespace {

/// The rotary cos/sin of `rows` rows of batch row b: angles from
/// positions [rows, B], or global rows offset.. when positions is NULL.
void fillAngles(const RotaryTables &t, const int64_t *positions, int64_t rows,
                int64_t offset, int64_t B, int64_t b, float *cosT,
                float *sinT) {
  const int64_t half = t.half;
  for (int64_t s = 0; s < rows; ++s) {
    float pos = float(positions ? positions[s * B + b] : offset + s);
    for (int64_t i = 0; i < half; ++i) {
      float a = pos * t.invFreq[size_t(i)];
      cosT[s * half + i] = std::cos(a);
      sinT[s * half + i] = std::sin(a);
    }
  }
}

/// The transpose of gatherHead's rotation, in place (rotation by -angle).
void unrotatePanel(float *g, int64_t S, int64_t headDim, int64_t half,
                   const float *cosT, const float *sinT) {
  for (int64_t s = 0; s < S && half > 0; ++s) {
    float *r = g + s * headDim;
    const float *c = cosT + s * half, *sn = sinT + s * half;
    for (int64_t i = 0; i < half; ++i) {
      float g1 = r[i], g2 = r[i + half];
      r[i] = g1 * c[i] + g2 * sn[i];
      r[i + half] = g2 * c[i] - g1 * sn[i];
    }
  }
}

/// What both directions derive from the arguments.
struct BlockGeometry {
  int64_t Sq, Sk, qOffset, kOffset, B;
  int32_t causal, documentCausal;
  const int64_t *qPositions;

  /// The block's keys query row i (local) sees: [first, last) local key
  /// rows, empty when first >= last.
  std::pair<int64_t, int64_t> visible(int64_t b, int64_t i) const {
    const int64_t gi = qOffset + i;
    int64_t first = 0;
    if (documentCausal && qPositions) {
      const int64_t p = qPositions[i * B + b];
      if (p >= 0 && p <= gi)
        first = gi - p;
    }
    int64_t last = causal ? gi + 1 : kOffset + Sk;
    first = std::max(first, kOffset) - kOffset;
    last = std::min(last, kOffset + Sk) - kOffset;
    return {first, last};
  }
};

/// Copies head h of batch b of a [S, B, n * D] tensor into dst [S, D].
void gatherPlain(const float *src, float *dst, int64_t S, int64_t B, int64_t n,
                 int64_t D, int64_t b, int64_t h) {
  gatherHead(src, dst, S, B, n, D, b, h, 0, nullptr, nullptr);
}

} // namespace

extern "C" {

void sprt_attention_block_f32(
    const float *q, const float *k, const float *v, const int64_t *q_positions,
    const int64_t *k_positions, float *out, float *lse, int64_t Sq, int64_t Sk,
    int64_t q_offset, int64_t k_offset, int64_t L, int64_t B, int64_t heads,
    int64_t kv_heads, int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t batch_offset, int64_t global_heads,
    int64_t head_offset, int32_t accumulate) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const int64_t D = head_dim, group = heads / kv_heads;
  AttentionConstants constants(rotary_dim, head_dim, theta, 0, dropout_rate);
  const RotaryTables &rotary = constants.rotary;
  const int64_t half = rotary.half;
  const float scale = constants.scale, keepScale = constants.keepScale;
  const float negInf = -std::numeric_limits<float>::infinity();
  BlockGeometry geo{Sq, Sk,     q_offset,        k_offset,
                    B,  causal, document_causal, q_positions};

  ScratchVector<float> cosQ(size_t(Sq * half)), sinQ(size_t(Sq * half)),
      cosK(size_t(Sk * half)), sinK(size_t(Sk * half)), qh(size_t(Sq * D)),
      kh(size_t(Sk * D)), vh(size_t(Sk * D)), s(static_cast<size_t>(Sk));
  ScratchVector<double> o(static_cast<size_t>(D));

  for (int64_t b = 0; b < B; ++b) {
    fillAngles(rotary, q_positions, Sq, q_offset, B, b, cosQ.data(),
               sinQ.data());
    fillAngles(rotary, k_positions, Sk, k_offset, B, b, cosK.data(),
               sinK.data());
    for (int64_t g = 0; g < kv_heads; ++g) {
      gatherHead(k, kh.data(), Sk, B, kv_heads, D, b, g, half, cosK.data(),
                 sinK.data());
      gatherPlain(v, vh.data(), Sk, B, kv_heads, D, b, g);
      for (int64_t r = 0; r < group; ++r) {
        const int64_t h = g * group + r;
        gatherHead(q, qh.data(), Sq, B, heads, D, b, h, half, cosQ.data(),
                   sinQ.data());
        const uint64_t headBase = uint64_t(
            ((b + batch_offset) * global_heads + h + head_offset) * L * L);
        for (int64_t i = 0; i < Sq; ++i) {
          float *outRow = out + (i * B + b) * heads * D + h * D;
          float &lseRow = lse[(i * B + b) * heads + h];
          auto [first, last] = geo.visible(b, i);
          if (first >= last) {
            if (!accumulate) {
              std::fill(outRow, outRow + D, 0.0f);
              lseRow = negInf;
            }
            continue;
          }
          const float *qi = qh.data() + i * D;
          float m = negInf;
          for (int64_t j = first; j < last; ++j) {
            const float *kj = kh.data() + j * D;
            float dot = 0.0f;
            for (int64_t d = 0; d < D; ++d)
              dot += qi[d] * kj[d];
            s[j] = dot * scale;
            m = std::max(m, s[j]);
          }
          double sum = 0.0;
          for (int64_t j = first; j < last; ++j) {
            s[j] = std::exp(s[j] - m);
            sum += double(s[j]);
          }
          const float blockLse = m + float(std::log(sum));
          const float inv = float(1.0 / sum);
          std::fill(o.begin(), o.end(), 0.0);
          const int64_t gi = q_offset + i;
          const uint64_t rowBase = headBase + uint64_t(gi * L);
          for (int64_t j = first; j < last; ++j) {
            float p = s[j] * inv;
            if (constants.dropout) {
              bool keep =
                  double(sprt_uniform(sprt::cpu::dropoutKey(seed), stream,
                                      rowBase + uint64_t(k_offset + j))) >=
                  dropout_rate;
              p = keep ? p * keepScale : 0.0f;
            }
            const float *vj = vh.data() + j * D;
            for (int64_t d = 0; d < D; ++d)
              o[d] += double(p) * double(vj[d]);
          }
          if (!accumulate || lseRow == negInf) {
            for (int64_t d = 0; d < D; ++d)
              outRow[d] = float(o[d]);
            lseRow = blockLse;
            continue;
          }
          // Merge by log-sum-exp.
          const double a = lseRow, c = blockLse, mx = std::max(a, c);
          const double merged =
              mx + std::log(std::exp(a - mx) + std::exp(c - mx));
          const double wOld = std::exp(a - merged), wNew = std::exp(c - merged);
          for (int64_t d = 0; d < D; ++d)
            outRow[d] = float(double(outRow[d]) * wOld + o[d] * wNew);
          lseRow = float(merged);
        }
      }
    }
  }
}

void sprt_attention_block_grad_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *q_positions, const int64_t *k_positions, const float *out,
    const float *lse, float *dq, float *dk, float *dv, int64_t Sq, int64_t Sk,
    int64_t q_offset, int64_t k_offset, int64_t L, int64_t B, int64_t heads,
    int64_t kv_heads, int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t batch_offset, int64_t global_heads,
    int64_t head_offset) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const int64_t D = head_dim, group = heads / kv_heads;
  AttentionConstants constants(rotary_dim, head_dim, theta, 0, dropout_rate);
  const RotaryTables &rotary = constants.rotary;
  const int64_t half = rotary.half;
  const float scale = constants.scale, keepScale = constants.keepScale;
  BlockGeometry geo{Sq, Sk,     q_offset,        k_offset,
                    B,  causal, document_causal, q_positions};

  ScratchVector<float> cosQ(size_t(Sq * half)), sinQ(size_t(Sq * half)),
      cosK(size_t(Sk * half)), sinK(size_t(Sk * half)), qh(size_t(Sq * D)),
      kh(size_t(Sk * D)), vh(size_t(Sk * D)), doh(size_t(Sq * D)),
      dqh(size_t(Sq * D)), dkh(size_t(Sk * D)), dvh(size_t(Sk * D));

  for (int64_t b = 0; b < B; ++b) {
    fillAngles(rotary, q_positions, Sq, q_offset, B, b, cosQ.data(),
               sinQ.data());
    fillAngles(rotary, k_positions, Sk, k_offset, B, b, cosK.data(),
               sinK.data());
    for (int64_t g = 0; g < kv_heads; ++g) {
      gatherHead(k, kh.data(), Sk, B, kv_heads, D, b, g, half, cosK.data(),
                 sinK.data());
      gatherPlain(v, vh.data(), Sk, B, kv_heads, D, b, g);
      std::fill(dkh.begin(), dkh.end(), 0.0f);
      std::fill(dvh.begin(), dvh.end(), 0.0f);
      for (int64_t r = 0; r < group; ++r) {
        const int64_t h = g * group + r;
        gatherHead(q, qh.data(), Sq, B, heads, D, b, h, half, cosQ.data(),
                   sinQ.data());
        gatherPlain(dout, doh.data(), Sq, B, heads, D, b, h);
        std::fill(dqh.begin(), dqh.end(), 0.0f);
        const uint64_t headBase = uint64_t(
            ((b + batch_offset) * global_heads + h + head_offset) * L * L);
        for (int64_t i = 0; i < Sq; ++i) {
          auto [first, last] = geo.visible(b, i);
          if (first >= last)
            continue;
          const float rowLse = lse[(i * B + b) * heads + h];
          const float *outRow = out + (i * B + b) * heads * D + h * D;
          const float *qi = qh.data() + i * D, *doi = doh.data() + i * D;
          double rowDot = 0.0;
          for (int64_t d = 0; d < D; ++d)
            rowDot += double(doi[d]) * double(outRow[d]);
          float *dqi = dqh.data() + i * D;
          const uint64_t rowBase = headBase + uint64_t((q_offset + i) * L);
          for (int64_t j = first; j < last; ++j) {
            const float *kj = kh.data() + j * D, *vj = vh.data() + j * D;
            float dot = 0.0f;
            for (int64_t d = 0; d < D; ++d)
              dot += qi[d] * kj[d];
            const float p = std::exp(dot * scale - rowLse);
            bool keep = true;
            if (constants.dropout)
              keep = double(sprt_uniform(sprt::cpu::dropoutKey(seed), stream,
                                         rowBase + uint64_t(k_offset + j))) >=
                     dropout_rate;
            const float pd = keep ? p * keepScale : 0.0f;
            float dpd = 0.0f;
            float *dvj = dvh.data() + j * D;
            for (int64_t d = 0; d < D; ++d) {
              dvj[d] += pd * doi[d];
              dpd += doi[d] * vj[d];
            }
            const float dp =
                constants.dropout ? (keep ? dpd * keepScale : 0.0f) : dpd;
            const float ds =
                float(double(scale) * double(p) * (double(dp) - rowDot));
            float *dkj = dkh.data() + j * D;
            for (int64_t d = 0; d < D; ++d) {
              dqi[d] += ds * kj[d];
              dkj[d] += ds * qi[d];
            }
          }
        }
        unrotatePanel(dqh.data(), Sq, D, half, cosQ.data(), sinQ.data());
        float *dqBase = dq + b * heads * D + h * D;
        for (int64_t i = 0; i < Sq; ++i)
          for (int64_t d = 0; d < D; ++d)
            dqBase[i * B * heads * D + d] += dqh[size_t(i * D + d)];
      }
      unrotatePanel(dkh.data(), Sk, D, half, cosK.data(), sinK.data());
      float *dkBase = dk + b * kv_heads * D + g * D;
      float *dvBase = dv + b * kv_heads * D + g * D;
      for (int64_t j = 0; j < Sk; ++j)
        for (int64_t d = 0; d < D; ++d) {
          dkBase[j * B * kv_heads * D + d] += dkh[size_t(j * D + d)];
          dvBase[j * B * kv_heads * D + d] += dvh[size_t(j * D + d)];
        }
    }
  }
}

} // extern "C"
