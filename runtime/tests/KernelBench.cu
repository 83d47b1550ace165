//===- KernelBench.cu - the memory-bound kernels against copy bandwidth ---===//
//
//   sprt_kernel_bench [--json FILE] [--reps N]
//
// On the CUDA backend's device: for each kernel and shape, the median of N
// timed calls (cudaEvent pairs on the backend's stream, after 3 warm-up
// calls), the bytes the kernel must move (inputs read once, outputs
// written once: a lower bound, partial sums and statistics not counted),
// its GB/s, and the same bytes moved by cudaMemcpyAsync device to device
// (a copy of half those bytes reads and writes them all): ratio = kernel
// GB/s / copy GB/s. Paths: "fused" / "two-stage" are what the backend runs
// (sprt_* entry points); "two-pass" the backend's row-per-block fallback
// for rows its registers do not fit (NormPaths.h); "before" the kernels
// before the two-stage column sums (KernelBenchBaseline.cuh: the
// row-per-block dx, then one thread per column over all rows); for
// sprt_convert, "vector" is four elements a thread and "scalar" the
// one-element kernel (the only one before), reached through unaligned
// buffers; for the "bf16" kernels (the norms and the cross-entropy on
// tensors as stored, and the bias gradient), "before" is what a bf16
// program ran before they were typed: converts to f32, the f32 kernel,
// converts back. Attention on bf16 as stored ("stored") and the GEMMs with
// cuBLASLt's epilogues ("epilogue": the GELU, against the GEMM then the GELU
// kernel; the bias, against its broadcast and beta = 1; the GELU's gradient
// and the bias gradient, against their kernels) are compute-bound:
// their time against "before" is the figure, not their ratio to the copy.
// The optimizer (benchOptimizer): AdamW per tensor over GPT-2 124M's
// parameters as a step calls it ("per-tensor"), and the gradient norm's
// multi-tensor sum of squares ("list") against one call per tensor.
//
// Without a usable GPU it prints "skipped: ..." (and writes that as the
// JSON's status) and exits 0.
//
//===----------------------------------------------------------------------===//

#include "../cuda/Common.cuh"
#include "../cuda/LtGemm.cuh"
#include "../cuda/NormPaths.h"
#include "KernelBenchBaseline.cuh"
#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace sprt::cuda;
using namespace sprt_bench;

namespace {

struct Result {
  std::string kernel, shape, path;
  double bytes, medianUs, gbps, copyGbps;
};

int reps = 20;

/// Median microseconds of `reps` timed calls of f after 3 warm-up calls.
double medianUs(const std::function<void()> &f) {
  cudaStream_t s = stream();
  for (int i = 0; i < 3; ++i)
    f();
  cudaEvent_t a, b;
  SPRT_CUDA_CHECK(cudaEventCreate(&a));
  SPRT_CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    SPRT_CUDA_CHECK(cudaEventRecord(a, s));
    f();
    SPRT_CUDA_CHECK(cudaEventRecord(b, s));
    SPRT_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SPRT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    us.push_back(double(ms) * 1e3);
  }
  SPRT_CUDA_CHECK(cudaEventDestroy(a));
  SPRT_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

/// A device buffer of n floats filled with values in [-1, 1) (+ offset).
float *deviceFloats(size_t n, unsigned seed, float offset = 0.0f) {
  std::vector<float> h(n);
  unsigned s = seed * 2654435761u + 1;
  for (float &v : h) {
    s = s * 1664525u + 1013904223u;
    v = offset + float(s >> 8) / float(1u << 23) - 1.0f;
  }
  float *d = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&d, n * sizeof(float) + 16));
  SPRT_CUDA_CHECK(
      cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

/// GB/s of a device-to-device copy moving `bytes` in all (reading and
/// writing bytes / 2).
double copyGbps(double bytes) {
  const size_t half = size_t(bytes / 2) / 16 * 16;
  void *a = nullptr, *b = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&a, half));
  SPRT_CUDA_CHECK(cudaMalloc(&b, half));
  const double us = medianUs([&] {
    SPRT_CUDA_CHECK(
        cudaMemcpyAsync(b, a, half, cudaMemcpyDeviceToDevice, stream()));
  });
  SPRT_CUDA_CHECK(cudaFree(a));
  SPRT_CUDA_CHECK(cudaFree(b));
  return 2.0 * double(half) / us * 1e-3;
}

std::vector<Result> results;

void measure(const char *kernel, const std::string &shape, const char *path,
             double bytes, const std::function<void()> &f) {
  const double us = medianUs(f);
  Result r{kernel, shape, path, bytes, us, bytes / us * 1e-3, copyGbps(bytes)};
  std::printf("%-16s %-14s %-10s %10.1f MB %9.1f us %8.1f GB/s  copy %8.1f "
              "GB/s  ratio %.3f\n",
              r.kernel.c_str(), r.shape.c_str(), r.path.c_str(), bytes / 1e6,
              us, r.gbps, r.copyGbps, r.gbps / r.copyGbps);
  std::fflush(stdout);
  results.push_back(r);
}

