/*===- sprt/kernels.h - libsprt compute kernels (C ABI) -------------------===*
 *
 * Forward kernels for every tfm op, on row-major f32 buffers. Activations are
 * [S, B, F] (sequence first); "tokens" T = S * B index the first two
 * dimensions flattened (t = s * B + b). Shapes are the local (per-rank) ones;
 * where a kernel needs to know where its shard sits in the global tensor
 * (vocab-parallel embedding and loss, dropout masks keyed by global element
 * index), it takes the offsets.
 *
 * Every kernel is a plain function of its arguments: no global state, no
 * communication. Collectives are in sprt/runtime.h.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_KERNELS_H
#define SPRT_KERNELS_H

#include "sprt/abi.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-------------------------- random numbers ---------------------------===*/

/* Philox4x32-10 (Salmon et al. 2011): four 32-bit words for a 128-bit
 * counter and a 64-bit key. */
void sprt_philox4x32(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]);

/* Uniform float in [0, 1) for element `index` of random stream `stream`
 * under `seed`: counter = (index, stream), key = seed; 24 bits of word 0. */
float sprt_uniform(uint64_t seed, uint64_t stream, uint64_t index);

/* Standard normal for element `index` of stream `stream` under `seed`
 * (Box-Muller on words 0 and 1 of the same counter). */
float sprt_normal(uint64_t seed, uint64_t stream, uint64_t index);

/* 64-bit FNV-1a hash of a NUL-terminated string: the random stream of a
 * parameter is the hash of its name, so it does not depend on layout. */
uint64_t sprt_hash_name(const char *name);

/*===------------------------- element types -----------------------------===*/

/* The element types (SPRT_DTYPE_F32, _BF16, _F16; the compiler passes these
 * integers) are declared in sprt/abi.def. */

/* out[i] = in[i] converted from in_dtype to out_dtype (n elements; in and
 * out do not overlap). Narrowing (f32 -> bf16 / f16) rounds to nearest even
 * as sprt/dtype.h (overflow to an infinity, f16 subnormals exact, NaN stays
 * NaN); widening is exact; bf16 <-> f16 goes through f32 (exact widening,
 * one rounding); the same type copies. Any other code aborts. */
void sprt_convert(const void *in, int32_t in_dtype, void *out,
                  int32_t out_dtype, int64_t n);

/*===----------------------------- kernels -------------------------------===*/

/* y[M, N] = x[M, K] * W^T (+ bias[N]) for W stored [N, K] (weight_in_out = 0,
 * torch.nn.Linear), or x * W for W stored [K, N] (weight_in_out = 1, GPT-2's
 * Conv1D). bias may be NULL. Through cblas_sgemm. */
void sprt_linear_f32(const float *x, const float *w, const float *bias,
                     float *y, int64_t M, int64_t K, int64_t N,
                     int32_t weight_in_out);

/* sprt_linear_f32 on tensors stored in any element type (SPRT_DTYPE_*), the
 * GEMM of mixed precision: x, w and bias are read as stored and widened
 * exactly, the products are accumulated in f32 (onto the bias, as
 * sprt_linear_f32), and y is rounded once to y_dtype (nearest even, as
 * sprt_convert). bias may be NULL (bias_dtype is then not read). With every
 * dtype F32 it is sprt_linear_f32. The CPU backend widens panels of the
 * operands to f32 and calls cblas_sgemm on them (one panel, hence
 * sprt_linear_f32's bits on the widened operands, while each operand panel
 * stays within 2^20 elements); the CUDA backend calls cublasGemmEx with fp32
 * compute, on tensor cores when x and w share a 16-bit type (cublasLtMatmul
 * with the bias as its epilogue when x, w, bias and y share one: the same
 * sum, one rounding). An unknown dtype code aborts. */
void sprt_linear_typed(const void *x, int32_t x_dtype, const void *w,
                       int32_t w_dtype, const void *bias, int32_t bias_dtype,
                       void *y, int32_t y_dtype, int64_t M, int64_t K,
                       int64_t N, int32_t weight_in_out);

