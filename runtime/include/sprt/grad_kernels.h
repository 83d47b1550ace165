/*===- sprt/grad_kernels.h - backward and optimizer kernels (C ABI) -------===*
 *
 * The backward of every forward kernel in sprt/kernels.h, and the optimizer
 * updates. Same conventions: row-major f32, activations [S, B, F], T = S * B
 * tokens, local shapes with offsets where the global position matters.
 * Unless said otherwise, a kernel OVERWRITES its outputs (it does not
 * accumulate into them). Dropout's backward is sprt_dropout_f32 applied to
 * the incoming gradient with the same (seed, stream, offsets): the mask is
 * regenerated from the counter-based generator, not stored.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_GRAD_KERNELS_H
#define SPRT_GRAD_KERNELS_H

#include "sprt/abi.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Backward of sprt_linear_f32 (y = x W^T for W [N, K], or y = x W for
 * W [K, N] when weight_in_out). dx [M, K] = dy [M, N] times W (or W^T);
 * dw has W's shape: dy^T x (or x^T dy). Through cblas_sgemm. */
void sprt_linear_grad_input_f32(const float *dy, const float *w, float *dx,
                                int64_t M, int64_t K, int64_t N,
                                int32_t weight_in_out);
void sprt_linear_grad_weight_f32(const float *x, const float *dy, float *dw,
                                 int64_t M, int64_t K, int64_t N,
                                 int32_t weight_in_out);
/* The same weight gradient ACCUMULATED into dw (dw += dy^T x, or x^T dy),
 * in fp32 (the GEMM's beta = 1): the fused gather of the backward
 * (sprt_all_gather_linear_grad_weight_f32) sums the contributions of its
 * chunks with it. M = 0 leaves dw as it is. */
void sprt_linear_grad_weight_acc_f32(const float *x, const float *dy, float *dw,
                                     int64_t M, int64_t K, int64_t N,
                                     int32_t weight_in_out);
/* The linear gradients on tensors stored in any element type, as
 * sprt_linear_typed: operands read as stored, f32 accumulation, one
 * rounding of the result to its dtype. With accumulate = 1 the weight
 * gradient is added to dw (read as stored: dw + dy^T x in f32, then
 * rounded once); M = 0 then leaves dw as it is. */
void sprt_linear_grad_input_typed(const void *dy, int32_t dy_dtype,
                                  const void *w, int32_t w_dtype, void *dx,
                                  int32_t dx_dtype, int64_t M, int64_t K,
                                  int64_t N, int32_t weight_in_out);
void sprt_linear_grad_weight_typed(const void *x, int32_t x_dtype,
                                   const void *dy, int32_t dy_dtype, void *dw,
                                   int32_t dw_dtype, int64_t M, int64_t K,
                                   int64_t N, int32_t weight_in_out,
                                   int32_t accumulate);
/* db[i] = sum over t of dy[t, i]. */
void sprt_bias_grad_f32(const float *dy, float *db, int64_t T, int64_t H);
/* sprt_bias_grad_f32 on dy stored in dy_dtype and db in db_dtype
 * (SPRT_DTYPE_*): each element widened, the f32 kernel's sums, db rounded
 * once from its f32 value. Bit for bit the f32 kernel between conversions
 * on both backends (the same sums in the same order). */
void sprt_bias_grad_typed(const void *dy, int32_t dy_dtype, void *db,
                          int32_t db_dtype, int64_t T, int64_t H);

/* tfm.linear_gelu_grad: dx = sprt_gelu_grad_typed(sprt_linear_grad_input_
 * typed(dy, w) in dx_dtype, pre) (dx and pre of one dtype), and, when dbias
 * is not NULL, dbias = sprt_bias_grad_typed(dx) in dbias_dtype. M rows, K the
 * weight's input features (dx's and pre's width), N its output features
 * (dy's width). The CPU backend makes exactly those calls (their bits). The
 * CUDA backend, for a tanh GELU with dy, w, pre, dx (and dbias) of one type,
 * applies the GELU's derivative and sums the bias gradient in cuBLASLt's
 * epilogue (CUBLASLT_EPILOGUE_DGELU_BGRAD, or DGELU): of the unrounded input
 * gradient, so dx and dbias may differ by a rounding; otherwise, or where
 * cuBLASLt declines or SPRT_CUBLASLT=0 is set, it makes the calls. */