void benchNorms(int64_t T, int64_t H) {
  const std::string shape = std::to_string(T) + "x" + std::to_string(H);
  const size_t n = size_t(T * H);
  float *x = deviceFloats(n, 1, 2.0f), *dy = deviceFloats(n, 2),
        *w = deviceFloats(size_t(H), 3), *b = deviceFloats(size_t(H), 4),
        *y = deviceFloats(n, 5), *dw = deviceFloats(size_t(H), 6),
        *db = deviceFloats(size_t(H), 7);
  double2 *stats = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&stats, size_t(T) * sizeof(double2)));
  std::vector<double2> hs(size_t(T), make_double2(0.0, 1.0));
  SPRT_CUDA_CHECK(cudaMemcpy(stats, hs.data(), hs.size() * sizeof(double2),
                             cudaMemcpyHostToDevice));
  const double row = double(n) * 4, col = double(H) * 4, eps = 1e-5;

  measure("layer_norm", shape, "fused", 2 * row + 2 * col,
          [&] { sprt_layer_norm_f32(x, w, b, y, T, H, eps); });
  measure("layer_norm", shape, "before", 2 * row + 2 * col,
          [&] { layerNormRowPerBlock(x, w, b, y, T, H, eps); });
  measure("layer_norm_grad", shape, "fused", 3 * row + 3 * col,
          [&] { sprt_layer_norm_grad_f32(dy, x, w, y, dw, db, T, H, eps); });
  measure("layer_norm_grad", shape, "two-pass", 3 * row + 3 * col,
          [&] { layerNormGradTwoPass(dy, x, w, y, dw, db, T, H, eps); });
  measure("layer_norm_grad", shape, "before", 3 * row + 3 * col, [&] {
    // The row kernel (statistics not stored: T * 16 bytes less than
    // before), then the old column kernel over statistics made up front.
    layerNormGradTwoPass(dy, x, w, y, nullptr, nullptr, T, H, eps);
    baselineLayerNormGradColumns<<<gridFor(H), kThreads, 0, stream()>>>(
        dy, x, stats, dw, db, T, H);
  });
  measure("rms_norm", shape, "fused", 2 * row + col,
          [&] { sprt_rms_norm_f32(x, w, y, T, H, eps); });
  measure("rms_norm", shape, "before", 2 * row + col,
          [&] { rmsNormRowPerBlock(x, w, y, T, H, eps); });
  measure("rms_norm_grad", shape, "fused", 3 * row + 2 * col,
          [&] { sprt_rms_norm_grad_f32(dy, x, w, y, dw, T, H, eps); });
  measure("rms_norm_grad", shape, "two-pass", 3 * row + 2 * col,
          [&] { rmsNormGradTwoPass(dy, x, w, y, dw, T, H, eps); });
  for (void *p : {(void *)x, (void *)dy, (void *)w, (void *)b, (void *)y,
                  (void *)dw, (void *)db, (void *)stats})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// n bf16 elements converted from deviceFloats(n, seed, offset).
void *deviceBf16(size_t n, unsigned seed, float offset = 0.0f) {
  float *f = deviceFloats(n, seed, offset);
  void *h = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&h, n * 2 + 16));
  sprt_convert(f, SPRT_DTYPE_F32, h, SPRT_DTYPE_BF16, int64_t(n));
  SPRT_CUDA_CHECK(cudaStreamSynchronize(stream()));
  SPRT_CUDA_CHECK(cudaFree(f));
  return h;
}