/* tfm.linear_gelu: pre = sprt_linear_typed(x, w, bias) in y_dtype, y =
 * sprt_gelu_typed(pre) in the same dtype; pre may be NULL (not written: the
 * GELU's input is then y's own bytes on the CPU). The CPU backend computes
 * exactly that (the two calls' bits). The CUDA backend applies bias and GELU
 * in cuBLASLt's epilogue (CUBLASLT_EPILOGUE_GELU_AUX_BIAS, pre as its
 * auxiliary output) for a tanh GELU with x, w, bias and y of one type: the
 * GELU of the unrounded f32 sum, so y may differ by one rounding; otherwise,
 * or where cuBLASLt declines (said once on stderr) or SPRT_CUBLASLT=0 is
 * set, it makes the two calls. */
void sprt_linear_gelu_typed(const void *x, int32_t x_dtype, const void *w,
                            int32_t w_dtype, const void *bias,
                            int32_t bias_dtype, void *pre, void *y,
                            int32_t y_dtype, int64_t M, int64_t K, int64_t N,
                            int32_t weight_in_out, int32_t tanh_approx);

/* y[t, :] = table[ids[t] - vocab_offset, :] for ids in
 * [vocab_offset, vocab_offset + V), zeros otherwise (vocab-parallel lookup;
 * vocab_offset = 0 and V = the whole vocabulary for an unsplit table). */
void sprt_embedding_f32(const int64_t *ids, const float *table, float *y,
                        int64_t T, int64_t V, int64_t H, int64_t vocab_offset);
/* sprt_embedding_f32 on a table and y stored in dtype (SPRT_DTYPE_*): the
 * rows are copied as stored (a gather moves bytes; no f32 copy of either). */
void sprt_embedding_typed(const int64_t *ids, const void *table, void *y,
                          int64_t T, int64_t V, int64_t H, int64_t vocab_offset,
                          int32_t dtype);

/* Layer normalisation over the last dimension (biased variance, as torch);
 * bias may be NULL. */
void sprt_layer_norm_f32(const float *x, const float *weight, const float *bias,
                         float *y, int64_t T, int64_t H, double eps);

/* y = x / sqrt(mean(x^2) + eps) * weight over the last dimension. */
void sprt_rms_norm_f32(const float *x, const float *weight, float *y, int64_t T,
                       int64_t H, double eps);

/* The norms on tensors as stored: each tensor f32, bf16 or f16 (its
 * SPRT_DTYPE_* code after it; a NULL weight or bias has code 0). Each
 * element is widened exactly, the row is normalised as by the f32 kernel
 * and each result rounded from that kernel's f32 value to its type: the
 * f32 kernel between conversions, bit for bit, without f32 copies. */
void sprt_layer_norm_typed(const void *x, int32_t x_dtype, const void *weight,
                           int32_t weight_dtype, const void *bias,
                           int32_t bias_dtype, void *y, int32_t y_dtype,
                           int64_t T, int64_t H, double eps);
void sprt_rms_norm_typed(const void *x, int32_t x_dtype, const void *weight,
                         int32_t weight_dtype, void *y, int32_t y_dtype,
                         int64_t T, int64_t H, double eps);
/* The residual stream's sum and its norm (tfm.add_layer_norm /
 * add_rms_norm): sum = x + residual as sprt_add_typed computes it, y the
 * norm of the stored sum, so the results are sprt_add_typed then
 * sprt_*_norm_typed bit for bit, in one pass where the fused kernels run.
 * x, residual and sum have one dtype; sum does not overlap x or residual. */
void sprt_add_layer_norm_typed(const void *x, int32_t x_dtype,
                               const void *residual, int32_t residual_dtype,
                               const void *weight, int32_t weight_dtype,
                               const void *bias, int32_t bias_dtype, void *sum,
                               int32_t sum_dtype, void *y, int32_t y_dtype,
                               int64_t T, int64_t H, double eps);
void sprt_add_rms_norm_typed(const void *x, int32_t x_dtype,
                             const void *residual, int32_t residual_dtype,
                             const void *weight, int32_t weight_dtype,
                             void *sum, int32_t sum_dtype, void *y,
                             int32_t y_dtype, int64_t T, int64_t H, double eps);