void sprt_linear_gelu_grad_typed(const void *dy, int32_t dy_dtype,
                                 const void *w, int32_t w_dtype,
                                 const void *pre, void *dx, int32_t dx_dtype,
                                 void *dbias, int32_t dbias_dtype, int64_t M,
                                 int64_t K, int64_t N, int32_t weight_in_out,
                                 int32_t tanh_approx);

/* tfm.linear_grad_weight_bias: dw = the weight gradient of x [M, K] and dy
 * [M, N] (sprt_linear_grad_weight_f32 where x, dy and dw are f32, else
 * sprt_linear_grad_weight_typed, overwriting dw) and db [N] = the bias
 * gradient of dy (sprt_bias_grad_f32 where dy and db are f32, else
 * sprt_bias_grad_typed). The CPU backend makes exactly those calls (their
 * bits). The CUDA backend, with x, dy, dw and db of one type, sums the bias
 * gradient in the weight-gradient GEMM's cuBLASLt epilogue
 * (CUBLASLT_EPILOGUE_BGRADB, BGRADA for weight_in_out): dy read once, the
 * sums in another order, so dw and db may differ by a rounding; otherwise,
 * or where cuBLASLt declines or SPRT_CUBLASLT=0 is set, it makes the
 * calls. */
void sprt_linear_grad_weight_bias_typed(const void *x, int32_t x_dtype,
                                        const void *dy, int32_t dy_dtype,
                                        void *dw, int32_t dw_dtype, void *db,
                                        int32_t db_dtype, int64_t M, int64_t K,
                                        int64_t N, int32_t weight_in_out);

/* Backward of sprt_layer_norm_f32 (recomputes mean and variance from x).
 * dw and db may be NULL (not wanted); bias presence does not matter. */
void sprt_layer_norm_grad_f32(const float *dy, const float *x,
                              const float *weight, float *dx, float *dw,
                              float *db, int64_t T, int64_t H, double eps);
/* Backward of sprt_rms_norm_f32; dw may be NULL. */
void sprt_rms_norm_grad_f32(const float *dy, const float *x,
                            const float *weight, float *dx, float *dw,
                            int64_t T, int64_t H, double eps);
/* The norms' backward on tensors as stored (as sprt_layer_norm_typed): the
 * f32 kernels between conversions, bit for bit; dw and db (may be NULL)
 * are rounded once from the f32 kernel's sums. */
void sprt_layer_norm_grad_typed(const void *dy, int32_t dy_dtype, const void *x,
                                int32_t x_dtype, const void *weight,
                                int32_t weight_dtype, void *dx,
                                int32_t dx_dtype, void *dw, int32_t dw_dtype,
                                void *db, int32_t db_dtype, int64_t T,
                                int64_t H, double eps);
void sprt_rms_norm_grad_typed(const void *dy, int32_t dy_dtype, const void *x,
                              int32_t x_dtype, const void *weight,
                              int32_t weight_dtype, void *dx, int32_t dx_dtype,
                              void *dw, int32_t dw_dtype, int64_t T, int64_t H,
                              double eps);
/* The norms' backward with the residual stream's gradient added into dx
 * (tfm.layer_norm_grad / rms_norm_grad with a residual): dx = residual +
 * the input gradient, that gradient rounded to dx's type first, so the
 * result is sprt_*_norm_grad_typed then sprt_add_typed bit for bit, in one
 * pass where the fused kernels run. `residual` has dx's dtype and does not
 * overlap dx. */
void sprt_layer_norm_grad_add_typed(
    const void *dy, int32_t dy_dtype, const void *x, int32_t x_dtype,
    const void *weight, int32_t weight_dtype, const void *residual,
    int32_t residual_dtype, void *dx, int32_t dx_dtype, void *dw,
    int32_t dw_dtype, void *db, int32_t db_dtype, int64_t T, int64_t H,
    double eps);
void sprt_rms_norm_grad_add_typed(const void *dy, int32_t dy_dtype,
                                  const void *x, int32_t x_dtype,
                                  const void *weight, int32_t weight_dtype,
                                  const void *residual, int32_t residual_dtype,
                                  void *dx, int32_t dx_dtype, void *dw,
                                  int32_t dw_dtype, int64_t T, int64_t H,
                                  double eps);

/* dx = dy * gelu'(x) (exact or tanh form, as the forward). */
void sprt_gelu_grad_f32(const float *dy, const float *x, float *dx, int64_t n,
                        int32_t tanh_approx);