/// The norms on bf16 tensors as stored (sprt_*norm*_typed, "fused") against
/// what a bf16 program ran before they were typed ("before": every bf16
/// operand converted to f32, the f32 kernel, every result converted back).
/// Bytes: the typed kernel's own traffic (2-byte rows, f32 dw / db sums).
void benchTypedNorms(int64_t T, int64_t H) {
  const std::string shape = std::to_string(T) + "x" + std::to_string(H);
  const size_t n = size_t(T * H);
  const int32_t B = SPRT_DTYPE_BF16, F = SPRT_DTYPE_F32;
  void *x = deviceBf16(n, 11, 2.0f), *dy = deviceBf16(n, 12),
       *w = deviceBf16(size_t(H), 13), *b = deviceBf16(size_t(H), 14),
       *y = deviceBf16(n, 15), *dw = deviceBf16(size_t(H), 16),
       *db = deviceBf16(size_t(H), 17);
  float *fx = deviceFloats(n, 1), *fdy = deviceFloats(n, 2),
        *fy = deviceFloats(n, 5), *fw = deviceFloats(size_t(H), 3),
        *fb = deviceFloats(size_t(H), 4), *fdw = deviceFloats(size_t(H), 6),
        *fdb = deviceFloats(size_t(H), 7);
  const double row = double(n) * 2, col = double(H) * 2, eps = 1e-5;
  auto widen = [&](const void *in, float *out, size_t m) {
    sprt_convert(in, B, out, F, int64_t(m));
  };
  auto narrow = [&](const float *in, void *out, size_t m) {
    sprt_convert(in, F, out, B, int64_t(m));
  };
  measure("layer_norm bf16", shape, "fused", 2 * row + 2 * col,
          [&] { sprt_layer_norm_typed(x, B, w, B, b, B, y, B, T, H, eps); });
  measure("layer_norm bf16", shape, "before", 2 * row + 2 * col, [&] {
    widen(x, fx, n), widen(w, fw, size_t(H)), widen(b, fb, size_t(H));
    sprt_layer_norm_f32(fx, fw, fb, fy, T, H, eps);
    narrow(fy, y, n);
  });
  measure("layer_norm_grad bf16", shape, "fused", 3 * row + 3 * col, [&] {
    sprt_layer_norm_grad_typed(dy, B, x, B, w, B, y, B, dw, B, db, B, T, H,
                               eps);
  });
  measure("layer_norm_grad bf16", shape, "before", 3 * row + 3 * col, [&] {
    widen(dy, fdy, n), widen(x, fx, n), widen(w, fw, size_t(H));
    sprt_layer_norm_grad_f32(fdy, fx, fw, fy, fdw, fdb, T, H, eps);
    narrow(fy, y, n), narrow(fdw, dw, size_t(H)), narrow(fdb, db, size_t(H));
  });
  // With the residual stream's gradient (r, read into dx): one pass against
  // the backward then the add ("before").
  void *r = deviceBf16(n, 18);
  measure("layer_norm_grad_add bf16", shape, "fused", 4 * row + 3 * col, [&] {
    sprt_layer_norm_grad_add_typed(dy, B, x, B, w, B, r, B, y, B, dw, B, db, B,
                                   T, H, eps);
  });
  measure("layer_norm_grad_add bf16", shape, "before", 4 * row + 3 * col, [&] {
    sprt_layer_norm_grad_typed(dy, B, x, B, w, B, y, B, dw, B, db, B, T, H,
                               eps);
    sprt_add_typed(r, y, y, int64_t(n), B);
  });
  measure("rms_norm_grad_add bf16", shape, "fused", 4 * row + 2 * col, [&] {
    sprt_rms_norm_grad_add_typed(dy, B, x, B, w, B, r, B, y, B, dw, B, T, H,
                                 eps);
  });
  measure("rms_norm_grad_add bf16", shape, "before", 4 * row + 2 * col, [&] {
    sprt_rms_norm_grad_typed(dy, B, x, B, w, B, y, B, dw, B, T, H, eps);
    sprt_add_typed(r, y, y, int64_t(n), B);
  });
  // The forward's residual sum and its norm (x + r into s, its norm into
  // y): one pass against the add then the norm ("before").
  void *s = deviceBf16(n, 19);
  measure("add_layer_norm bf16", shape, "fused", 4 * row + 2 * col, [&] {
    sprt_add_layer_norm_typed(x, B, r, B, w, B, b, B, s, B, y, B, T, H, eps);
  });
  measure("add_layer_norm bf16", shape, "before", 4 * row + 2 * col, [&] {
    sprt_add_typed(x, r, s, int64_t(n), B);
    sprt_layer_norm_typed(s, B, w, B, b, B, y, B, T, H, eps);
  });
  measure("add_rms_norm bf16", shape, "fused", 4 * row + col, [&] {
    sprt_add_rms_norm_typed(x, B, r, B, w, B, s, B, y, B, T, H, eps);
  });
  measure("add_rms_norm bf16", shape, "before", 4 * row + col, [&] {
    sprt_add_typed(x, r, s, int64_t(n), B);
    sprt_rms_norm_typed(s, B, w, B, y, B, T, H, eps);
  });
  SPRT_CUDA_CHECK(cudaFree(s));
  SPRT_CUDA_CHECK(cudaFree(r));
  measure("rms_norm bf16", shape, "fused", 2 * row + col,
          [&] { sprt_rms_norm_typed(x, B, w, B, y, B, T, H, eps); });
  measure("rms_norm_grad bf16", shape, "fused", 3 * row + 2 * col, [&] {
    sprt_rms_norm_grad_typed(dy, B, x, B, w, B, y, B, dw, B, T, H, eps);
  });
  for (void *p : {x, dy, w, b, y, dw, db, (void *)fx, (void *)fdy, (void *)fy,
                  (void *)fw, (void *)fb, (void *)fdw, (void *)fdb})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// The cross-entropy and its gradient on bf16 logits as stored against the
/// conversions around the f32 kernels they replaced ("before"); bytes: the
/// bf16 logits read (and the bf16 gradient written).
void benchTypedLoss(int64_t T, int64_t V) {
  const std::string shape = std::to_string(T) + "x" + std::to_string(V);
  const size_t n = size_t(T * V);
  const int32_t B = SPRT_DTYPE_BF16, F = SPRT_DTYPE_F32;
  void *logits = deviceBf16(n, 18), *dlogits = deviceBf16(n, 19);
  float *f = deviceFloats(n, 20), *fd = deviceFloats(n, 21),
        *loss = deviceFloats(1, 22), *dloss = deviceFloats(1, 23, 1.5f);
  std::vector<int64_t> hl(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t)
    hl[size_t(t)] = (t * 7919) % V;
  int64_t *labels = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&labels, hl.size() * sizeof(int64_t)));
  SPRT_CUDA_CHECK(cudaMemcpy(labels, hl.data(), hl.size() * sizeof(int64_t),
                             cudaMemcpyHostToDevice));
  const double bytes = double(n) * 2;
  measure("cross_entropy bf16", shape, "fused", bytes, [&] {
    sprt_cross_entropy_typed(logits, B, labels, nullptr, loss, T, V, -100);
  });
  measure("cross_entropy bf16", shape, "before", bytes, [&] {
    sprt_convert(logits, B, f, F, int64_t(n));
    sprt_cross_entropy_f32(f, labels, nullptr, loss, T, V, -100);
  });
  measure("cross_entropy_grad bf16", shape, "fused", 2 * bytes, [&] {
    sprt_cross_entropy_grad_typed(logits, B, labels, dloss, nullptr, dlogits, B,
                                  T, V, -100);
  });
  measure("cross_entropy_grad bf16", shape, "before", 2 * bytes, [&] {
    sprt_convert(logits, B, f, F, int64_t(n));
    sprt_cross_entropy_grad_f32(f, labels, dloss, nullptr, fd, T, V, -100);
    sprt_convert(fd, F, dlogits, B, int64_t(n));
  });
  for (void *p : {logits, dlogits, (void *)f, (void *)fd, (void *)loss,
                  (void *)dloss, (void *)labels})
    SPRT_CUDA_CHECK(cudaFree(p));
}