/* Inverted dropout of a rank-`rank` tensor whose local shape is `shape`,
 * sitting at `offset` inside a global tensor of shape `global_shape`:
 * element e is kept iff sprt_uniform(seed, stream, global index of e) >=
 * rate, and scaled by 1 / (1 - rate). mask (one byte per element, 1 = kept)
 * may be NULL. rate = 0 copies. */
void sprt_dropout_f32(const float *x, float *y, uint8_t *mask, int32_t rank,
                      const int64_t *shape, const int64_t *global_shape,
                      const int64_t *offset, double rate, uint64_t seed,
                      uint64_t stream);

/* sprt_dropout_f32 on x and y of one element type `dtype` (SPRT_DTYPE_*),
 * read and written as stored: a kept element is widened exactly, scaled in
 * f32 and rounded once to dtype (nearest even), i.e. sprt_dropout_f32 on
 * the widened x, converted; the same mask. With F32 it is sprt_dropout_f32.
 * An unknown dtype aborts. */
void sprt_dropout_typed(const void *x, void *y, uint8_t *mask, int32_t rank,
                        const int64_t *shape, const int64_t *global_shape,
                        const int64_t *offset, double rate, uint64_t seed,
                        uint64_t stream, int32_t dtype);

/* y = residual + sprt_dropout_typed(x) (no mask), of one element type
 * `dtype`: the dropped-out element rounded to dtype as sprt_dropout_typed
 * stores it, then widened and added to the widened residual in f32 and
 * rounded once (sprt_add_typed): tfm.dropout then tfm.add bit for bit, in
 * one pass. y may be residual. */
void sprt_dropout_add_typed(const void *x, const void *residual, void *y,
                            int32_t rank, const int64_t *shape,
                            const int64_t *global_shape, const int64_t *offset,
                            double rate, uint64_t seed, uint64_t stream,
                            int32_t dtype);
/* The residual sum with dropout and its norm (tfm.add_layer_norm /
 * add_rms_norm with dropout): sum = sprt_dropout_add_typed(x, residual)'s
 * (x, residual and sum of `dtype`, the geometry of sprt_dropout_typed;
 * sum does not overlap x or residual) and y the norm of the stored sum over
 * its last dimension (rows of shape[rank - 1], which must be whole):
 * sprt_dropout_add_typed then sprt_*_norm_typed bit for bit. */
void sprt_dropout_add_layer_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, const void *bias, int32_t bias_dtype, void *sum,
    void *y, int32_t y_dtype, int32_t rank, const int64_t *shape,
    const int64_t *global_shape, const int64_t *offset, double rate,
    uint64_t seed, uint64_t stream, int32_t dtype, double eps);
void sprt_dropout_add_rms_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, void *sum, void *y, int32_t y_dtype, int32_t rank,
    const int64_t *shape, const int64_t *global_shape, const int64_t *offset,
    double rate, uint64_t seed, uint64_t stream, int32_t dtype, double eps);

/* gelu: exact x * Phi(x) (tanh_approx = 0) or GPT-2's tanh form. */
void sprt_gelu_f32(const float *x, float *y, int64_t n, int32_t tanh_approx);
void sprt_silu_f32(const float *x, float *y, int64_t n);
/* relu: max(x, 0); NaN stays NaN. */
void sprt_relu_f32(const float *x, float *y, int64_t n);
void sprt_mul_f32(const float *a, const float *b, float *y, int64_t n);
void sprt_add_f32(const float *a, const float *b, float *y, int64_t n);
/* sprt_gelu_f32, sprt_silu_f32, sprt_relu_f32, sprt_mul_f32 and
 * sprt_add_f32 on tensors of one element type `dtype` (SPRT_DTYPE_*), read
 * and written as stored: each element is widened exactly, mapped by the
 * f32 kernel's formula in f32 and rounded once to dtype (nearest even, as
 * sprt_convert): the f32 kernel on the widened tensors, converted. With
 * F32 it is the f32 kernel. The CPU backend runs the f32 kernel on blocks
 * widened on the stack; the CUDA backend loads and stores each element in
 * its type. An unknown dtype aborts. */