/* dx = dy * silu'(x). */
void sprt_silu_grad_f32(const float *dy, const float *x, float *dx, int64_t n);
/* dx = dy where x > 0, else 0 (0 at x = 0, as torch). */
void sprt_relu_grad_f32(const float *dy, const float *x, float *dx, int64_t n);
/* The three on dy, x and dx stored as SPRT_DTYPE_* dtype (one type for all
 * three): each element widened, the f32 kernel's formula, dx rounded once
 * (the f32 kernel between conversions). */
void sprt_gelu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t tanh_approx, int32_t dtype);
void sprt_silu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t dtype);
void sprt_relu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t dtype);
/* tfm.swiglu_grad: dgate = sprt_silu_grad_typed(sprt_mul_typed(dy, up),
 * gate) and dup = sprt_mul_typed(dy, sprt_silu_typed(gate)) in one pass, each
 * intermediate rounded once to dtype as those calls round it (their bits),
 * on tensors of one SPRT_DTYPE_* dtype, F32 included. */
void sprt_swiglu_grad_typed(const void *dy, const void *gate, const void *up,
                            void *dgate, void *dup, int64_t n, int32_t dtype);

/* Backward of sprt_embedding_f32: dtable [V, H] (this rank's rows, starting
 * at vocab_offset) = sum of dy[t, :] over tokens t with ids[t] in range. */
void sprt_embedding_grad_f32(const int64_t *ids, const float *dy, float *dtable,
                             int64_t T, int64_t V, int64_t H,
                             int64_t vocab_offset);
/* sprt_embedding_grad_f32 on dy stored in dy_dtype and dtable in
 * dtable_dtype (SPRT_DTYPE_*): each row's tokens summed in f32 in token order
 * (the f32 kernel's sums, without atomics on either backend: the CUDA
 * backend sorts the tokens by row, stably, and sums each row's in order),
 * each element of dtable rounded once. Bit for bit the f32 kernel between
 * conversions, and the same bits run to run. */
void sprt_embedding_grad_typed(const int64_t *ids, const void *dy,
                               int32_t dy_dtype, void *dtable,
                               int32_t dtable_dtype, int64_t T, int64_t V,
                               int64_t H, int64_t vocab_offset);

/* Backward of sprt_qkv_split: packs dq, dk, dv back into dqkv (elements of
 * elem_bytes bytes). */
void sprt_qkv_concat(const void *dq, const void *dk, const void *dv, void *dqkv,
                     int64_t T, int64_t heads, int64_t kv_heads,
                     int64_t head_dim, int32_t packing_heads,
                     int32_t elem_bytes);
/* Backward of sprt_repeat_heads: dx[t, h, :] = sum over r of
 * dy[t, h * factor + r, :]. */
void sprt_repeat_heads_grad_f32(const float *dy, float *dx, int64_t T,
                                int64_t heads, int64_t head_dim,
                                int64_t factor);

/* Backward of sprt_attention_f32 with the same arguments, recomputing the
 * attention probabilities (and the dropout mask) from q and k: dq has q's
 * shape (Sq rows), dk, dv k's and v's (Sk rows; kv gradients summed over the
 * query heads that share a kv head). Rotary is applied in the forward sense
 * to q, k before the scores and its transpose to the gradients after. With
 * accumulate_dkv non-zero, this call's dk and dv are added to those already
 * in dk, dv (a run per piece of the query rows); else they are written. */
void sprt_attention_grad_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, float *dq, float *dk, float *dv, int64_t Sq,
    int64_t Sk, int64_t q_offset, int64_t B, int64_t heads, int64_t kv_heads,
    int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t global_batch, int64_t batch_offset,
    int64_t global_heads, int64_t head_offset, int32_t accumulate_dkv);

/* sprt_attention_grad_f32 on tensors stored in dtype (SPRT_DTYPE_BF16 or
 * F16), as sprt_attention_typed: dout, q, k, v read as stored, dq, dk, dv
 * written (never accumulated) and rounded once from their f32 values. */
void sprt_attention_grad_typed(
    const void *dout, const void *q, const void *k, const void *v,
    const int64_t *positions, void *dq, void *dk, void *dv, int64_t Sq,
    int64_t Sk, int64_t q_offset, int64_t B, int64_t heads, int64_t kv_heads,
    int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t global_batch, int64_t batch_offset,
    int64_t global_heads, int64_t head_offset, int32_t dtype);