void benchBiasGrad(int64_t T, int64_t H) {
  const std::string shape = std::to_string(T) + "x" + std::to_string(H);
  float *dy = deviceFloats(size_t(T * H), 8), *db = deviceFloats(size_t(H), 9);
  const double bytes = double(T * H) * 4 + double(H) * 4;
  measure("bias_grad", shape, "two-stage", bytes,
          [&] { sprt_bias_grad_f32(dy, db, T, H); });
  measure("bias_grad", shape, "before", bytes, [&] {
    baselineBiasGrad<<<gridFor(H), kThreads, 0, stream()>>>(dy, db, T, H);
  });
  SPRT_CUDA_CHECK(cudaFree(dy));
  SPRT_CUDA_CHECK(cudaFree(db));
}

/// The bias gradient of bf16 rows as stored (sprt_bias_grad_typed) against
/// the conversion to f32 and the f32 kernel it replaced.
void benchTypedBiasGrad(int64_t T, int64_t H) {
  const std::string shape = std::to_string(T) + "x" + std::to_string(H);
  const int32_t B = SPRT_DTYPE_BF16, F = SPRT_DTYPE_F32;
  void *dy = deviceBf16(size_t(T * H), 24), *db = deviceBf16(size_t(H), 25);
  float *f = deviceFloats(size_t(T * H), 26),
        *fdb = deviceFloats(size_t(H), 27);
  const double bytes = double(T * H) * 2 + double(H) * 2;
  measure("bias_grad bf16", shape, "two-stage", bytes,
          [&] { sprt_bias_grad_typed(dy, B, db, B, T, H); });
  measure("bias_grad bf16", shape, "before", bytes, [&] {
    sprt_convert(dy, B, f, F, T * H);
    sprt_bias_grad_f32(f, fdb, T, H);
    sprt_convert(fdb, F, db, B, H);
  });
  for (void *p : {dy, db, (void *)f, (void *)fdb})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// The embedding gradient (sprt_embedding_grad_typed: tokens sorted by row,
/// each row summed in token order) against the atomics it replaced, in f32
/// and on bf16 dy and table as stored (before: converted around the f32
/// kernel). Token ids are skewed as text is (id = V u^3, u uniform: the
/// smallest ids are the most frequent). Bytes: dy and the ids read, the
/// table written once.
void benchEmbeddingGrad(int64_t T, int64_t V, int64_t H) {
  const std::string shape =
      std::to_string(T) + "x" + std::to_string(H) + " V" + std::to_string(V);
  std::vector<int64_t> h(static_cast<size_t>(T));
  unsigned s = 12345;
  for (int64_t &id : h) {
    s = s * 1664525u + 1013904223u;
    const double u = double(s >> 8) / double(1u << 24);
    id = std::min<int64_t>(V - 1, int64_t(double(V) * u * u * u));
  }
  int64_t *ids = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&ids, h.size() * sizeof(int64_t)));
  SPRT_CUDA_CHECK(cudaMemcpy(ids, h.data(), h.size() * sizeof(int64_t),
                             cudaMemcpyHostToDevice));
  const int32_t B = SPRT_DTYPE_BF16, F = SPRT_DTYPE_F32;
  float *dy = deviceFloats(size_t(T * H), 28),
        *dtable = deviceFloats(size_t(V * H), 29);
  void *dyB = deviceBf16(size_t(T * H), 30),
       *dtableB = deviceBf16(size_t(V * H), 31);
  const double ids8 = double(T) * 8;
  const double bytes = double(T * H + V * H) * 4 + ids8;
  measure("embedding_grad", shape, "sorted", bytes, [&] {
    sprt_embedding_grad_typed(ids, dy, F, dtable, F, T, V, H, 0);
  });
  auto atomics = [&] {
    SPRT_CUDA_CHECK(cudaMemsetAsync(dtable, 0, size_t(V * H) * 4, stream()));
    baselineEmbeddingGrad<<<gridFor(T * H), kThreads, 0, stream()>>>(
        ids, dy, dtable, T, V, H);
  };
  measure("embedding_grad", shape, "before", bytes, atomics);
  const double bytesB = double(T * H + V * H) * 2 + ids8;
  measure("embedding_grad bf16", shape, "sorted", bytesB, [&] {
    sprt_embedding_grad_typed(ids, dyB, B, dtableB, B, T, V, H, 0);
  });
  measure("embedding_grad bf16", shape, "before", bytesB, [&] {
    sprt_convert(dyB, B, dy, F, T * H);
    atomics();
    sprt_convert(dtable, F, dtableB, B, V * H);
  });
  for (void *p : {(void *)ids, (void *)dy, (void *)dtable, dyB, dtableB})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// `f` with cuBLASLt's epilogues ("epilogue") and without them
