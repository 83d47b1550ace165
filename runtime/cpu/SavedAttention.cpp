//===- SavedAttention.cpp - attention with saved statistics (CPU) ---------===//
//
// sprt_attention_grad_lse_f32 (sprt/grad_kernels.h): the ring-attention
// block backward over the whole key sequence (AttentionBlock.cpp), which
// reads the forward's output and log-sum-exp statistics already. The
// forward, sprt_attention_lse_f32, is Attention.cpp's kernel.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cstdint>

extern "C" void sprt_attention_grad_lse_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, const float *out, const float *lse, float *dq,
    float *dk, float *dv, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset,
    int32_t accumulate_dkv) {
  (void)global_batch;
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  // The block kernel adds its contributions.
  std::fill_n(dq, Sq * B * heads * head_dim, 0.0f);
  if (!accumulate_dkv) {
    std::fill_n(dk, Sk * B * kv_heads * head_dim, 0.0f);
    std::fill_n(dv, Sk * B * kv_heads * head_dim, 0.0f);
  }
  sprt_attention_block_grad_f32(
      dout, q, k, v, positions ? positions + q_offset * B : nullptr, positions,
      out, lse, dq, dk, dv, Sq, Sk, q_offset, /*k_offset=*/0, /*L=*/Sk, B,
      heads, kv_heads, head_dim, causal, document_causal, rotary_dim, theta,
      dropout_rate, seed, stream, batch_offset, global_heads, head_offset);
}
