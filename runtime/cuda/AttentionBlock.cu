//===- AttentionBlock.cu - CUDA ring-attention block steps ----------------===//
//
// sprt_attention_block_f32 / sprt_attention_block_grad_f32 (contract in
// sprt/kernels.h, sprt/grad_kernels.h; the CPU version is
// runtime/cpu/AttentionBlock.cpp). A direct first version: one thread per
// (query row, batch row, head) loops over the block's visible keys (two
// passes: the row maximum and sum, then the probabilities times V) and
// merges by log-sum-exp; the backward's thread adds its row's dq and its
// contributions to dk, dv with atomicAdd (the order of those additions is
// not fixed). Rotary angles: pos * inv_freq[i] with inv_freq computed on the
// host in float, as the other attention kernels.
//
//===----------------------------------------------------------------------===//

#include "AttentionCommon.cuh"
#include "Common.cuh"
#include "CudnnAttention.h"
#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/philox.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

using namespace sprt::cuda;

namespace {

struct BlockParams {
  const float *q, *k, *v, *dout, *out, *lse;
  const int64_t *qPos, *kPos;
  int64_t Sq, Sk, qOffset, kOffset, L, B, heads, kvHeads, D, group;
  int32_t causal, documentCausal, half, dropout, accumulate;
  float scale, keepScale;
  double rate;
  uint64_t seed, stream;
  // The step's dropout salt (sprt_step_values), XORed into seed on the
  // device.
  const uint64_t *salt;
  int64_t batchOffset, globalHeads, headOffset;
  float invFreq[kMaxHalf];
};

BlockParams makeParams(int64_t Sq, int64_t Sk, int64_t qOffset, int64_t kOffset,
                       int64_t L, int64_t B, int64_t heads, int64_t kvHeads,
                       int64_t headDim, int32_t causal, int32_t documentCausal,
                       int64_t rotaryDim, double theta, double rate,
                       uint64_t seed, uint64_t stream, int64_t batchOffset,
                       int64_t globalHeads, int64_t headOffset,
                       const char *what) {
  if (headDim > kMaxHeadDim)
    throw std::runtime_error(std::string("sprt cuda backend: ") + what +
                             ": head_dim " + std::to_string(headDim) + " > " +
                             std::to_string(kMaxHeadDim));
  BlockParams p{};
  p.Sq = Sq;
  p.Sk = Sk;
  p.qOffset = qOffset;
  p.kOffset = kOffset;
  p.L = L;
  p.B = B;
  p.heads = heads;
  p.kvHeads = kvHeads;
  p.D = headDim;
  p.group = heads / kvHeads;
  p.causal = causal;
  p.documentCausal = documentCausal;
  const int64_t rd = std::min(std::max<int64_t>(rotaryDim, 0), headDim);
  p.half = int32_t(rd / 2);
  for (int64_t i = 0; i < p.half; ++i)
    p.invFreq[i] = 1.0f / std::pow(float(theta), float(2 * i) / float(rd));
  p.scale = float(1.0 / std::sqrt(double(headDim)));
  p.keepScale = rate < 1.0 ? float(1.0 / (1.0 - rate)) : 0.0f;
  p.dropout = rate > 0.0;
  p.rate = rate;
  p.seed = seed;
  p.salt = &sprt_step_values_device()->dropout_salt;
  p.stream = stream;
  p.batchOffset = batchOffset;
  p.globalHeads = globalHeads;
  p.headOffset = headOffset;
  return p;
}

/// Feature d of a row x of head_dim features, rotated by position pos.
__device__ inline float rotated(const BlockParams &p, const float *x, int64_t d,
                                float pos) {
  if (d >= 2 * p.half)
    return x[d];
  const int64_t i = d < p.half ? d : d - p.half;
  const float a = pos * p.invFreq[i];
  const float c = cosf(a), s = sinf(a);
  return d < p.half ? x[d] * c + (-x[d + p.half]) * s
                    : x[d] * c + x[d - p.half] * s;
}

__device__ inline float qPosition(const BlockParams &p, int64_t i, int64_t b) {
  return float(p.qPos ? p.qPos[i * p.B + b] : p.qOffset + i);
}
__device__ inline float kPosition(const BlockParams &p, int64_t j, int64_t b) {
  return float(p.kPos ? p.kPos[j * p.B + b] : p.kOffset + j);
}

/// The block's local keys [first, last) query row i sees.
__device__ inline void visible(const BlockParams &p, int64_t i, int64_t b,
                               int64_t &first, int64_t &last) {
  const int64_t gi = p.qOffset + i;
  first = 0;
  if (p.documentCausal && p.qPos) {
    const int64_t pos = p.qPos[i * p.B + b];
    if (pos >= 0 && pos <= gi)
      first = gi - pos;
  }
  last = p.causal ? gi + 1 : p.kOffset + p.Sk;
  first = max(first, p.kOffset) - p.kOffset;
  last = min(last, p.kOffset + p.Sk) - p.kOffset;
}

__device__ inline bool keep(const BlockParams &p, int64_t b, int64_t h,
                            int64_t i, int64_t j) {
  if (!p.dropout)
    return true;
  const uint64_t index = uint64_t(
      ((b + p.batchOffset) * p.globalHeads + h + p.headOffset) * p.L * p.L +
      (p.qOffset + i) * p.L + p.kOffset + j);
  return sprt::philox::dropoutKeep(p.seed ^ *p.salt, p.stream, index, p.rate);
}

__device__ inline float score(const BlockParams &p, const float *qr,
                              const float *kRow, float kPos) {
  float dot = 0.0f;
  for (int64_t d = 0; d < p.D; ++d)
    dot += qr[d] * rotated(p, kRow, d, kPos);
  return dot * p.scale;
}

__global__ void blockForward(const BlockParams p, float *out, float *lse) {
  SPRT_FOR_EACH(e, p.Sq * p.B * p.heads) {
    const int64_t h = e % p.heads, b = (e / p.heads) % p.B,
                  i = e / (p.heads * p.B);
    const int64_t g = h / p.group;
    float *o = out + e * p.D;
    int64_t first, last;
    visible(p, i, b, first, last);
    if (first >= last) {
      if (!p.accumulate) {
        for (int64_t d = 0; d < p.D; ++d)
          o[d] = 0.0f;
        lse[e] = -INFINITY;
      }
      continue;
    }
    float qr[kMaxHeadDim], acc[kMaxHeadDim];
    const float *qRow = p.q + e * p.D;
    const float qp = qPosition(p, i, b);
    for (int64_t d = 0; d < p.D; ++d) {
      qr[d] = rotated(p, qRow, d, qp);
      acc[d] = 0.0f;
    }
    float m = -INFINITY;
    for (int64_t j = first; j < last; ++j)
      m = fmaxf(m, score(p, qr, p.k + ((j * p.B + b) * p.kvHeads + g) * p.D,
                         kPosition(p, j, b)));
    double sum = 0.0;
    for (int64_t j = first; j < last; ++j)
      sum +=
          double(expf(score(p, qr, p.k + ((j * p.B + b) * p.kvHeads + g) * p.D,
                            kPosition(p, j, b)) -
                      m));
    const float inv = float(1.0 / sum);
    for (int64_t j = first; j < last; ++j) {
      const float *kRow = p.k + ((j * p.B + b) * p.kvHeads + g) * p.D;
      const float *vRow = p.v + ((j * p.B + b) * p.kvHeads + g) * p.D;
      float pr = expf(score(p, qr, kRow, kPosition(p, j, b)) - m) * inv;
      pr = keep(p, b, h, i, j) ? (p.dropout ? pr * p.keepScale : pr) : 0.0f;
      for (int64_t d = 0; d < p.D; ++d)
        acc[d] += pr * vRow[d];
    }
    const float blockLse = m + float(log(sum));
    if (!p.accumulate || lse[e] == -INFINITY) {
      for (int64_t d = 0; d < p.D; ++d)
        o[d] = acc[d];
      lse[e] = blockLse;
      continue;
    }
    const double a = lse[e], c = blockLse, mx = fmax(a, c);
    const double merged = mx + log(exp(a - mx) + exp(c - mx));
    const double wOld = exp(a - merged), wNew = exp(c - merged);
    for (int64_t d = 0; d < p.D; ++d)
      o[d] = float(double(o[d]) * wOld + double(acc[d]) * wNew);
    lse[e] = float(merged);
  }
}

__global__ void blockBackward(const BlockParams p, float *dq, float *dk,
                              float *dv) {
  SPRT_FOR_EACH(e, p.Sq * p.B * p.heads) {
    const int64_t h = e % p.heads, b = (e / p.heads) % p.B,
                  i = e / (p.heads * p.B);
    const int64_t g = h / p.group;
    int64_t first, last;
    visible(p, i, b, first, last);
    if (first >= last)
      continue;
    float qr[kMaxHeadDim], dqr[kMaxHeadDim];
    const float *qRow = p.q + e * p.D, *doRow = p.dout + e * p.D,
                *oRow = p.out + e * p.D;
    const float qp = qPosition(p, i, b);
    double rowDot = 0.0;
    for (int64_t d = 0; d < p.D; ++d) {
      qr[d] = rotated(p, qRow, d, qp);
      dqr[d] = 0.0f;
      rowDot += double(doRow[d]) * double(oRow[d]);
    }
    const float rowLse = p.lse[e];
    for (int64_t j = first; j < last; ++j) {
      const int64_t kIdx = ((j * p.B + b) * p.kvHeads + g) * p.D;
      const float *kRow = p.k + kIdx, *vRow = p.v + kIdx;
      const float kp = kPosition(p, j, b);
      const float pr = expf(score(p, qr, kRow, kp) - rowLse);
      const bool kept = keep(p, b, h, i, j);
      const float pd = kept ? (p.dropout ? pr * p.keepScale : pr) : 0.0f;
      float dpd = 0.0f;
      for (int64_t d = 0; d < p.D; ++d) {
        atomicAdd(dv + kIdx + d, pd * doRow[d]);
        dpd += doRow[d] * vRow[d];
      }
      const float dp = kept ? (p.dropout ? dpd * p.keepScale : dpd) : 0.0f;
      const float ds =
          float(double(p.scale) * double(pr) * (double(dp) - rowDot));
      for (int64_t d = 0; d < p.D; ++d)
        dqr[d] += ds * rotated(p, kRow, d, kp);
      // dK_rot_j += ds q_rot, taken back through key j's rotation.
      for (int64_t d = 0; d < p.D; ++d) {
        float grad;
        if (d >= 2 * p.half) {
          grad = ds * qr[d];
        } else {
          const int64_t f = d < p.half ? d : d - p.half;
          const float a = kp * p.invFreq[f], c = cosf(a), s = sinf(a);
          const float g1 = ds * qr[f], g2 = ds * qr[f + p.half];
          grad = d < p.half ? g1 * c + g2 * s : g2 * c - g1 * s;
        }
        atomicAdd(dk + kIdx + d, grad);
      }
    }
    float *dqRow = dq + e * p.D;
    for (int64_t d = 0; d < p.D; ++d) {
      if (d >= 2 * p.half) {
        dqRow[d] += dqr[d];
        continue;
      }
      const int64_t f = d < p.half ? d : d - p.half;
      const float a = qp * p.invFreq[f], c = cosf(a), s = sinf(a);
      const float g1 = dqr[f], g2 = dqr[f + p.half];
      dqRow[d] += d < p.half ? g1 * c + g2 * s : g2 * c - g1 * s;
    }
  }
}

/// Launches `kernel` over n threads on the compute stream (the entry points'
/// `stream` argument is the dropout stream and hides sprt::cuda::stream).
template <typename Kernel, typename... Args>
void launch(Kernel kernel, int64_t n, const char *name, Args... args) {
  if (n <= 0)
    return;
  kernel<<<gridFor(n), kThreads, 0, sprt::cuda::stream()>>>(args...);
  check(cudaGetLastError(), name);
}

} // namespace