/// (SPRT_CUBLASLT=0's path, "before").
void measureEpilogue(const char *kernel, const std::string &shape, double bytes,
                     const std::function<void()> &f) {
  for (bool lt : {true, false}) {
    sprt::cuda::ltEnabled() = lt;
    measure(kernel, shape, lt ? "epilogue" : "before", bytes, f);
  }
  sprt::cuda::ltEnabled() = true;
}

/// The GEMM with its bias and tanh GELU as cuBLASLt's epilogue, pre written
/// (sprt_linear_gelu_typed: tfm.linear_gelu, "epilogue") against the GEMM
/// (its bias broadcast, beta = 1) then the GELU kernel it replaced
/// (SPRT_CUBLASLT=0's path, "before"), in bf16. Compute-bound: the
/// bytes are x, w, the bias, pre and y once; compare the times.
void benchLinearGelu(int64_t M, int64_t K, int64_t N) {
  const std::string shape =
      std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N);
  const int32_t B = SPRT_DTYPE_BF16;
  void *x = deviceBf16(size_t(M * K), 31), *w = deviceBf16(size_t(K * N), 32),
       *b = deviceBf16(size_t(N), 33), *pre = deviceBf16(size_t(M * N), 34),
       *y = deviceBf16(size_t(M * N), 35);
  const double bytes = 2.0 * double(M * K + K * N + N + 2 * M * N);
  measureEpilogue("linear_gelu bf16", shape, bytes, [&] {
    sprt_linear_gelu_typed(x, B, w, B, b, B, pre, y, B, M, K, N, 1, 1);
  });
  for (void *p : {x, w, b, pre, y})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// The GELU's gradient of a GEMM's input gradient with its bias gradient as
/// cuBLASLt's epilogue (sprt_linear_gelu_grad_typed, "epilogue") against the
/// input gradient's GEMM, the GELU's gradient and the bias gradient
/// (SPRT_CUBLASLT=0's path, "before"), in bf16: dy [M, N], W [K, N] (GPT-2's
/// c_proj, in_out), pre and dx [M, K].
void benchLinearGeluGrad(int64_t M, int64_t K, int64_t N) {
  const std::string shape =
      std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N);
  const int32_t B = SPRT_DTYPE_BF16;
  void *dy = deviceBf16(size_t(M * N), 41), *w = deviceBf16(size_t(K * N), 42),
       *pre = deviceBf16(size_t(M * K), 43),
       *dx = deviceBf16(size_t(M * K), 44), *db = deviceBf16(size_t(K), 45);
  const double bytes = 2.0 * double(M * N + K * N + 2 * M * K + K);
  measureEpilogue("linear_gelu_grad bf16", shape, bytes, [&] {
    sprt_linear_gelu_grad_typed(dy, B, w, B, pre, dx, B, db, B, M, K, N, 1, 1);
  });
  for (void *p : {dy, w, pre, dx, db})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// A weight gradient with its bias gradient as cuBLASLt's epilogue