void sprt_gelu_typed(const void *x, void *y, int64_t n, int32_t tanh_approx,
                     int32_t dtype);
void sprt_silu_typed(const void *x, void *y, int64_t n, int32_t dtype);
void sprt_relu_typed(const void *x, void *y, int64_t n, int32_t dtype);
void sprt_mul_typed(const void *a, const void *b, void *y, int64_t n,
                    int32_t dtype);
void sprt_add_typed(const void *a, const void *b, void *y, int64_t n,
                    int32_t dtype);
/* tfm.swiglu: y = sprt_mul_typed(sprt_silu_typed(gate), up) in one pass
 * (the SiLU rounded once to dtype, then the product rounded once: the two
 * calls' bits), on tensors of one SPRT_DTYPE_* dtype, F32 included. */
void sprt_swiglu_typed(const void *gate, const void *up, void *y, int64_t n,
                       int32_t dtype);
/* y[t, i] = x[t, i] + bias[i]. */
void sprt_bias_add_f32(const float *x, const float *bias, float *y, int64_t T,
                       int64_t H);

/* Splits a fused [T, (heads + 2 kv_heads) * head_dim] projection into
 * q [T, heads * head_dim], k and v [T, kv_heads * head_dim], elements of
 * elem_bytes bytes (4: f32, 2: bf16 / f16; moved, not converted).
 * packing_heads = 0: [q | k | v] (GPT-2); 1: per kv group
 * [q_0 .. q_{factor-1} k v] (per head [q k v] when heads == kv_heads:
 * GPT-NeoX). */
void sprt_qkv_split(const void *qkv, void *q, void *k, void *v, int64_t T,
                    int64_t heads, int64_t kv_heads, int64_t head_dim,
                    int32_t packing_heads, int32_t elem_bytes);

/* y[t, (h * factor + r) * head_dim + d] = x[t, h * head_dim + d], elements
 * of elem_bytes bytes. */
void sprt_repeat_heads(const void *x, void *y, int64_t T, int64_t heads,
                       int64_t head_dim, int64_t factor, int32_t elem_bytes);

/* out[s, b] = seq_offset + s. */
void sprt_position_ids_i64(int64_t *out, int64_t S, int64_t B,
                           int64_t seq_offset);

/* Chooses the implementation behind the sprt_attention* calls for a program
 * computing in `precision` (SPRT_DTYPE_*): request "native" (the backend's
 * own kernels), "cudnn" or NULL / "" / "auto" (the backend's default). The
 * CUDA backend's default is cuDNN's fused attention for bf16 and f16
 * programs, staged from the calls' f32 tensors (its dropout masks are then
 * cuDNN's, not sprt_uniform's); f32 programs, and shapes cuDNN refuses, keep
 * the native kernels. Returns one line for the start-up log: the kernel
 * chosen ("cudnn ..." or "native ...") and why, valid until the next call.
 * Until it is called every backend runs its native kernels. */
const char *sprt_attention_select(int32_t precision, const char *request);

/* Readies, before step 1, what the sprt_attention* calls of this shape will
 * use (the arguments are sprt_attention_block_f32's; sprt_attention_f32's
 * with k_offset 0; `backward`: the gradient calls too), so that a step
 * allocates and builds nothing: the CUDA backend's cuDNN path builds the
 * shape's plans, sizes their workspace and the bias mask, and names once why
 * cuDNN refuses a shape (the native kernel then takes it). A shape never
 * prepared is readied on its first call. The CPU backend has nothing to
 * ready. */
void sprt_attention_prepare(int64_t Sq, int64_t Sk, int64_t q_offset,
                            int64_t k_offset, int64_t B, int64_t heads,
                            int64_t kv_heads, int64_t head_dim, int32_t causal,
                            int32_t document_causal, double dropout_rate,
                            int32_t backward);

