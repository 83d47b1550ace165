//===- TypedAttention.cu - attention on stored dtypes (CUDA) --------------===//
//
// sprt_attention_typed and sprt_attention_grad_typed, and their variants
// with saved statistics (_lse_typed; sprt/kernels.h, sprt/grad_kernels.h).
// On the cuDNN path (sprt_attention_select chose it for this program's
// bf16 / f16) cuDNN reads q, k, v, dout (and the saved out) and writes out,
// dq, dk and dv as stored; only rotary staging copies remain. Else, or
// where cuDNN refuses the shape, the tensors are widened into f32 scratch
// around the f32 kernels and the results rounded once into place: the f32
// kernel between conversions, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "CudnnAttention.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

size_t f32Bytes(int64_t n) { return size_t(n) * sizeof(float); }

/// `p` (n elements of dtype) widened into the f32 scratch `slot`.
const float *widened(const void *p, int32_t dtype, int64_t n, Scratch slot) {
  auto *wide = static_cast<float *>(scratch(slot, f32Bytes(n)));
  sprt_convert(p, dtype, wide, SPRT_DTYPE_F32, n);
  return wide;
}

} // namespace

extern "C" void
sprt_attention_typed(const void *q, const void *k, const void *v,
                     const int64_t *positions, void *out, int64_t Sq,
                     int64_t Sk, int64_t q_offset, int64_t B, int64_t heads,
                     int64_t kv_heads, int64_t head_dim, int32_t causal,
                     int32_t document_causal, int64_t rotary_dim, double theta,
                     double dropout_rate, uint64_t seed, uint64_t stream,
                     int64_t global_batch, int64_t batch_offset,
                     int64_t global_heads, int64_t head_offset, int32_t dtype) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call = sequenceCall(
      q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
      causal, document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, head_offset, /*stored=*/true);
  if (cudnnAttentionStored(call, out, dtype))
    return;
  const int64_t qN = Sq * B * heads * head_dim,
                kvN = Sk * B * kv_heads * head_dim;
  auto *out32 =
      static_cast<float *>(scratch(Scratch::AttentionOut, f32Bytes(qN)));
  sprt_attention_f32(widened(q, dtype, qN, Scratch::AttentionQ),
                     widened(k, dtype, kvN, Scratch::AttentionK),
                     widened(v, dtype, kvN, Scratch::AttentionV), positions,
                     out32, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
                     causal, document_causal, rotary_dim, theta, dropout_rate,
                     seed, stream, global_batch, batch_offset, global_heads,
                     head_offset);
  sprt_convert(out32, SPRT_DTYPE_F32, out, dtype, qN);
}

extern "C" void sprt_attention_grad_typed(
    const void *dout, const void *q, const void *k, const void *v,
    const int64_t *positions, void *dq, void *dk, void *dv, int64_t Sq,
    int64_t Sk, int64_t q_offset, int64_t B, int64_t heads, int64_t kv_heads,
    int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t global_batch, int64_t batch_offset,
    int64_t global_heads, int64_t head_offset, int32_t dtype) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call = sequenceCall(
      q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
      causal, document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, head_offset, /*stored=*/true);
  if (cudnnAttentionGradStored(call, dout, dq, dk, dv, dtype))
    return;
  const int64_t qN = Sq * B * heads * head_dim,
                kvN = Sk * B * kv_heads * head_dim;
  auto *dq32 =
      static_cast<float *>(scratch(Scratch::AttentionDQ, f32Bytes(qN)));
  auto *dk32 =
      static_cast<float *>(scratch(Scratch::AttentionDK, f32Bytes(kvN)));
  auto *dv32 =
      static_cast<float *>(scratch(Scratch::AttentionDV, f32Bytes(kvN)));
  sprt_attention_grad_f32(
      widened(dout, dtype, qN, Scratch::AttentionDOut),
      widened(q, dtype, qN, Scratch::AttentionQ),
      widened(k, dtype, kvN, Scratch::AttentionK),
      widened(v, dtype, kvN, Scratch::AttentionV), positions, dq32, dk32, dv32,
      Sq, Sk, q_offset, B, heads, kv_heads, head_dim, causal, document_causal,
      rotary_dim, theta, dropout_rate, seed, stream, global_batch, batch_offset,
      global_heads, head_offset, /*accumulate_dkv=*/0);
  sprt_convert(dq32, SPRT_DTYPE_F32, dq, dtype, qN);
  sprt_convert(dk32, SPRT_DTYPE_F32, dk, dtype, kvN);
  sprt_convert(dv32, SPRT_DTYPE_F32, dv, dtype, kvN);
}

extern "C" void sprt_attention_lse_typed(
    const void *q, const void *k, const void *v, const int64_t *positions,
    void *out, float *lse, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset,
    int32_t dtype) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call = sequenceCall(
      q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
      causal, document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, head_offset, /*stored=*/true);
  if (cudnnAttentionStoredLse(call, out, lse, dtype))
    return;
  const int64_t qN = Sq * B * heads * head_dim,
                kvN = Sk * B * kv_heads * head_dim;
  auto *out32 =
      static_cast<float *>(scratch(Scratch::AttentionOut, f32Bytes(qN)));
  sprt_attention_lse_f32(widened(q, dtype, qN, Scratch::AttentionQ),
                         widened(k, dtype, kvN, Scratch::AttentionK),
                         widened(v, dtype, kvN, Scratch::AttentionV), positions,
                         out32, lse, Sq, Sk, q_offset, B, heads, kv_heads,
                         head_dim, causal, document_causal, rotary_dim, theta,
                         dropout_rate, seed, stream, global_batch, batch_offset,
                         global_heads, head_offset);
  sprt_convert(out32, SPRT_DTYPE_F32, out, dtype, qN);
}

extern "C" void sprt_attention_grad_lse_typed(
    const void *dout, const void *q, const void *k, const void *v,
    const int64_t *positions, const void *out, const float *lse, void *dq,
    void *dk, void *dv, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset,
    int32_t dtype) {
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call = sequenceCall(
      q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
      causal, document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, head_offset, /*stored=*/true);
  if (cudnnAttentionGradStoredLse(call, dout, out, lse, dq, dk, dv, dtype))
    return;
  const int64_t qN = Sq * B * heads * head_dim,
                kvN = Sk * B * kv_heads * head_dim;
  auto *dq32 =
      static_cast<float *>(scratch(Scratch::AttentionDQ, f32Bytes(qN)));
  auto *dk32 =
      static_cast<float *>(scratch(Scratch::AttentionDK, f32Bytes(kvN)));
  auto *dv32 =
      static_cast<float *>(scratch(Scratch::AttentionDV, f32Bytes(kvN)));
  sprt_attention_grad_lse_f32(
      widened(dout, dtype, qN, Scratch::AttentionDOut),
      widened(q, dtype, qN, Scratch::AttentionQ),
      widened(k, dtype, kvN, Scratch::AttentionK),
      widened(v, dtype, kvN, Scratch::AttentionV), positions,
      widened(out, dtype, qN, Scratch::AttentionOut), lse, dq32, dk32, dv32, Sq,
      Sk, q_offset, B, heads, kv_heads, head_dim, causal, document_causal,
      rotary_dim, theta, dropout_rate, seed, stream, global_batch, batch_offset,
      global_heads, head_offset, /*accumulate_dkv=*/0);
  sprt_convert(dq32, SPRT_DTYPE_F32, dq, dtype, qN);
  sprt_convert(dk32, SPRT_DTYPE_F32, dk, dtype, kvN);
  sprt_convert(dv32, SPRT_DTYPE_F32, dv, dtype, kvN);
}