/// (sprt_linear_grad_weight_bias_typed, "epilogue") against the weight
/// gradient's GEMM and the bias gradient's kernel (SPRT_CUBLASLT=0's path,
/// "before"): x [M, K], dy [M, N] in bf16, dW [K, N] (GPT-2's Conv1D,
/// in_out) and db [N] in bf16, and in f32 as a program with f32 master
/// weights writes them ("bf16->f32").
void benchLinearGradWeightBias(int64_t M, int64_t K, int64_t N) {
  const std::string shape =
      std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N);
  const int32_t B = SPRT_DTYPE_BF16, F = SPRT_DTYPE_F32;
  void *x = deviceBf16(size_t(M * K), 46), *dy = deviceBf16(size_t(M * N), 47),
       *dw = deviceFloats(size_t(K * N), 48), *db = deviceFloats(size_t(N), 49);
  for (int32_t out : {B, F}) {
    const double bytes = 2.0 * double(M * K + M * N) +
                         (out == B ? 2.0 : 4.0) * double(K * N + N);
    measureEpilogue(out == B ? "linear_grad_weight_bias bf16"
                             : "linear_grad_weight_bias bf16->f32",
                    shape, bytes, [&] {
                      sprt_linear_grad_weight_bias_typed(x, B, dy, B, dw, out,
                                                         db, out, M, K, N, 1);
                    });
  }
  for (void *p : {x, dy, dw, db})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// A bf16 linear with a bias: the bias as cuBLASLt's epilogue
/// (sprt_linear_typed, "epilogue") against the bias broadcast into C and
/// added by beta = 1 in cublasGemmEx (SPRT_CUBLASLT=0's path, "before").
void benchLinearBias(int64_t M, int64_t K, int64_t N) {
  const std::string shape =
      std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N);
  const int32_t B = SPRT_DTYPE_BF16;
  void *x = deviceBf16(size_t(M * K), 36), *w = deviceBf16(size_t(K * N), 37),
       *b = deviceBf16(size_t(N), 38), *y = deviceBf16(size_t(M * N), 39);
  const double bytes = 2.0 * double(M * K + K * N + N + M * N);
  measureEpilogue("linear bf16 bias", shape, bytes, [&] {
    sprt_linear_typed(x, B, w, B, b, B, y, B, M, K, N, 1);
  });
  for (void *p : {x, w, b, y})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// Attention and its backward on bf16 q, k, v as stored
/// (sprt_attention_typed: on cuDNN, read and written in place; "stored")
/// against what a bf16 program ran before ("before": q, k, v (and dout)
/// widened, the f32 call, which stages them back to bf16 for cuDNN, the
/// results narrowed), on the kernel sprt_attention_select picks for a bf16
/// program (its line is printed). Attention is compute-bound: compare the
/// times; the bytes are the bf16 tensors read and written, and its ratio to
/// the copy is not a target.
void benchTypedAttention(int64_t S, int64_t Bt, int64_t heads, int64_t kv,
                         int64_t D, int64_t rotary) {
  std::printf("attention kernel: %s\n",
              sprt_attention_select(SPRT_DTYPE_BF16, "auto"));
  const std::string shape = std::to_string(S) + "x" + std::to_string(Bt) + "x" +
                            std::to_string(heads) + "/" + std::to_string(kv) +
                            "x" + std::to_string(D);
  const size_t nq = size_t(S * Bt * heads * D), nkv = size_t(S * Bt * kv * D);
  const int32_t B = SPRT_DTYPE_BF16, F = SPRT_DTYPE_F32;
  void *q = deviceBf16(nq, 30), *k = deviceBf16(nkv, 31),
       *v = deviceBf16(nkv, 32), *o = deviceBf16(nq, 33),
       *dout = deviceBf16(nq, 34), *dq = deviceBf16(nq, 35),
       *dk = deviceBf16(nkv, 36), *dv = deviceBf16(nkv, 37);
  float *fq = deviceFloats(nq, 40), *fk = deviceFloats(nkv, 41),
        *fv = deviceFloats(nkv, 42), *fo = deviceFloats(nq, 43),
        *fdout = deviceFloats(nq, 44), *fdq = deviceFloats(nq, 45),
        *fdk = deviceFloats(nkv, 46), *fdv = deviceFloats(nkv, 47);
  const double theta = 500000.0;
  // Forward: q, k, v read, out written; backward: dout, q, k, v read, dq,
  // dk, dv written.
  const double fwd = double(2 * nq + 2 * nkv) * 2,
               bwd = double(3 * nq + 4 * nkv) * 2;
  auto widen = [&](const void *in, float *out, size_t m) {
    sprt_convert(in, B, out, F, int64_t(m));
  };
  auto narrow = [&](const float *in, void *out, size_t m) {
    sprt_convert(in, F, out, B, int64_t(m));
  };
  measure("attention bf16", shape, "stored", fwd, [&] {
    sprt_attention_typed(q, k, v, nullptr, o, S, S, 0, Bt, heads, kv, D, 1, 0,
                         rotary, theta, 0.0, 7, 3, Bt, 0, heads, 0, B);
  });
  measure("attention bf16", shape, "before", fwd, [&] {
    widen(q, fq, nq), widen(k, fk, nkv), widen(v, fv, nkv);
    sprt_attention_f32(fq, fk, fv, nullptr, fo, S, S, 0, Bt, heads, kv, D, 1, 0,
                       rotary, theta, 0.0, 7, 3, Bt, 0, heads, 0);
    narrow(fo, o, nq);
  });
  measure("attention_grad bf16", shape, "stored", bwd, [&] {
    sprt_attention_grad_typed(dout, q, k, v, nullptr, dq, dk, dv, S, S, 0, Bt,
                              heads, kv, D, 1, 0, rotary, theta, 0.0, 7, 3, Bt,
                              0, heads, 0, B);
  });
  measure("attention_grad bf16", shape, "before", bwd, [&] {
    widen(dout, fdout, nq), widen(q, fq, nq), widen(k, fk, nkv),
        widen(v, fv, nkv);
    sprt_attention_grad_f32(fdout, fq, fk, fv, nullptr, fdq, fdk, fdv, S, S, 0,
                            Bt, heads, kv, D, 1, 0, rotary, theta, 0.0, 7, 3,
                            Bt, 0, heads, 0, 0);
    narrow(fdq, dq, nq), narrow(fdk, dk, nkv), narrow(fdv, dv, nkv);
  });
  for (void *p :
       {q, k, v, o, dout, dq, dk, dv, (void *)fq, (void *)fk, (void *)fv,
        (void *)fo, (void *)fdout, (void *)fdq, (void *)fdk, (void *)fdv})
    SPRT_CUDA_CHECK(cudaFree(p));
}