/* Scaled dot-product attention of Sq query rows over Sk key rows: q and out
 * [Sq, B, heads * head_dim], the first query row being global row q_offset
 * of the sequence; k, v [Sk, B, kv_heads * head_dim], rows 0..Sk-1 of the
 * sequence in natural order. Query head h reads kv head h / (heads /
 * kv_heads). Scores scaled by 1/sqrt(head_dim); when causal, query row i
 * sees keys j <= q_offset + i. With rotary_dim > 0 the first rotary_dim
 * features of every q and k head are rotated (rotate-half, as GPT-NeoX and
 * Llama) by angle pos * theta^(-2i / rotary_dim), pos from positions
 * [Sk, B] (query row i at positions[q_offset + i]; the global row index if
 * NULL). With dropout_rate > 0 the probabilities are dropped out with
 * sprt_uniform(seed, stream, index) where index = ((b + batch_offset) *
 * global_heads + h + head_offset) * Sk * Sk + (q_offset + i) * Sk + j, the
 * element's index in the global [B, heads, Sk, Sk] tensor: a run on a piece
 * of the query rows gives those rows of the Sq == Sk, q_offset == 0 run. */
void sprt_attention_f32(const float *q, const float *k, const float *v,
                        const int64_t *positions, float *out, int64_t Sq,
                        int64_t Sk, int64_t q_offset, int64_t B, int64_t heads,
                        int64_t kv_heads, int64_t head_dim, int32_t causal,
                        int32_t document_causal, int64_t rotary_dim,
                        double theta, double dropout_rate, uint64_t seed,
                        uint64_t stream, int64_t global_batch,
                        int64_t batch_offset, int64_t global_heads,
                        int64_t head_offset);

/* sprt_attention_f32 on q, k, v and out stored in dtype (SPRT_DTYPE_BF16 or
 * F16): the inputs are read as stored and each output element is rounded
 * once from its f32 value, so the result is the f32 kernel's between
 * conversions. The CPU backend widens into scratch around that kernel
 * (bit for bit); the CUDA backend's cuDNN path reads and writes the
 * tensors directly (its own kernel; see sprt_attention_select), its native
 * path widens as the CPU does. */
void sprt_attention_typed(const void *q, const void *k, const void *v,
                          const int64_t *positions, void *out, int64_t Sq,
                          int64_t Sk, int64_t q_offset, int64_t B,
                          int64_t heads, int64_t kv_heads, int64_t head_dim,
                          int32_t causal, int32_t document_causal,
                          int64_t rotary_dim, double theta, double dropout_rate,
                          uint64_t seed, uint64_t stream, int64_t global_batch,
                          int64_t batch_offset, int64_t global_heads,
                          int64_t head_offset, int32_t dtype);

/* sprt_attention_f32 that also writes lse [Sq, B, heads]: the natural log
 * of each query row's softmax denominator over its scaled, masked scores
 * (before dropout), -inf for a row that sees no key; the saved statistics
 * of sprt_attention_grad_lse_f32. out is sprt_attention_f32's, bit for bit,
 * on the CPU backend and the CUDA backend's native path (one kernel, which
 * also writes each row's m + log(sum)). */
void sprt_attention_lse_f32(const float *q, const float *k, const float *v,
                            const int64_t *positions, float *out, float *lse,
                            int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
                            int64_t heads, int64_t kv_heads, int64_t head_dim,
                            int32_t causal, int32_t document_causal,
                            int64_t rotary_dim, double theta,
                            double dropout_rate, uint64_t seed, uint64_t stream,
                            int64_t global_batch, int64_t batch_offset,
                            int64_t global_heads, int64_t head_offset);

/* sprt_attention_lse_f32 on q, k, v and out stored in dtype (SPRT_DTYPE_BF16
 * or F16; lse f32): the f32 call between conversions, bit for bit, on the
 * CPU backend and the CUDA backend's native kernels; cuDNN's own on its
 * path (its forward reading and writing the tensors as stored). */
