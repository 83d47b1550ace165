//===- Optimizer.cpp - CPU optimizer updates ------------------------------===//
//
// The optimizer kernels of sprt/grad_kernels.h: AdamW and SGD as torch.optim
// defines them (single-tensor, non-fused path), the squared norm used for
// gradient clipping, the clipping factor and an in-place scale.
//
// The optimizers take the clipping factor as device memory (on this backend,
// host memory) and multiply each gradient element by it in f32, which is
// what scaling the gradient first and updating after gives bit for bit; a
// NaN factor marks a step whose gradient norm is not finite: nothing
// changes.
//
// The _master variants update an f32 master weight and store its rounding
// (round to nearest even, sprt/dtype.h) into a bf16 / f16 parameter; the
// f32 kernels are the same loops with the parameter its own master.
//
// Every element is updated in double from its f32 parameter, gradient and
// state, and rounded once when stored; the hyper-parameters are never rounded
// to float. torch computes the same formulas in f32, so results agree with
// it to a few f32 ulps per step (and with a double reference to one
// rounding of each stored value per step).
//
//===----------------------------------------------------------------------===//

#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

/// Stores `x` into element i of a buffer of type `dtype`, rounded to
/// nearest even when narrowing (sprt/dtype.h).
inline void storeRounded(void *p, int32_t dtype, int64_t i, float x) {
  if (dtype == SPRT_DTYPE_F32)
    static_cast<float *>(p)[i] = x;
  else if (dtype == SPRT_DTYPE_BF16)
    static_cast<uint16_t *>(p)[i] = sprt::dtype::f32ToBf16(x);
  else
    static_cast<uint16_t *>(p)[i] = sprt::dtype::f32ToF16(x);
}

void checkParamDtype(const char *kernel, int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32 || dtype == SPRT_DTYPE_BF16 ||
      dtype == SPRT_DTYPE_F16)
    return;
  std::fprintf(stderr, "%s: unknown parameter element type code %d\n", kernel,
               int(dtype));
  std::abort();
}

} // namespace

extern "C" {

void sprt_adamw_f32(float *param, const float *grad, float *m, float *v,
                    const float *scale, int64_t n, const double *lr,
                    double beta1, double beta2, double eps, double weight_decay,
                    const int64_t *step) {
  sprt_adamw_master_f32(param, param, SPRT_DTYPE_F32, grad, m, v, scale, n, lr,
                        beta1, beta2, eps, weight_decay, step);
}

void sprt_adamw_master_f32(float *master, void *param, int32_t param_dtype,
                           const float *grad, float *m, float *v,
                           const float *scale, int64_t n, const double *lrAt,
                           double beta1, double beta2, double eps,
                           double weight_decay, const int64_t *stepAt) {
  checkParamDtype("sprt_adamw_master_f32", param_dtype);
  const float s = *scale;
  if (std::isnan(s))
    return;
  // torch.optim.adamw._single_tensor_adamw:
  //   param.mul_(1 - lr * weight_decay)
  //   exp_avg.lerp_(grad, 1 - beta1)
  //   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  //   step_size = lr / (1 - beta1^step)
  //   denom = exp_avg_sq.sqrt() / sqrt(1 - beta2^step) + eps
  //   param.addcdiv_(exp_avg, denom, value=-step_size)
  // The update reads the moments as stored (rounded to f32), as torch does.
  const double lr = *lrAt, t = double(*stepAt);
  const double decay = 1.0 - lr * weight_decay;
  const double stepSize = lr / (1.0 - std::pow(beta1, t));
  const double bc2Sqrt = std::sqrt(1.0 - std::pow(beta2, t));
  for (int64_t i = 0; i < n; ++i) {
    const double g = grad[i] * s;
    const float mi = float(beta1 * double(m[i]) + (1.0 - beta1) * g);
    const float vi = float(beta2 * double(v[i]) + (1.0 - beta2) * g * g);
    m[i] = mi;
    v[i] = vi;
    const double denom = std::sqrt(double(vi)) / bc2Sqrt + eps;
    const float p =
        float(double(master[i]) * decay - stepSize * double(mi) / denom);
    master[i] = p;
    storeRounded(param, param_dtype, i, p);
  }
}

void sprt_sgd_f32(float *param, const float *grad, const float *scale,
                  int64_t n, const double *lr, double weight_decay) {
  sprt_sgd_master_f32(param, param, SPRT_DTYPE_F32, grad, scale, n, lr,
                      weight_decay);
}

void sprt_sgd_master_f32(float *master, void *param, int32_t param_dtype,
                         const float *grad, const float *scale, int64_t n,
                         const double *lrAt, double weight_decay) {
  checkParamDtype("sprt_sgd_master_f32", param_dtype);
  const double lr = *lrAt;
  const float s = *scale;
  if (std::isnan(s))
    return;
  for (int64_t i = 0; i < n; ++i) {
    const double p = master[i];
    const float updated =
        float(p - lr * (double(grad[i] * s) + weight_decay * p));
    master[i] = updated;
    storeRounded(param, param_dtype, i, updated);
  }
}

void sprt_sum_squares_f32(const float *x, int64_t n, float *out) {
  // Squares of floats are exact in double (48 significant bits); only the
  // additions round. Four independent partial sums break the dependency
  // chain of one accumulator (and shorten each summation).
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; ++j)
      s[j] += double(x[i + j]) * double(x[i + j]);
  for (; i < n; ++i)
    s[0] += double(x[i]) * double(x[i]);
  *out = float((s[0] + s[1]) + (s[2] + s[3]));
}

void sprt_sum_squares_list_f32(int32_t count, const float *const *xs,
                               const int64_t *ns, float *out) {
  float total = 0.0f;
  for (int32_t t = 0; t < count; ++t) {
    float s;
    sprt_sum_squares_f32(xs[t], ns[t], &s);
    total = t == 0 ? s : total + s;
  }
  *out = total;
}

void sprt_clip_scale_f32(const float *sum_squares, double max_norm,
                         double loss_scale, float *scale, float *norm) {
  // The gradients are those of the loss times loss_scale: the true norm is
  // theirs divided by it.
  const double total = std::sqrt(double(*sum_squares)) / loss_scale;
  *norm = float(total);
  // A NaN or Inf gradient would make every parameter NaN: the optimizers
  // skip the update, and main() stops the run or counts the step
  // (--on-nonfinite), seeing the norm.
  if (!std::isfinite(total)) {
    *scale = NAN;
    return;
  }
  const double clip =
      max_norm > 0.0 ? std::min(1.0, max_norm / (total + 1e-6)) : 1.0;
  *scale = float(clip / loss_scale);
}

void sprt_clip_scale_by_f32(const float *sum_squares, double max_norm,
                            const double *loss_scale, float *scale,
                            float *norm) {
  sprt_clip_scale_f32(sum_squares, max_norm, *loss_scale, scale, norm);
}

void sprt_scale_f32(float *x, int64_t n, double s) {
  for (int64_t i = 0; i < n; ++i)
    x[i] = float(double(x[i]) * s);
}

void sprt_scale_by_f32(float *x, int64_t n, const double *s) {
  sprt_scale_f32(x, n, *s);
}

} // extern "C"