/* Backward of sprt_attention_lse_f32 from the forward's out and lse (as it
 * wrote them), with sprt_attention_grad_f32's other arguments: the
 * probabilities are exp(score - lse) and the softmax's row term
 * rowsum(dout * out), so the forward is not run again. dq is written; dk
 * and dv are written, or added to with accumulate_dkv. The CPU backend runs
 * sprt_attention_block_grad_f32 into zeroed gradients, the CUDA backend's
 * native path the dq and dk/dv kernels of sprt_attention_grad_f32. */
void sprt_attention_grad_lse_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, const float *out, const float *lse, float *dq,
    float *dk, float *dv, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset,
    int32_t accumulate_dkv);

/* sprt_attention_grad_lse_f32 on tensors stored in dtype (bf16 / f16; lse
 * f32): dq, dk, dv written, each rounded once from its f32 value; the f32
 * call between conversions on the CPU backend and the CUDA backend's native
 * kernels, cuDNN's backward given O and its statistics on its path. */
void sprt_attention_grad_lse_typed(
    const void *dout, const void *q, const void *k, const void *v,
    const int64_t *positions, const void *out, const float *lse, void *dq,
    void *dk, void *dv, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset,
    int32_t dtype);

/* Backward of ring attention for one (query rows, key block) pair, with the
 * arguments of sprt_attention_block_f32 and the whole forward's out and lse
 * (every block merged): the probabilities are recomputed as
 * exp(score - lse), and this block's contributions are ADDED to dq [Sq, B,
 * heads * head_dim], dk and dv [Sk, B, kv_heads * head_dim] (the caller
 * zeroes them first). */
void sprt_attention_block_grad_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *q_positions, const int64_t *k_positions, const float *out,
    const float *lse, float *dq, float *dk, float *dv, int64_t Sq, int64_t Sk,
    int64_t q_offset, int64_t k_offset, int64_t L, int64_t B, int64_t heads,
    int64_t kv_heads, int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t batch_offset, int64_t global_heads,
    int64_t head_offset);

/* Backward of sprt_cross_entropy_f32: dlogits[t, :] = (softmax(logits[t]) -
 * onehot(labels[t])) * dloss / count for non-ignored t (0 for ignored ones,
 * and everywhere when count is 0), count = *count_in when count_in is not
 * NULL (the forward's global count), else the number of non-ignored tokens.
 * dloss and count_in are pointers to one float. */
void sprt_cross_entropy_grad_f32(const float *logits, const int64_t *labels,
                                 const float *dloss, const float *count_in,
                                 float *dlogits, int64_t T, int64_t V,
                                 int64_t ignore_index);
/* The same on logits and dlogits stored as their SPRT_DTYPE_* codes: each
 * logits row widened, each gradient rounded once from the f32 kernel's
 * value (the f32 kernel between conversions, bit for bit). */
void sprt_cross_entropy_grad_typed(const void *logits, int32_t logits_dtype,
                                   const int64_t *labels, const float *dloss,
                                   const float *count_in, void *dlogits,
                                   int32_t dlogits_dtype, int64_t T, int64_t V,
                                   int64_t ignore_index);
/* The same on this rank's vocabulary columns [vocab_offset, +V), given the
 * global per-token max and sumexp (as the forward pieces computed them). */
void sprt_vocab_parallel_cross_entropy_grad_f32(
    const float *logits, const float *max, const float *sumexp,
    const int64_t *labels, const float *dloss, float *dlogits, int64_t T,
    int64_t V, int64_t vocab_offset, int64_t ignore_index);

/* Backward of the vocab-parallel loss pieces, op by op (the max has a zero
 * gradient: its contributions through the loss and through sumexp cancel).
 * For non-ignored tokens, count = *count_in when count_in is not NULL, else
 * their number:
 *   dsumexp[t] = dloss / (count * sumexp[t]), dlabel_logit[t] = -dloss/count;
 * 0 for ignored tokens (and everywhere when count is 0). */
void sprt_cross_entropy_from_stats_grad_f32(const float *sumexp,
                                            const int64_t *labels,
                                            const float *dloss,
                                            const float *count_in,
                                            float *dsumexp, float *dlabel_logit,
                                            int64_t T, int64_t ignore_index);
/* dlogits[t, v] = exp(logits[t, v] - max[t]) * dsumexp[t]. */
void sprt_logits_sumexp_grad_f32(const float *logits, const float *max,
                                 const float *dsumexp, float *dlogits,
                                 int64_t T, int64_t V);
/* dlogits = 0 except dlogits[t, labels[t] - vocab_offset] = dz[t] for labels
 * in [vocab_offset, vocab_offset + V) other than ignore_index. */