void sprt_attention_lse_typed(const void *q, const void *k, const void *v,
                              const int64_t *positions, void *out, float *lse,
                              int64_t Sq, int64_t Sk, int64_t q_offset,
                              int64_t B, int64_t heads, int64_t kv_heads,
                              int64_t head_dim, int32_t causal,
                              int32_t document_causal, int64_t rotary_dim,
                              double theta, double dropout_rate, uint64_t seed,
                              uint64_t stream, int64_t global_batch,
                              int64_t batch_offset, int64_t global_heads,
                              int64_t head_offset, int32_t dtype);

/* One step of ring attention: Sq query rows (global rows q_offset..) over a
 * block of Sk key rows (global rows k_offset..) of a sequence of L rows,
 * merged into a running result by log-sum-exp. q, out [Sq, B, heads *
 * head_dim], k, v [Sk, B, kv_heads * head_dim], lse [Sq, B, heads] (the
 * natural log of the softmax denominator of the scaled scores of the keys
 * merged so far; -inf and out 0 when a row has seen no visible key).
 * q_positions [Sq, B] and k_positions [Sk, B] (NULL: the global row index)
 * give the rotary angles; under document_causal query row i sees keys
 * j >= i - q_positions[i] (as sprt_attention_f32; only the queries'
 * positions matter). Masks, rotary, scale and the dropout draws (index into
 * the global [B, heads, L, L] tensor) are those of sprt_attention_f32 on the
 * whole sequence. With accumulate 0 out and lse are written (the block's
 * own result), else the block is merged into them: lse' = log(e^lse +
 * e^lse_blk), out' = out e^(lse - lse') + out_blk e^(lse_blk - lse'). */
void sprt_attention_block_f32(
    const float *q, const float *k, const float *v, const int64_t *q_positions,
    const int64_t *k_positions, float *out, float *lse, int64_t Sq, int64_t Sk,
    int64_t q_offset, int64_t k_offset, int64_t L, int64_t B, int64_t heads,
    int64_t kv_heads, int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t batch_offset, int64_t global_heads,
    int64_t head_offset, int32_t accumulate);

/* Vocabulary-parallel cross-entropy pieces on logits [T, V] (this rank's V
 * columns, starting at vocab_offset in the full vocabulary). */
void sprt_logits_max_f32(const float *logits, float *max, int64_t T, int64_t V);
void sprt_logits_sumexp_f32(const float *logits, const float *max,
                            float *sumexp, int64_t T, int64_t V);
/* out[t] = logits[t, labels[t] - vocab_offset] when that column is local and
 * labels[t] != ignore_index, else 0. */
void sprt_label_logit_f32(const float *logits, const int64_t *labels,
                          float *out, int64_t T, int64_t V,
                          int64_t vocab_offset, int64_t ignore_index);
/* *loss = mean over t with labels[t] != ignore_index of
 * log(sumexp[t]) + max[t] - label_logit[t]; 0 if none. With count (a
 * pointer to one float, NULL: the mean), the sum over these tokens divided
 * by *count instead (0 if *count is 0): a rank's share of the mean over a
 * batch split across ranks, *count being the batch's non-ignored labels. */
void sprt_cross_entropy_from_stats_f32(const float *max, const float *sumexp,
                                       const float *label_logit,
                                       const int64_t *labels,
                                       const float *count, float *loss,
                                       int64_t T, int64_t ignore_index);
/* The whole loss on unsplit logits [T, V] (count as above). */
void sprt_cross_entropy_f32(const float *logits, const int64_t *labels,
                            const float *count, float *loss, int64_t T,
                            int64_t V, int64_t ignore_index);
/* The same on logits stored as SPRT_DTYPE_* logits_dtype (f32, bf16 or
 * f16): each row widened exactly, so the f32 kernel on the widened logits,
 * bit for bit, without an f32 copy of them. */
void sprt_cross_entropy_typed(const void *logits, int32_t logits_dtype,
                              const int64_t *labels, const float *count,
                              float *loss, int64_t T, int64_t V,
                              int64_t ignore_index);
/* *count = the number of t with labels[t] != ignore_index, as a float. */
void sprt_label_count_f32(const int64_t *labels, float *count, int64_t T,
                          int64_t ignore_index);

#ifdef __cplusplus
}
#endif

#endif /* SPRT_KERNELS_H */
