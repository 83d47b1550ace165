/*===- sprt/optimizer_abi.h - device-scalar optimizer kernels (pending) ---===*
 *
 * TEMPORARY, branch rt-cuda (issue 8). The optimizer and gradient-norm
 * kernels with their scalars on the device, exactly as the decided backend
 * boundary (notes/common.md) states them. The branch that splits the
 * runtime changes these four declarations in sprt/grad_kernels.h (and the CPU
 * backend and core with them); this branch cannot, so the CUDA backend and
 * the conformance suite declare them here. At the merge, this file is
 * deleted and its includers include sprt/grad_kernels.h instead. Never
 * include it together with a sprt/grad_kernels.h that still declares the
 * old signatures.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_OPTIMIZER_ABI_H
#define SPRT_OPTIMIZER_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *out (device) = float(sum of x[i]^2), accumulated in double. */
void sprt_sum_squares_f32(const float *x, int64_t n, float *out);

/* norm = sqrt(double(*sum_squares)); *norm = float(norm); *scale = NaN when
 * norm is not finite, else max_norm > 0 ? float(min(1, max_norm / (norm +
 * 1e-6))) : 1. All pointers device. */
void sprt_clip_scale_f32(const float *sum_squares, double max_norm,
                         float *scale, float *norm);

/* torch.optim.SGD without momentum on g = grad[i] * *scale (float multiply):
 * p -= lr * (g + weight_decay * p). Nothing changes when *scale is NaN. */
void sprt_sgd_f32(float *param, const float *grad, const float *scale,
                  int64_t n, double lr, double weight_decay);

/* torch.optim.AdamW, one step (step >= 1), on g = grad[i] * *scale (float
 * multiply): m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
 * p = p (1 - lr wd) - lr / (1 - b1^step) m / (sqrt(v) / sqrt(1 - b2^step) +
 * eps). Nothing (param, m, v) changes when *scale is NaN. */
void sprt_adamw_f32(float *param, const float *grad, float *m, float *v,
                    const float *scale, int64_t n, double lr, double beta1,
                    double beta2, double eps, double weight_decay,
                    int64_t step);

#ifdef __cplusplus
}
#endif

#endif /* SPRT_OPTIMIZER_ABI_H */