/// sprt_convert between f32 and bf16 both ways on n elements; "scalar" is
/// the same call on buffers one element past their alignment, which takes
/// the one-element-per-thread kernel (the only one before).
void benchConvert(int64_t n) {
  const std::string shape = std::to_string(n);
  float *f = deviceFloats(size_t(n) + 4, 10);
  void *h = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&h, size_t(n + 4) * 2));
  const double bytes = double(n) * 6;
  measure("convert f32>bf16", shape, "vector", bytes,
          [&] { sprt_convert(f, SPRT_DTYPE_F32, h, SPRT_DTYPE_BF16, n); });
  measure("convert f32>bf16", shape, "scalar", bytes, [&] {
    sprt_convert(f + 1, SPRT_DTYPE_F32, static_cast<uint16_t *>(h) + 1,
                 SPRT_DTYPE_BF16, n);
  });
  measure("convert bf16>f32", shape, "vector", bytes,
          [&] { sprt_convert(h, SPRT_DTYPE_BF16, f, SPRT_DTYPE_F32, n); });
  measure("convert bf16>f32", shape, "scalar", bytes, [&] {
    sprt_convert(static_cast<uint16_t *>(h) + 1, SPRT_DTYPE_BF16, f + 1,
                 SPRT_DTYPE_F32, n);
  });
  SPRT_CUDA_CHECK(cudaFree(f));
  SPRT_CUDA_CHECK(cudaFree(h));
}

/// A device scalar holding `v`.
template <typename T> T *deviceScalar(T v) {
  T *d = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&d, sizeof(T)));
  SPRT_CUDA_CHECK(cudaMemcpy(d, &v, sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/// The optimizer step as a program runs it, one call per parameter tensor,
/// over GPT-2 124M's 148 tensors ("per-tensor"), and on its largest (wte,
/// "one tensor"): AdamW on f32 parameters (reads p, g, m, v; writes p, m,
/// v: 28 bytes an element) and on f32 master weights writing the bf16
/// parameter (30 bytes); the gradient norm's sum of squares over the same
/// tensors, as the multi-tensor list the program calls ("list") and one
/// call per tensor ("before").
void benchOptimizer() {
  std::vector<int64_t> sizes = {50257 * 768, 1024 * 768};
  for (int layer = 0; layer < 12; ++layer)
    for (int64_t n : {768, 768, 768 * 2304, 2304, 768 * 768, 768, 768, 768,
                      768 * 3072, 3072, 3072 * 768, 768})
      sizes.push_back(n);
  sizes.push_back(768);
  sizes.push_back(768);
  // Each tensor 16-byte aligned in one buffer per role.
  std::vector<int64_t> at;
  int64_t total = 0;
  for (int64_t n : sizes) {
    at.push_back(total);
    total += (n + 3) / 4 * 4;
  }
  float *p = deviceFloats(size_t(total), 21),
        *g = deviceFloats(size_t(total), 22);
  float *m = deviceFloats(size_t(total), 23),
        *v = deviceFloats(size_t(total), 24, 2.0f);
  void *half = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&half, size_t(total) * 2));
  float *scale = deviceScalar(1.0f), *sums = nullptr;
  SPRT_CUDA_CHECK(cudaMalloc(&sums, sizes.size() * sizeof(float)));
  double *lr = deviceScalar(1e-4);
  int64_t *step = deviceScalar<int64_t>(1);
  int64_t elems = 0;
  for (int64_t n : sizes)
    elems += n;
  const std::string all = "gpt2-124m " + std::to_string(sizes.size());
  const std::string one = std::to_string(sizes[0]);
  auto adamw = [&](size_t i) {
    sprt_adamw_f32(p + at[i], g + at[i], m + at[i], v + at[i], scale, sizes[i],
                   lr, 0.9, 0.999, 1e-8, 0.1, step);
  };
  auto master = [&](size_t i) {
    sprt_adamw_master_f32(p + at[i], static_cast<uint16_t *>(half) + at[i],
                          SPRT_DTYPE_BF16, g + at[i], m + at[i], v + at[i],
                          scale, sizes[i], lr, 0.9, 0.999, 1e-8, 0.1, step);
  };
  measure("adamw", all, "per-tensor", 28.0 * elems, [&] {
    for (size_t i = 0; i < sizes.size(); ++i)
      adamw(i);
  });
  measure("adamw", one, "per-tensor", 28.0 * sizes[0], [&] { adamw(0); });
  measure("adamw_master bf16", all, "per-tensor", 30.0 * elems, [&] {
    for (size_t i = 0; i < sizes.size(); ++i)
      master(i);
  });
  std::vector<const float *> xs;
  for (int64_t a : at)
    xs.push_back(g + a);
  measure("sum_squares", all, "list", 4.0 * elems, [&] {
    sprt_sum_squares_list_f32(int32_t(xs.size()), xs.data(), sizes.data(),
                              sums);
  });
  measure("sum_squares", all, "before", 4.0 * elems, [&] {
    for (size_t i = 0; i < sizes.size(); ++i)
      sprt_sum_squares_f32(xs[i], sizes[i], sums + i);
  });
  for (void *ptr : {(void *)p, (void *)g, (void *)m, (void *)v, half,
                    (void *)scale, (void *)sums, (void *)lr, (void *)step})
    SPRT_CUDA_CHECK(cudaFree(ptr));
}