void sprt_label_logit_grad_f32(const int64_t *labels, const float *dz,
                               float *dlogits, int64_t T, int64_t V,
                               int64_t vocab_offset, int64_t ignore_index);
/* x[i] = value. */
void sprt_fill_f32(float *x, int64_t n, double value);

/*===---------------------------- optimizer ------------------------------===*/

/* The optimizers update with g = grad[i] * *scale (a float multiply; scale
 * is device memory, from sprt_clip_scale_f32) and change nothing (param, m,
 * v) when *scale is NaN: a non-finite gradient norm skips the step. The
 * learning rate *lr and AdamW's step count *step are device memory too,
 * read when the kernel runs (the step's values, sprt/device.h: a replayed
 * CUDA graph updates with each step's). */
/* torch.optim.AdamW, one step (*step >= 1): m = b1 m + (1 - b1) g,
 * v = b2 v + (1 - b2) g^2, p -= lr * (m / (1 - b1^step)) /
 * (sqrt(v / (1 - b2^step)) + eps) + lr * weight_decay * p (decoupled decay,
 * applied to p before the update as torch does). */
void sprt_adamw_f32(float *param, const float *grad, float *m, float *v,
                    const float *scale, int64_t n, const double *lr,
                    double beta1, double beta2, double eps, double weight_decay,
                    const int64_t *step);
/* torch.optim.SGD without momentum: p -= lr * (g + weight_decay * p). */
void sprt_sgd_f32(float *param, const float *grad, const float *scale,
                  int64_t n, const double *lr, double weight_decay);
/* The same updates of an f32 master weight `master` (n elements) whose
 * rounding to nearest even is stored in `param` (n elements of type
 * param_dtype, SPRT_DTYPE_BF16 or SPRT_DTYPE_F16; SPRT_DTYPE_F32 copies; param
 * does not alias master): master is updated exactly as sprt_adamw_f32 /
 * sprt_sgd_f32 update an f32 parameter, then param[i] = round(master[i]). A NaN
 * *scale changes nothing (master, m, v, param). The mixed-precision distributed
 * optimizer (ZeRO-1 with sharded master weights). */
void sprt_adamw_master_f32(float *master, void *param, int32_t param_dtype,
                           const float *grad, float *m, float *v,
                           const float *scale, int64_t n, const double *lr,
                           double beta1, double beta2, double eps,
                           double weight_decay, const int64_t *step);
void sprt_sgd_master_f32(float *master, void *param, int32_t param_dtype,
                         const float *grad, const float *scale, int64_t n,
                         const double *lr, double weight_decay);
/* *out = sum of x[i]^2, accumulated in double, rounded to f32 once. */
void sprt_sum_squares_f32(const float *x, int64_t n, float *out);
/* The sums of squares of count >= 1 tensors (xs[t] of ns[t] elements), each
 * as sprt_sum_squares_f32 rounds it, added in f32 in list order: the bits of
 * sprt_sum_squares_f32 on each and f32 adds, in one pass over the list (a
 * constant number of kernels on a GPU, not two per tensor). The arrays are
 * read by the host before the call returns. */
void sprt_sum_squares_list_f32(int32_t count, const float *const *xs,
                               const int64_t *ns, float *out);
/* From the global sum of squares of gradients computed from the loss times
 * loss_scale (> 0; 1 without loss scaling): *norm = sqrt(*sum_squares) /
 * loss_scale, the true gradient norm; *scale = NaN when the norm is not
 * finite (the update is skipped), else min(1, max_norm / (norm + 1e-6))
 * (torch.nn.utils.clip_grad_norm_), or 1 when max_norm <= 0 (no clipping),
 * divided by loss_scale (which unscales the gradients). In double, each
 * result rounded to f32 once: loss_scale = 1 gives exactly the unscaled
 * results. */
void sprt_clip_scale_f32(const float *sum_squares, double max_norm,
                         double loss_scale, float *scale, float *norm);
/* sprt_clip_scale_f32 with loss_scale read from device memory when the
 * kernel runs (a step's hyperparameter: sprt_step_hyperparameter). */
void sprt_clip_scale_by_f32(const float *sum_squares, double max_norm,
                            const double *loss_scale, float *scale,
                            float *norm);
/* x *= s. */
void sprt_scale_f32(float *x, int64_t n, double s);
/* x *= *s, s read from device memory when the kernel runs. */
void sprt_scale_by_f32(float *x, int64_t n, const double *s);

#ifdef __cplusplus
}
#endif

#endif /* SPRT_GRAD_KERNELS_H */
