//===- CudnnGraphs.h - cuDNN fused attention graphs, plan cache -*- C++ -*-===//
//
// The part of the cuDNN attention path that speaks cudnn-frontend
// (CudnnGraphs.cpp, a host C++ file: the frontend's headers are heavy and
// stay in one translation unit). It loads cuDNN at run time (dlopen of
// libcudnn.so.9: a program built with cuDNN still starts where the library
// is missing, and falls back to the native kernels), builds one forward and
// one backward SDPA graph per shape on first use and keeps them (failures
// too, with their reason), and runs them on the backend's stream.
//
// Tensors are in seqpar's [S, B, heads, D] order (dims {B, heads, S, D},
// strides {heads D, D, B heads D, 1}), in bf16 or f16; the softmax
// statistics (log-sum-exp of the scaled scores, natural log) are float
// [B, heads, Sq]. CudnnAttention.cu stages the f32 tensors of the sprt_*
// calls into these.
//
// Without cuDNN at build time (SEQPAR_HAVE_CUDNN off) CudnnAbsent.cpp
// provides these functions, each answering why cuDNN is not there.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_CUDNNGRAPHS_H
#define SPRT_CUDA_CUDNNGRAPHS_H

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace sprt::cuda::cudnn {

enum class IoType : int32_t { BF16, F16 };

/// How keys are hidden from queries. Band: key j is visible to query row i
/// iff j <= i + rightBound (cuDNN's top-left diagonal band; causal at
/// rightBound 0). Bias: an additive [B, 1, Sq, Sk] mask (0 or the io type's
/// lowest value), for masks a band cannot say (documents, blocks below the
/// diagonal).
enum class Mask : int32_t { None, Band, Bias };

/// Everything a plan depends on: the cache key.
struct Shape {
  int64_t B = 0, heads = 0, kvHeads = 0, Sq = 0, Sk = 0, D = 0;
  IoType io = IoType::BF16;
  Mask mask = Mask::None;
  int64_t rightBound = 0;
  float dropout = 0.0f; // probability; 0: none
  bool operator==(const Shape &o) const;
  std::string describe() const;
};

/// Device pointers of one call (those a graph does not use may be null).
struct Tensors {
  const void *q = nullptr, *k = nullptr, *v = nullptr, *bias = nullptr;
  void *o = nullptr;        // forward: written; backward: read
  const void *dO = nullptr; // backward
  void *dq = nullptr, *dk = nullptr, *dv = nullptr;
  float *stats = nullptr;  // forward: written; backward: read
  int64_t *seed = nullptr; // dropout seed and offset, one int64 each
  int64_t *offset = nullptr;
};

/// Device memory for a graph's workspace (the backend's scratch).
using WorkspaceFn = void *(*)(size_t bytes);

/// Loads cuDNN once: empty on success, else why it cannot be used.
const std::string &load();
/// "9.19.0 (frontend 1.32.0)", or empty before a successful load().
std::string version();

/// Builds the shape's forward (or backward) plan once (kept, as is a
/// failure), then runs it on `stream`. Empty on success; else why this
/// shape cannot run on cuDNN, and nothing was launched.
std::string prepareForward(const Shape &shape);
std::string prepareBackward(const Shape &shape);
std::string forward(const Shape &shape, const Tensors &t, cudaStream_t stream,
                    WorkspaceFn workspace);
std::string backward(const Shape &shape, const Tensors &t, cudaStream_t stream,
                     WorkspaceFn workspace);

/// Plans built so far and their largest workspace, for the start-up report.
int64_t planCount();
int64_t largestWorkspace();

} // namespace sprt::cuda::cudnn

#endif // SPRT_CUDA_CUDNNGRAPHS_H
