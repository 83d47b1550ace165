//===- Attention.cu - CUDA fused scaled dot-product attention -------------===//
//
// sprt_attention_f32 and sprt_attention_lse_f32: grid (query tiles of
// kWarps rows, heads, batch); each warp runs the online softmax of its query
// row over key tiles streamed through shared memory (AttentionCommon.cuh)
// and writes its output row (and m + log(l), the row's log-sum-exp).
// Under a causal mask a block stops at its last row's keys; a
// document-causal mask also hides the keys before each row's document.
//
//===----------------------------------------------------------------------===//

#include "AttentionCommon.cuh"
#include "CudnnAttention.h"
#include "sprt/device.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace sprt::cuda {

AttnParams makeAttnParams(const float *q, const float *k, const float *v,
                          const float *dout, const int64_t *positions,
                          int64_t Sq, int64_t Sk, int64_t qOffset, int64_t B,
                          int64_t heads, int64_t kvHeads, int64_t headDim,
                          int32_t causal, int32_t documentCausal,
                          int64_t rotaryDim, double theta, double rate,
                          uint64_t seed, uint64_t stream, int64_t batchOffset,
                          int64_t globalHeads, int64_t headOffset,
                          const char *what) {
  auto fail = [&](const std::string &msg) {
    throw std::runtime_error(std::string("sprt cuda backend: ") + what + ": " +
                             msg);
  };
  if (headDim > kMaxHeadDim)
    fail("head_dim " + std::to_string(headDim) + " > " +
         std::to_string(kMaxHeadDim));
  if (heads > 65535 || B > 65535)
    fail("more than 65535 heads or batch rows");
  if ((Sk + kWarps - 1) / kWarps > int64_t(0x7fffffff))
    fail("sequence too long");
  if (qOffset < 0 || qOffset + Sq > Sk)
    fail("query rows [" + std::to_string(qOffset) + ", " +
         std::to_string(qOffset + Sq) + ") outside the " + std::to_string(Sk) +
         " key rows");
  AttnParams p{};
  p.q = q;
  p.k = k;
  p.v = v;
  p.dout = dout;
  p.positions = positions;
  p.S = Sk;
  p.Sq = Sq;
  p.qOffset = qOffset;
  p.B = B;
  p.heads = heads;
  p.kvHeads = kvHeads;
  p.D = headDim;
  p.group = heads / kvHeads;
  p.causal = causal;
  p.documentCausal = documentCausal;
  // As runtime/cpu/AttentionPanels.h: rotary_dim clamped to [0, head_dim],
  // inv_freq[i] = 1 / theta^(float(2i) / rotary_dim) in float.
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
  p.globalHeads = globalHeads;
  p.batchOffset = batchOffset;
  p.headOffset = headOffset;
  return p;
}

void allowSharedMemory(const void *kernel, size_t bytes, const char *what) {
  if (bytes <= 48 * 1024)
    return;
  check(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
        what);
}

} // namespace sprt::cuda

using namespace sprt::cuda;

namespace {

// Writes out and, when lse is not null, m + log(l) of the row's online
// softmax (the statistics of sprt_attention_lse_f32).
__global__ void __launch_bounds__(kWarps * 32)
    attentionForward(const AttnParams p, float *__restrict__ out,
                     float *__restrict__ lse) {
  extern __shared__ float smem[];
  float acc[kChunks], m, l;
  const int64_t i = forwardRow(p, smem, acc, m, l);
  if (i >= p.Sq)
    return;
  const int64_t D = p.D, h = blockIdx.y;
  const int lane = threadIdx.x & 31;
  const float inv = 1.0f / l;
  const int64_t row = (i * p.B + blockIdx.z) * p.heads + h;
  if (lse && lane == 0)
    lse[row] = l > 0.0f ? m + logf(l) : -INFINITY;
  float *o = out + row * D;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int64_t d = lane + 32 * c;
    if (d < D)
      o[d] = acc[c] * inv;
  }
}

} // namespace

/// The native forward (out, and lse when not null).
static void forward(const AttnParams &p, float *out, float *lse,
                    const char *what) {
  const size_t smem = forwardRowSharedBytes(p.D);
  allowSharedMemory(reinterpret_cast<const void *>(&attentionForward), smem,
                    what);
  const dim3 grid(unsigned((p.Sq + kWarps - 1) / kWarps), unsigned(p.heads),
                  unsigned(p.B));
  attentionForward<<<grid, kWarps * 32, smem, sprt::cuda::stream()>>>(p, out,
                                                                      lse);
  SPRT_CUDA_CHECK_LAUNCH("attentionForward");
}

extern "C" void sprt_attention_f32(
    const float *q, const float *k, const float *v, const int64_t *positions,
    float *out, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset) {
  (void)global_batch; // The global index only needs the heads extent.
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call =
      sequenceCall(q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads,
                   head_dim, causal, document_causal, rotary_dim, theta,
                   dropout_rate, seed, stream, batch_offset, head_offset);
  if (cudnnAttention(call, out))
    return;
  forward(makeAttnParams(q, k, v, nullptr, positions, Sq, Sk, q_offset, B,
                         heads, kv_heads, head_dim, causal, document_causal,
                         rotary_dim, theta, dropout_rate, seed, stream,
                         batch_offset, global_heads, head_offset,
                         "sprt_attention_f32"),
          out, nullptr, "sprt_attention_f32: shared memory");
}

extern "C" void sprt_attention_lse_f32(
    const float *q, const float *k, const float *v, const int64_t *positions,
    float *out, float *lse, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset) {
  (void)global_batch;
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  // On cuDNN: a block over all the keys, its statistics written (not
  // merged).
  const AttnCall call =
      sequenceCall(q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads,
                   head_dim, causal, document_causal, rotary_dim, theta,
                   dropout_rate, seed, stream, batch_offset, head_offset);
  if (cudnnAttentionBlock(call, out, lse, /*accumulate=*/false))
    return;
  forward(makeAttnParams(q, k, v, nullptr, positions, Sq, Sk, q_offset, B,
                         heads, kv_heads, head_dim, causal, document_causal,
                         rotary_dim, theta, dropout_rate, seed, stream,
                         batch_offset, global_heads, head_offset,
                         "sprt_attention_lse_f32"),
          out, lse, "sprt_attention_lse_f32: shared memory");
}
