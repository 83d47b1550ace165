//===- Optimizer.cu - CUDA optimizer updates and gradient norm ------------===//
//
// AdamW and SGD as runtime/cpu/Optimizer.cpp computes them (each element in
// double from its f32 state, rounded once when stored; the _master variants
// on an f32 master weight whose rounding is stored in a bf16 / f16
// parameter), with the boundary's
// device scalars: g = grad[i] * *scale (a float multiply) and, when *scale
// is NaN (a non-finite gradient norm), nothing changes. The squared norm is
// a deterministic two-pass reduction in double (per-block partials, then one
// block sums them in a fixed order), over a list of tensors at once (the
// gradients of one layout: ceil(count / 128) launches of each pass and one
// launch adding the tensors' f32 sums in order, where one tensor at a time
// took two launches and an add per gradient); the clip factor is computed
// on the device, so no scalar goes through the host.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace sprt::cuda;
using namespace sprt::dtype;

namespace {

constexpr unsigned kMaxPartials = 1024;

/// The blocks of a tensor of n elements' partial sums (those of the
/// one-tensor reduction, so each tensor's sum has its bits).
inline unsigned blocksFor(int64_t n) {
  return n > 0 ? (gridFor(n) < kMaxPartials ? gridFor(n) : kMaxPartials) : 0;
}

/// Tensors per launch of the multi-tensor sum, passed by value (20 bytes
/// each, within the 4 KiB of kernel parameters).
constexpr int32_t kListChunk = 128;

/// Up to kListChunk tensors: tensor j's blocks are [first[j], first[j+1]).
struct TensorList {
  const float *x[kListChunk];
  int64_t n[kListChunk];
  unsigned first[kListChunk + 1];
  int32_t count;
};

/// Each block finds its tensor and computes the partial sum the one-tensor
/// reduction's block of the same index computes (the same grid-stride
/// pattern over the tensor's own grid).
__global__ void sumSquaresListPartials(const TensorList list,
                                       double *__restrict__ partials) {
  __shared__ double red[32];
  int32_t t = 0;
  while (t + 1 < list.count && blockIdx.x >= list.first[t + 1])
    ++t;
  const unsigned block = blockIdx.x - list.first[t];
  const unsigned grid = list.first[t + 1] - list.first[t];
  const float *x = list.x[t];
  const int64_t n = list.n[t];
  double s = 0.0;
  for (int64_t i = block * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(grid) * blockDim.x)
    s += double(x[i]) * double(x[i]);
  s = blockSum(s, red);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = s;
}

/// Where each of up to kListChunk tensors' partials begin (and the end).
struct PartialsList {
  unsigned first[kListChunk + 1];
};

/// Block j: tensor j's partials summed in a fixed order, rounded to f32.
__global__ void sumListPartials(const PartialsList list,
                                const double *__restrict__ partials,
                                float *__restrict__ sums) {
  __shared__ double red[32];
  const unsigned begin = list.first[blockIdx.x],
                 count = list.first[blockIdx.x + 1] - begin;
  double s = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
    s += partials[begin + i];
  s = blockSum(s, red);
  if (threadIdx.x == 0)
    sums[blockIdx.x] = float(s);
}

/// The tensors' f32 sums added in order (the chain of f32 adds).
__global__ void addInOrder(const float *__restrict__ sums, int32_t count,
                           float *__restrict__ out) {
  float total = 0.0f;
  for (int32_t t = 0; t < count; ++t)
    total = t == 0 ? sums[t] : __fadd_rn(total, sums[t]);
  *out = total;
}

/// `lossScale` by value, or *lossScaleAt (device memory) when given.
__global__ void clipScaleKernel(const float *__restrict__ sumSquares,
                                double maxNorm, double lossScale,
                                const double *__restrict__ lossScaleAt,
                                float *__restrict__ scale,
                                float *__restrict__ norm) {
  if (lossScaleAt)
    lossScale = *lossScaleAt;
  // The gradients are those of the loss times lossScale.
  const double nrm = sqrt(double(*sumSquares)) / lossScale;
  *norm = float(nrm);
  if (!isfinite(nrm))
    *scale = __int_as_float(0x7fc00000); // quiet NaN: the step is skipped
  else
    *scale = float((maxNorm > 0.0 ? fmin(1.0, maxNorm / (nrm + 1e-6)) : 1.0) /
                   lossScale);
}

/// One element's SGD update of weight p by the scaled gradient g (the f32
/// and master kernels share it, so both round alike).
__device__ inline float sgdStep(double p, float g, double lr,
                                double weightDecay) {
  return float(p - lr * (double(g) + weightDecay * p));
}

/// One element's AdamW update of weight p by the scaled gradient g, its
/// moments m and v updated in place.
__device__ inline float adamwStep(double p, float g, float &m, float &v,
                                  double beta1, double beta2, double eps,
                                  double decay, double stepSize,
                                  double bc2Sqrt) {
  const double gd = double(g);
  m = float(beta1 * double(m) + (1.0 - beta1) * gd);
  v = float(beta2 * double(v) + (1.0 - beta2) * gd * gd);
  const double denom = sqrt(double(v)) / bc2Sqrt + eps;
  return float(p * decay - stepSize * double(m) / denom);
}

/// AdamW's factors of this step, from the device's learning rate and step
/// count (the step's values), as the CPU backend computes them: by each
/// block's first thread, shared with the block. Every thread of the block
/// must call it.
struct AdamwFactors {
  double decay, stepSize, bc2Sqrt;
};
__device__ inline AdamwFactors adamwFactors(const double *lr, double beta1,
                                            double beta2, double weightDecay,
                                            const int64_t *step) {
  __shared__ AdamwFactors f;
  if (threadIdx.x == 0) {
    const double l = *lr, t = double(*step);
    f.decay = 1.0 - l * weightDecay;
    f.stepSize = l / (1.0 - pow(beta1, t));
    f.bc2Sqrt = sqrt(1.0 - pow(beta2, t));
  }
  __syncthreads();
  return f;
}

__global__ void sgdKernel(float *__restrict__ param,
                          const float *__restrict__ grad,
                          const float *__restrict__ scale, int64_t n,
                          const double *__restrict__ lrAt, double weightDecay) {
  const float s = *scale;
  if (isnan(s))
    return;
  const double lr = *lrAt;
  SPRT_FOR_EACH(i, n) {
    param[i] = sgdStep(param[i], grad[i] * s, lr, weightDecay);
  }
}

__global__ void adamwKernel(float *__restrict__ param,
                            const float *__restrict__ grad,
                            float *__restrict__ m, float *__restrict__ v,
                            const float *__restrict__ scale, int64_t n,
                            const double *__restrict__ lr, double beta1,
                            double beta2, double eps, double weightDecay,
                            const int64_t *__restrict__ step) {
  const float s = *scale;
  if (isnan(s)) // every thread of the grid reads the same *scale
    return;
  const AdamwFactors f = adamwFactors(lr, beta1, beta2, weightDecay, step);
  SPRT_FOR_EACH(i, n) {
    param[i] = adamwStep(param[i], grad[i] * s, m[i], v[i], beta1, beta2, eps,
                         f.decay, f.stepSize, f.bc2Sqrt);
  }
}

/// Stores x into element i of a buffer of type dtype, rounded to nearest
/// even when narrowing.
__device__ inline void storeRounded(void *p, int32_t dtype, int64_t i,
                                    float x) {
  if (dtype == SPRT_DTYPE_F32)
    static_cast<float *>(p)[i] = x;
  else
    static_cast<uint16_t *>(p)[i] =
        dtype == SPRT_DTYPE_BF16 ? f32ToBf16(x) : f32ToF16(x);
}

/// sgdKernel on an f32 master weight, its rounding stored in param.
__global__ void sgdMasterKernel(float *__restrict__ master,
                                void *__restrict__ param, int32_t paramType,
                                const float *__restrict__ grad,
                                const float *__restrict__ scale, int64_t n,
                                const double *__restrict__ lrAt,
                                double weightDecay) {
  const float s = *scale;
  if (isnan(s))
    return;
  const double lr = *lrAt;
  SPRT_FOR_EACH(i, n) {
    const float updated = sgdStep(master[i], grad[i] * s, lr, weightDecay);
    master[i] = updated;
    storeRounded(param, paramType, i, updated);
  }
}

/// adamwKernel on an f32 master weight, its rounding stored in param.
__global__ void adamwMasterKernel(float *__restrict__ master,
                                  void *__restrict__ param, int32_t paramType,
                                  const float *__restrict__ grad,
                                  float *__restrict__ m, float *__restrict__ v,
                                  const float *__restrict__ scale, int64_t n,
                                  const double *__restrict__ lr, double beta1,
                                  double beta2, double eps, double weightDecay,
                                  const int64_t *__restrict__ step) {
  const float s = *scale;
  if (isnan(s))
    return;
  const AdamwFactors f = adamwFactors(lr, beta1, beta2, weightDecay, step);
  SPRT_FOR_EACH(i, n) {
    const float p = adamwStep(master[i], grad[i] * s, m[i], v[i], beta1, beta2,
                              eps, f.decay, f.stepSize, f.bc2Sqrt);
    master[i] = p;
    storeRounded(param, paramType, i, p);
  }
}

/// Aborts on a parameter element type code the master kernels do not know.
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

void sprt_sum_squares_f32(const float *x, int64_t n, float *out) {
  sprt_sum_squares_list_f32(1, &x, &n, out);
}

void sprt_sum_squares_list_f32(int32_t count, const float *const *xs,
                               const int64_t *ns, float *out) {
  // Tensor t's partials start at first[t]: blocksFor(n) of them, as the
  // one-tensor reduction made them.
  std::vector<unsigned> first(size_t(count) + 1, 0);
  for (int32_t t = 0; t < count; ++t)
    first[t + 1] = first[t] + blocksFor(ns[t]);
  double *partials = static_cast<double *>(scratch(
      Scratch::Reduce, (first[count] + size_t(count) + 1) * sizeof(double)));
  float *sums = reinterpret_cast<float *>(partials + first[count]);
  for (int32_t t0 = 0; t0 < count; t0 += kListChunk) {
    TensorList list{};
    list.count = count - t0 < kListChunk ? count - t0 : kListChunk;
    for (int32_t j = 0; j < list.count; ++j) {
      list.x[j] = xs[t0 + j];
      list.n[j] = ns[t0 + j];
      list.first[j] = first[t0 + j] - first[t0];
    }
    list.first[list.count] = first[t0 + list.count] - first[t0];
    if (const unsigned blocks = list.first[list.count]) {
      sumSquaresListPartials<<<blocks, kThreads, 0, stream()>>>(
          list, partials + first[t0]);
      SPRT_CUDA_CHECK_LAUNCH("sumSquaresListPartials");
    }
  }
  if (count > 0) {
    // One block per tensor sums its partials (a device copy of the offsets
    // would need a host-to-device copy; they go by value, chunked).
    for (int32_t t0 = 0; t0 < count; t0 += kListChunk) {
      const int32_t c = count - t0 < kListChunk ? count - t0 : kListChunk;
      PartialsList list{};
      for (int32_t j = 0; j <= c; ++j)
        list.first[j] = first[t0 + j];
      sumListPartials<<<c, kThreads, 0, stream()>>>(list, partials, sums + t0);
      SPRT_CUDA_CHECK_LAUNCH("sumListPartials");
    }
  }
  addInOrder<<<1, 1, 0, stream()>>>(sums, count, out);
  SPRT_CUDA_CHECK_LAUNCH("addInOrder");
}

void sprt_clip_scale_f32(const float *sum_squares, double max_norm,
                         double loss_scale, float *scale, float *norm) {
  clipScaleKernel<<<1, 1, 0, stream()>>>(sum_squares, max_norm, loss_scale,
                                         nullptr, scale, norm);
  SPRT_CUDA_CHECK_LAUNCH("clipScaleKernel");
}

void sprt_clip_scale_by_f32(const float *sum_squares, double max_norm,
                            const double *loss_scale, float *scale,
                            float *norm) {
  clipScaleKernel<<<1, 1, 0, stream()>>>(sum_squares, max_norm, 1.0, loss_scale,
                                         scale, norm);
  SPRT_CUDA_CHECK_LAUNCH("clipScaleKernel");
}

void sprt_sgd_f32(float *param, const float *grad, const float *scale,
                  int64_t n, const double *lr, double weight_decay) {
  SPRT_LAUNCH(sgdKernel, n, param, grad, scale, n, lr, weight_decay);
}

// torch.optim.adamw._single_tensor_adamw, as the CPU backend; the factors
// of the step on the device (adamwFactors).
void sprt_adamw_f32(float *param, const float *grad, float *m, float *v,
                    const float *scale, int64_t n, const double *lr,
                    double beta1, double beta2, double eps, double weight_decay,
                    const int64_t *step) {
  SPRT_LAUNCH(adamwKernel, n, param, grad, m, v, scale, n, lr, beta1, beta2,
              eps, weight_decay, step);
}

void sprt_sgd_master_f32(float *master, void *param, int32_t param_dtype,
                         const float *grad, const float *scale, int64_t n,
                         const double *lr, double weight_decay) {
  checkParamDtype("sprt_sgd_master_f32", param_dtype);
  SPRT_LAUNCH(sgdMasterKernel, n, master, param, param_dtype, grad, scale, n,
              lr, weight_decay);
}

void sprt_adamw_master_f32(float *master, void *param, int32_t param_dtype,
                           const float *grad, float *m, float *v,
                           const float *scale, int64_t n, const double *lr,
                           double beta1, double beta2, double eps,
                           double weight_decay, const int64_t *step) {
  checkParamDtype("sprt_adamw_master_f32", param_dtype);
  SPRT_LAUNCH(adamwMasterKernel, n, master, param, param_dtype, grad, m, v,
              scale, n, lr, beta1, beta2, eps, weight_decay, step);
}

} // extern "C"
