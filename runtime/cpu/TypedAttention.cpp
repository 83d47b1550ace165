//===- TypedAttention.cpp - attention on stored dtypes (CPU) --------------===//
//
// sprt_attention_typed and sprt_attention_grad_typed, and their variants
// with saved statistics (_lse_typed; sprt/kernels.h, sprt/grad_kernels.h): the
// bf16 / f16 tensors are widened (exactly) into f32 scratch, the f32 kernels
// run on them, and each result is rounded once into its type. So the result is
// the f32 kernel between conversions, bit for bit
// (AttentionTypedConformanceTest); the program's arena holds no f32 copy of q,
// k, v or their gradients.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cstdint>

using namespace sprt::cpu;

namespace {

/// n elements of `dtype` at `p`, widened.
ScratchVector<float> widened(const void *p, int32_t dtype, int64_t n) {
  ScratchVector<float> wide(size_t(n > 0 ? n : 0));
  sprt_convert(p, dtype, wide.data(), SPRT_DTYPE_F32, n);
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
  const int64_t qN = Sq * B * heads * head_dim;
  const int64_t kvN = Sk * B * kv_heads * head_dim;
  ScratchVector<float> q32 = widened(q, dtype, qN),
                       k32 = widened(k, dtype, kvN),
                       v32 = widened(v, dtype, kvN),
                       out32(static_cast<size_t>(qN));
  sprt_attention_f32(q32.data(), k32.data(), v32.data(), positions,
                     out32.data(), Sq, Sk, q_offset, B, heads, kv_heads,
                     head_dim, causal, document_causal, rotary_dim, theta,
                     dropout_rate, seed, stream, global_batch, batch_offset,
                     global_heads, head_offset);
  sprt_convert(out32.data(), SPRT_DTYPE_F32, out, dtype, qN);
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
  const int64_t qN = Sq * B * heads * head_dim;
  const int64_t kvN = Sk * B * kv_heads * head_dim;
  ScratchVector<float> dq32(static_cast<size_t>(qN)),
      dk32(static_cast<size_t>(kvN)), dv32(static_cast<size_t>(kvN));
  {
    ScratchVector<float> dout32 = widened(dout, dtype, qN),
                         q32 = widened(q, dtype, qN),
                         k32 = widened(k, dtype, kvN),
                         v32 = widened(v, dtype, kvN);
    sprt_attention_grad_f32(
        dout32.data(), q32.data(), k32.data(), v32.data(), positions,
        dq32.data(), dk32.data(), dv32.data(), Sq, Sk, q_offset, B, heads,
        kv_heads, head_dim, causal, document_causal, rotary_dim, theta,
        dropout_rate, seed, stream, global_batch, batch_offset, global_heads,
        head_offset, /*accumulate_dkv=*/0);
  }
  sprt_convert(dq32.data(), SPRT_DTYPE_F32, dq, dtype, qN);
  sprt_convert(dk32.data(), SPRT_DTYPE_F32, dk, dtype, kvN);
  sprt_convert(dv32.data(), SPRT_DTYPE_F32, dv, dtype, kvN);
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
  const int64_t qN = Sq * B * heads * head_dim;
  const int64_t kvN = Sk * B * kv_heads * head_dim;
  ScratchVector<float> q32 = widened(q, dtype, qN),
                       k32 = widened(k, dtype, kvN),
                       v32 = widened(v, dtype, kvN),
                       out32(static_cast<size_t>(qN));
  sprt_attention_lse_f32(q32.data(), k32.data(), v32.data(), positions,
                         out32.data(), lse, Sq, Sk, q_offset, B, heads,
                         kv_heads, head_dim, causal, document_causal,
                         rotary_dim, theta, dropout_rate, seed, stream,
                         global_batch, batch_offset, global_heads, head_offset);
  sprt_convert(out32.data(), SPRT_DTYPE_F32, out, dtype, qN);
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
  const int64_t qN = Sq * B * heads * head_dim;
  const int64_t kvN = Sk * B * kv_heads * head_dim;
  ScratchVector<float> dq32(static_cast<size_t>(qN)),
      dk32(static_cast<size_t>(kvN)), dv32(static_cast<size_t>(kvN));
  {
    ScratchVector<float> dout32 = widened(dout, dtype, qN),
                         q32 = widened(q, dtype, qN),
                         k32 = widened(k, dtype, kvN),
                         v32 = widened(v, dtype, kvN),
                         out32 = widened(out, dtype, qN);
    sprt_attention_grad_lse_f32(
        dout32.data(), q32.data(), k32.data(), v32.data(), positions,
        out32.data(), lse, dq32.data(), dk32.data(), dv32.data(), Sq, Sk,
        q_offset, B, heads, kv_heads, head_dim, causal, document_causal,
        rotary_dim, theta, dropout_rate, seed, stream, global_batch,
        batch_offset, global_heads, head_offset, /*accumulate_dkv=*/0);
  }
  sprt_convert(dq32.data(), SPRT_DTYPE_F32, dq, dtype, qN);
  sprt_convert(dk32.data(), SPRT_DTYPE_F32, dk, dtype, kvN);
  sprt_convert(dv32.data(), SPRT_DTYPE_F32, dv, dtype, kvN);
}
