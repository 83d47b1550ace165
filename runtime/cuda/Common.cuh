//===- Common.cuh - shared pieces of the CUDA backend -----------*- CUDA
//-*-===//
//
// Error checking (every CUDA and cuBLAS call, every kernel launch), the
// process's compute stream and cuBLAS handle, launch geometry, warp and block
// reductions, and device scratch buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_COMMON_CUH
#define SPRT_CUDA_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sprt::cuda {

/// Throws std::runtime_error "CUDA error: <string> (<name>) in <what>".
[[noreturn]] void throwCudaError(cudaError_t err, const char *what);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char *what);

/// While this thread captures a step (sprt_graph_begin_capture): keeps the
/// first error, which the capture's end reports, instead of throwing, and
/// returns true; false when not capturing.
bool noteCaptureError(const std::string &error);

inline void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess &&
      !noteCaptureError(std::string(cudaGetErrorName(err)) + " in " + what))
    throwCudaError(err, what);
}
inline void checkCublas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS &&
      !noteCaptureError(std::string(cublasGetStatusName(status)) + " in " +
                        what))
    throwCublasError(status, what);
}

#define SPRT_CUDA_STR2(x) #x
#define SPRT_CUDA_STR(x) SPRT_CUDA_STR2(x)
#define SPRT_CUDA_WHERE __FILE__ ":" SPRT_CUDA_STR(__LINE__)
/// Checks a CUDA runtime call.
#define SPRT_CUDA_CHECK(expr)                                                  \
  ::sprt::cuda::check((expr), #expr " at " SPRT_CUDA_WHERE)
/// Checks a cuBLAS call.
#define SPRT_CUBLAS_CHECK(expr)                                                \
  ::sprt::cuda::checkCublas((expr), #expr " at " SPRT_CUDA_WHERE)
/// Checks the launch just made (configuration errors, earlier async faults).
#define SPRT_CUDA_CHECK_LAUNCH(name)                                           \
  ::sprt::cuda::check(cudaGetLastError(), name " launch at " SPRT_CUDA_WHERE)

/// The compute stream every kernel of this backend runs on, and the cuBLAS
/// handle bound to it. Initialises device 0 if sprt_device_init has not run
/// (and throws if that fails).
cudaStream_t stream();
cublasHandle_t cublas();

/// A device buffer of at least `bytes`, one per `slot`, reused across calls
/// and grown (cudaFree + cudaMalloc) when too small. Work using it is ordered
/// on the single compute stream, so reuse by the next kernel is safe. While
/// a step is being captured or a captured one is alive, a buffer that grows
/// is kept allocated (the graph's kernels still read it), not freed. Simple
/// for now: a caching allocator or the arena would avoid the synchronising
/// cudaFree on growth. GemmA, GemmB and GemmC are the typed GEMMs' widened
/// operands and f32 result (LinearTyped.cu), distinct slots as one call may
/// use all three. Init holds the draws sprt_init_normal recomputes on the
/// host (Init.cu).
enum class Scratch {
  RowStats,
  Reduce,
  AttentionStats,
  GemmA,
  GemmB,
  GemmC,
  Init,
  // Column partial sums over row tiles (ColumnSum.cuh): the bias gradient
  // and the norms' weight and bias gradients.
  ColumnPartials,
  // The cuDNN attention path (CudnnAttention.cu): q, k, v, out, dout and
  // their gradients in bf16 / f16, the statistics, the bias mask, the
  // dropout seed and the graphs' workspace.
  CudnnQ,
  CudnnK,
  CudnnV,
  CudnnO,
  CudnnDO,
  CudnnDQ,
  CudnnDK,
  CudnnDV,
  CudnnStats,
  CudnnBias,
  CudnnSeed,
  CudnnWorkspace,
  // The typed row kernels (TypedNorms.cu, and LossGrad.cu's mixed-type
  // cross-entropy gradient): f32 copies of mixed-type operands and results
  // (the fallback), and a norm's dw / db in f32 before their rounding.
  NormX,
  NormDy,
  NormWeight,
  NormBias,
  NormOut,
  NormColumns,
  // The typed attention's native path (TypedAttention.cu): f32 copies of
  // its stored tensors around the f32 kernels.
  AttentionQ,
  AttentionK,
  AttentionV,
  AttentionOut,
  AttentionDOut,
  AttentionDQ,
  AttentionDK,
  AttentionDV,
  // sprt_bias_grad_typed's f32 sums before their rounding to a bf16 / f16
  // gradient.
  BiasGradSums,
  // sprt_embedding_grad_typed's sort (Embedding.cu): the tokens' rows and
  // indices, unsorted and sorted, and CUB's temporary storage.
  EmbeddingSort,
  // cuBLASLt's workspace (LtGemm.cu).
  LtWorkspace,
  // The step's values (sprt/device.h's sprt_step_values), device copy.
  StepValues,
  // cuBLAS's workspace (cublasSetWorkspace, Device.cu's cublas()).
  CublasWorkspace,
  Count
};
void *scratch(Scratch slot, size_t bytes);

constexpr int kThreads = 256;

/// Blocks of kThreads covering n elements (grid-stride loops cover the rest).
inline unsigned gridFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks < 1)
    blocks = 1;
  return unsigned(blocks > 65535 * 8 ? 65535 * 8 : blocks);
}

/// A grid-stride loop over [0, n) with a 64-bit index.
#define SPRT_FOR_EACH(i, n)                                                    \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n);    \
       i += int64_t(gridDim.x) * blockDim.x)

/// Launches an elementwise kernel over n elements on the compute stream
/// (nothing when n <= 0) and checks the launch.
#define SPRT_LAUNCH(kernel, n, ...)                                            \
  do {                                                                         \
    if ((n) > 0) {                                                             \
      kernel<<<gridFor(n), kThreads, 0, stream()>>>(__VA_ARGS__);              \
      SPRT_CUDA_CHECK_LAUNCH(#kernel);                                         \
    }                                                                          \
  } while (0)

/// Checks a row count fits a 1-D grid of one block per row.
void checkRows(int64_t rows, const char *what);

template <typename T> __device__ inline T warpSum(T v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <typename T> __device__ inline T warpMax(T v) {
  for (int o = 16; o > 0; o >>= 1) {
    T u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u > v ? u : v;
  }
  return v;
}

/// Sum over the block (blockDim.x a multiple of 32, <= 1024); every thread
/// gets the result. `shared` holds 32 values. Fixed order for a given block
/// size, so results are reproducible run to run.
template <typename T> __device__ inline T blockSum(T v, T *shared) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nWarps = (blockDim.x + 31) >> 5;
  v = warpSum(v);
  __syncthreads(); // `shared` may still be read by a previous call
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  v = lane < nWarps ? shared[lane] : T(0);
  return warpSum(v);
}

/// Maximum over the block, as blockSum; -inf for an empty block.
__device__ inline float blockMax(float v, float *shared) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nWarps = (blockDim.x + 31) >> 5;
  v = warpMax(v);
  __syncthreads();
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  v = lane < nWarps ? shared[lane] : -INFINITY;
  return warpMax(v);
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_COMMON_CUH