extern "C" void sprt_attention_block_f32(
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
  const AttnCall call = blockCall(
      q, k, v, q_positions, k_positions, Sq, Sk, q_offset, k_offset, B, heads,
      kv_heads, head_dim, causal, document_causal, rotary_dim, theta,
      dropout_rate, seed, stream, batch_offset, head_offset);
  if (cudnnAttentionBlock(call, out, lse, accumulate != 0))
    return;
  BlockParams p = makeParams(
      Sq, Sk, q_offset, k_offset, L, B, heads, kv_heads, head_dim, causal,
      document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, global_heads, head_offset, "sprt_attention_block_f32");
  p.q = q;
  p.k = k;
  p.v = v;
  p.qPos = q_positions;
  p.kPos = k_positions;
  p.accumulate = accumulate;
  launch(blockForward, Sq * B * heads, "blockForward", p, out, lse);
}

extern "C" void sprt_attention_block_grad_f32(
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
  const AttnCall call = blockCall(
      q, k, v, q_positions, k_positions, Sq, Sk, q_offset, k_offset, B, heads,
      kv_heads, head_dim, causal, document_causal, rotary_dim, theta,
      dropout_rate, seed, stream, batch_offset, head_offset);
  if (cudnnAttentionBlockGrad(call, dout, out, lse, dq, dk, dv))
    return;
  BlockParams p = makeParams(
      Sq, Sk, q_offset, k_offset, L, B, heads, kv_heads, head_dim, causal,
      document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, global_heads, head_offset, "sprt_attention_block_grad_f32");
  p.q = q;
  p.k = k;
  p.v = v;
  p.dout = dout;
  p.out = out;
  p.lse = lse;
  p.qPos = q_positions;
  p.kPos = k_positions;
  launch(blockBackward, Sq * B * heads, "blockBackward", p, dq, dk, dv);
}