void writeJson(const char *path, const char *status, const std::string &dev) {
  if (!path)
    return;
  FILE *f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "sprt_kernel_bench: cannot write %s\n", path);
    std::exit(1);
  }
  std::fprintf(f,
               "{\"status\": \"%s\", \"device\": \"%s\", \"reps\": %d, "
               "\"results\": [",
               status, dev.c_str(), reps);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    std::fprintf(f,
                 "%s\n {\"kernel\": \"%s\", \"shape\": \"%s\", \"path\": "
                 "\"%s\", \"bytes\": %.0f, \"median_us\": %.3f, \"gbps\": "
                 "%.2f, \"copy_gbps\": %.2f, \"ratio\": %.4f}",
                 i ? "," : "", r.kernel.c_str(), r.shape.c_str(),
                 r.path.c_str(), r.bytes, r.medianUs, r.gbps, r.copyGbps,
                 r.gbps / r.copyGbps);
  }
  std::fprintf(f, "]}\n");
  std::fclose(f);
}

} // namespace

int main(int argc, char **argv) {
  const char *json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
      json = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--json FILE] [--reps N]\n", argv[0]);
      return 2;
    }
  }
  if (const char *err = sprt_device_init(0)) {
    std::printf("skipped: no usable GPU (%s)\n", err);
    std::string e(err);
    std::replace(e.begin(), e.end(), '"', '\'');
    writeJson(json, "skipped", "none: " + e);
    return 0;
  }
  int device = 0;
  cudaDeviceProp prop;
  SPRT_CUDA_CHECK(cudaGetDevice(&device));
  SPRT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("device %s, %d SMs; median of %d calls\n", prop.name,
              prop.multiProcessorCount, reps);
  // The JSON is rewritten after each group ("running"), so a run stopped
  // by its time limit keeps what it measured.
  const std::function<void()> groups[] = {
      [] { benchNorms(8192, 768); },  // GPT-2 124M, seq 1024, batch 8
      [] { benchNorms(4096, 2048); }, // Llama-3.2-1B, seq 2048, batch 2
      [] { benchTypedNorms(8192, 768); },
      [] { benchTypedNorms(4096, 2048); },
      [] { benchTypedLoss(8192, 50257); }, // GPT-2 124M's logits
      [] {
        for (int64_t H : {768, 3072, 2304})
          benchBiasGrad(8192, H);
        for (int64_t H : {768, 3072, 2304})
          benchTypedBiasGrad(8192, H);
      },
      [] { benchConvert(8192 * 3072); }, // GPT-2 124M's MLP activations
      [] { benchEmbeddingGrad(8192, 50257, 768); },       // GPT-2 124M's wte
      [] { benchLinearGelu(8192, 768, 3072); },           // GPT-2 124M's c_fc
      [] { benchLinearBias(8192, 768, 2304); },           // GPT-2 124M's c_attn
      [] { benchLinearGeluGrad(8192, 3072, 768); },       // GPT-2 124M's MLP
      [] { benchLinearGradWeightBias(8192, 768, 2304); }, // GPT-2 124M's c_attn
      [] { benchTypedAttention(1024, 8, 12, 12, 64, 0); }, // GPT-2 124M
      [] { benchTypedAttention(2048, 2, 32, 8, 64, 64); }, // Llama-3.2-1B
      [] { benchOptimizer(); }, // last: the stage's time limit keeps the rest
  };
  try {
    for (const auto &group : groups) {
      group();
      writeJson(json, "running", prop.name);
    }
  } catch (const std::exception &e) {
    std::printf("failed: %s\n", e.what());
    writeJson(json, "failed", prop.name);
    return 1;
  }
  writeJson(json, "ok", prop.name);
  return 0;
}
