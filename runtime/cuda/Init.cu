//===- Init.cu - parameters drawn on the device ---------------------------===//
//
// sprt_init_normal on the GPU: one thread per element draws Philox and the
// fast Box-Muller (sprt/fast_normal.h) with the global index of its element
// and stores it in the parameter's type (and its master slice in f32). The
// few draws not certainly equal to sprt_normal's are listed; the host
// recomputes them with sprt_normal and a second kernel writes them. The
// values are the CPU backend's, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "sprt/fast_normal.h"
#include "sprt/init.h"
#include "sprt/kernels.h"

#include <vector>

using namespace sprt::cuda;

namespace {

/// Elements a launch covers: the list of draws to recompute holds at most
/// kMisses of them (about kChunk * 2^-15 are expected).
constexpr int64_t kChunk = int64_t(1) << 26;
constexpr int64_t kMisses = int64_t(1) << 16;

__device__ int64_t globalIndexOf(const sprt_shard_map &map, int64_t local) {
  int64_t coord[SPRT_MAX_SHARD_DIMS];
  for (int32_t d = map.rank - 1; d >= 0; --d) {
    coord[d] = local % map.local_shape[d];
    local /= map.local_shape[d];
  }
  int64_t global = 0;
  for (int32_t d = 0; d < map.rank; ++d) {
    int64_t l = coord[d];
    global = global * map.global_shape[d] +
             (l / map.local_block[d]) * map.global_block[d] + map.offset[d] +
             l % map.local_block[d];
  }
  return global;
}

__device__ void storeDraw(float v, int64_t i, void *out, int32_t dtype,
                          float *master, int64_t masterBegin,
                          int64_t masterCount) {
  storeElement(out, dtype, i, v);
  if (master && i >= masterBegin && i < masterBegin + masterCount)
    master[i - masterBegin] = v;
}

__global__ void drawKernel(sprt_shard_map map, uint64_t seed, uint64_t streamId,
                           float scale, void *out, int32_t dtype, float *master,
                           int64_t masterBegin, int64_t masterCount,
                           int64_t first, int64_t n,
                           unsigned long long *missCount, int64_t *misses) {
  SPRT_FOR_EACH(k, n) {
    const int64_t i = first + k;
    uint32_t w[4];
    sprt::philox::draw(seed, streamId, uint64_t(globalIndexOf(map, i)), w);
    float v;
    if (!sprt::philox::fastNormal(w[0], w[1], v)) {
      unsigned long long at = atomicAdd(missCount, 1ull);
      if (at < (unsigned long long)kMisses)
        misses[at] = i;
    }
    storeDraw(scale * v, i, out, dtype, master, masterBegin, masterCount);
  }
}

__global__ void patchKernel(const int64_t *misses, const float *values,
                            int64_t n, void *out, int32_t dtype, float *master,
                            int64_t masterBegin, int64_t masterCount) {
  SPRT_FOR_EACH(k, n) {
    storeDraw(values[k], misses[k], out, dtype, master, masterBegin,
              masterCount);
  }
}

/// scale * sprt_normal of shard element i, on the host.
float hostDraw(const sprt_shard_map &map, uint64_t seed, uint64_t streamId,
               float scale, int64_t i) {
  float v = 0.0f;
  sprt::forEachShardRun(map, i, 1, [&](int64_t, int64_t global, int64_t) {
    v = scale * sprt_normal(seed, streamId, uint64_t(global));
  });
  return v;
}

} // namespace

extern "C" {

void sprt_set_host_threads(int32_t) {}

void sprt_init_normal(const sprt_shard_map *map, uint64_t seed,
                      uint64_t streamId, float scale, void *out, int32_t dtype,
                      float *master, int64_t master_begin,
                      int64_t master_count) {
  checkDtypeCode(dtype, "sprt_init_normal");
  const int64_t n = sprt::shardElements(*map);
  // The miss count, the list, then the recomputed values.
  char *buf = static_cast<char *>(
      scratch(Scratch::Init, 8 + size_t(kMisses) * (8 + sizeof(float))));
  auto *count = reinterpret_cast<unsigned long long *>(buf);
  auto *misses = reinterpret_cast<int64_t *>(buf + 8);
  auto *values = reinterpret_cast<float *>(buf + 8 + kMisses * 8);
  std::vector<int64_t> hostMisses;
  std::vector<float> hostValues;
  for (int64_t first = 0; first < n; first += kChunk) {
    const int64_t len = std::min(kChunk, n - first);
    SPRT_CUDA_CHECK(cudaMemsetAsync(count, 0, 8, stream()));
    drawKernel<<<gridFor(len), kThreads, 0, stream()>>>(
        *map, seed, streamId, scale, out, dtype, master, master_begin,
        master_count, first, len, count, misses);
    SPRT_CUDA_CHECK_LAUNCH("drawKernel");
    unsigned long long missed = 0;
    SPRT_CUDA_CHECK(
        cudaMemcpyAsync(&missed, count, 8, cudaMemcpyDeviceToHost, stream()));
    SPRT_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (missed == 0)
      continue;
    // More misses than the list holds (never expected): the chunk's every
    // element is recomputed.
    const bool whole = missed > (unsigned long long)kMisses;
    hostMisses.resize(whole ? size_t(len) : size_t(missed));
    if (whole)
      for (int64_t k = 0; k < len; ++k)
        hostMisses[size_t(k)] = first + k;
    else
      SPRT_CUDA_CHECK(cudaMemcpyAsync(hostMisses.data(), misses,
                                      hostMisses.size() * 8,
                                      cudaMemcpyDeviceToHost, stream()));
    SPRT_CUDA_CHECK(cudaStreamSynchronize(stream()));
    for (size_t at = 0; at < hostMisses.size(); at += size_t(kMisses)) {
      const size_t m = std::min(hostMisses.size() - at, size_t(kMisses));
      hostValues.resize(m);
      for (size_t k = 0; k < m; ++k)
        hostValues[k] =
            hostDraw(*map, seed, streamId, scale, hostMisses[at + k]);
      SPRT_CUDA_CHECK(cudaMemcpyAsync(misses, hostMisses.data() + at, m * 8,
                                      cudaMemcpyHostToDevice, stream()));
      SPRT_CUDA_CHECK(cudaMemcpyAsync(values, hostValues.data(),
                                      m * sizeof(float), cudaMemcpyHostToDevice,
                                      stream()));
      SPRT_LAUNCH(patchKernel, int64_t(m), misses, values, int64_t(m), out,
                  dtype, master, master_begin, master_count);
      // The host buffers are reused by the next piece.
      SPRT_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }
  }
}

namespace {
__global__ void constantKernel(int64_t n, float value, void *out, int32_t dtype,
                               float *master, int64_t masterCount) {
  SPRT_FOR_EACH(i, n) {
    storeElement(out, dtype, i, value);
    if (master && i < masterCount)
      master[i] = value;
  }
}
} // namespace

void sprt_init_constant(int64_t n, float value, void *out, int32_t dtype,
                        float *master, int64_t master_count) {
  checkDtypeCode(dtype, "sprt_init_constant");
  SPRT_LAUNCH(constantKernel, n, n, value, out, dtype, master, master_count);
}

} // extern "C"
