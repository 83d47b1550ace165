//===- SprtEmu.h - the CUDA backend's kernels on the CPU ---------*- C++
//-*-===//
//
// Force-included (-include) before each of runtime/cuda's sources, rewritten
// by cu2cpp. A kernel's threads run as fibers of one host thread, a block at
// a time: __syncthreads and the warp shuffles switch between them, so shared
// memory (__shared__ is a static, one block being alive at once), barriers
// and shuffles behave as on the device. What the emulator checks that a GPU
// would refuse or that is undefined there (a launch past the device's
// limits, a barrier or a shuffle not every thread reaches, a copy from
// memory that is not the device's, a synchronising call while a stream is
// captured) is an error naming the kernel or the call. Rounding is not the
// device's: the checks are of logic, indexing and synchronisation.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_EMU_H
#define SPRT_EMU_H

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

// One block is alive at a time, so a static is its shared memory.
#undef __shared__
#define __shared__ static

namespace sprt_emu {

/// The running thread's coordinates (the fiber's).
struct ThreadState {
  uint3 idx, block;
  dim3 blockDims, gridDims;
};
extern ThreadState *current;

/// A launch's <<<grid, block, shared bytes, stream>>>.
struct Config {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
  Config(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = nullptr)
      : grid(g), block(b), shared(s), stream(st) {}
};

/// Runs `body` once per thread of the grid (or records it while `stream`
/// is captured); `kernel` names it in errors.
void runGrid(const Config &c, const char *kernel, std::function<void()> body);

/// The arguments evaluated once, as a launch does, and the kernel called
/// with them by every thread.
template <typename K, typename... A>
void launch(const Config &c, const char *name, K kernel, A &&...args) {
  std::tuple<std::decay_t<A>...> values(std::forward<A>(args)...);
  runGrid(c, name, [kernel, values] { std::apply(kernel, values); });
}

/// Runs `op` now, or records it in the graph `stream` is capturing: the
/// stream-ordered work of the runtime API, cuBLAS and CUB (Runtime.cpp).
/// cudaErrorStreamCaptureImplicit where another stream is being captured
/// and `stream` is the legacy default one.
cudaError_t enqueue(cudaStream_t stream, std::function<void()> op);

/// The block's dynamic shared memory (its launch's third argument).
void *dynamicSharedBytes();
template <typename T> T *dynamicShared() {
  return static_cast<T *>(dynamicSharedBytes());
}

void syncThreads();
void syncWarp();
/// Every lane of the warp publishes `bits` and gets lane `src`'s.
uint64_t exchange(uint64_t bits, int src);

template <typename T> uint64_t toBits(T v) {
  static_assert(sizeof(T) <= 8, "a shuffle moves 8 bytes at most");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <typename T> T fromBits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
inline int lane() {
  const ThreadState &t = *current;
  const unsigned linear =
      t.idx.x + t.blockDims.x * (t.idx.y + t.blockDims.y * t.idx.z);
  return int(linear & 31);
}

} // namespace sprt_emu

#define threadIdx (::sprt_emu::current->idx)
#define blockIdx (::sprt_emu::current->block)
#define blockDim (::sprt_emu::current->blockDims)
#define gridDim (::sprt_emu::current->gridDims)

inline void __syncthreads() { sprt_emu::syncThreads(); }
inline void __syncwarp(unsigned = 0xffffffffu) { sprt_emu::syncWarp(); }

template <typename T> T __shfl_sync(unsigned, T v, int src, int width = 32) {
  const int l = sprt_emu::lane();
  const int from = (l & ~(width - 1)) + (src & (width - 1));
  return sprt_emu::fromBits<T>(sprt_emu::exchange(sprt_emu::toBits(v), from));
}
template <typename T>
T __shfl_xor_sync(unsigned, T v, int mask, int width = 32) {
  const int l = sprt_emu::lane();
  int from = l ^ mask;
  if ((from & ~(width - 1)) != (l & ~(width - 1)))
    from = l;
  return sprt_emu::fromBits<T>(sprt_emu::exchange(sprt_emu::toBits(v), from));
}
template <typename T>
T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  const int l = sprt_emu::lane();
  int from = l + int(delta);
  if ((from & ~(width - 1)) != (l & ~(width - 1)))
    from = l;
  return sprt_emu::fromBits<T>(sprt_emu::exchange(sprt_emu::toBits(v), from));
}

// Fibers never run at once: a read-modify-write is atomic.
template <typename T> T atomicAdd(T *address, T value) {
  T old = *address;
  *address = old + value;
  return old;
}
template <typename T> T __ldg(const T *p) { return *p; }

inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __saturatef(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
inline float __int_as_float(int x) {
  return sprt_emu::fromBits<float>(uint32_t(x));
}
inline int __float_as_int(float x) {
  return int(uint32_t(sprt_emu::toBits(x)));
}
inline float __uint_as_float(unsigned x) {
  return sprt_emu::fromBits<float>(x);
}
inline unsigned __float_as_uint(float x) {
  return unsigned(sprt_emu::toBits(x));
}
inline double __longlong_as_double(long long x) {
  return sprt_emu::fromBits<double>(uint64_t(x));
}
inline long long __double_as_longlong(double x) {
  return (long long)sprt_emu::toBits(x);
}
using std::max;
using std::min;

#endif // SPRT_EMU_H
