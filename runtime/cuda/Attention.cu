//===- Attention.cu - CUDA fused scaled dot-product attention -------------===//
//
// sprt_attention_f32: grid (query tiles of kWarps rows, heads, batch); each
// warp runs the online softmax of its query row over key tiles streamed
// through shared memory (AttentionCommon.cuh) and writes its output row.
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

__global__ void __launch_bounds__(kWarps * 32)
    attentionForward(const AttnParams p, float *__restrict__ out) {
  extern __shared__ float smem[];
  float acc[kChunks], m, l;
  const int64_t i = forwardRow(p, smem, acc, m, l);
  if (i >= p.Sq)
    return;
  const int64_t D = p.D, h = blockIdx.y;
  const int lane = threadIdx.x & 31;
  const float inv = 1.0f / l;
  float *o = out + ((i * p.B + blockIdx.z) * p.heads + h) * D;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int64_t d = lane + 32 * c;
    if (d < D)
      o[d] = acc[c] * inv;
  }
}

} // namespace

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
  const AttnParams p = makeAttnParams(
      q, k, v, nullptr, positions, Sq, Sk, q_offset, B, heads, kv_heads,
      head_dim, causal, document_causal, rotary_dim, theta, dropout_rate, seed,
      stream, batch_offset, global_heads, head_offset, "sprt_attention_f32");
  const size_t smem = forwardRowSharedBytes(head_dim);
  allowSharedMemory(reinterpret_cast<const void *>(&attentionForward), smem,
                    "sprt_attention_f32: shared memory");
  const dim3 grid(unsigned((Sq + kWarps - 1) / kWarps), unsigned(heads),
                  unsigned(B));
  attentionForward<<<grid, kWarps * 32, smem, sprt::cuda::stream()>>>(p, out);
  SPRT_CUDA_CHECK_LAUNCH("attentionForward");
}
