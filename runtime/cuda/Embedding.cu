//===- Embedding.cu - the embedding and its gradient, without atomics -----===//
//
// The lookup copies each row as stored (zeros for ids outside this rank's
// vocabulary). The gradient is deterministic and free of contended atomics:
// the tokens' rows (ids outside the range keyed V, past every row) are
// sorted with their token index by CUB's radix sort, which is stable, so
// each row's tokens stay in token order; dtable is zeroed and one thread per
// (run of equal rows, column) sums that run's dy elements in f32 in token
// order and rounds the sum once into dtable's type. Those are the CPU
// backend's sums in its order (TypedEmbedding.cpp), so both backends give
// the same bits, run to run. A frequent token makes a long run: its threads
// add one row of dy per token, as the atomics they replace added one.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "Quad.cuh"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cub/device/device_radix_sort.cuh>

using namespace sprt::cuda;

namespace {

template <typename E>
__global__ void embeddingKernel(const int64_t *__restrict__ ids,
                                const E *__restrict__ table, E *__restrict__ y,
                                int64_t T, int64_t V, int64_t H,
                                int64_t vocabOffset) {
  SPRT_FOR_EACH(e, T * H) {
    const int64_t t = e / H, i = e % H;
    const int64_t r = ids[t] - vocabOffset;
    y[e] = (r >= 0 && r < V) ? table[r * H + i] : E(0);
  }
}

/// keys[t] = the local row of token t (V where the id is outside this
/// rank's rows), tokens[t] = t.
__global__ void rowKeysKernel(const int64_t *__restrict__ ids,
                              int32_t *__restrict__ keys,
                              int32_t *__restrict__ tokens, int64_t T,
                              int64_t V, int64_t vocabOffset) {
  SPRT_FOR_EACH(t, T) {
    const int64_t r = ids[t] - vocabOffset;
    keys[t] = int32_t(r >= 0 && r < V ? r : V);
    tokens[t] = int32_t(t);
  }
}

/// For each run of equal rows in `keys` (sorted) and each column: the sum
/// of the run's tokens' dy in f32, in token order, from +0 as the CPU adds
/// them, rounded once into dtable.
template <int32_t DY, int32_t DT>
__global__ void
rowSumsKernel(const int32_t *__restrict__ keys,
              const int32_t *__restrict__ tokens, const void *__restrict__ dy,
              void *__restrict__ dtable, int64_t T, int64_t V, int64_t H) {
  SPRT_FOR_EACH(e, T * H) {
    const int64_t j = e / H, i = e % H;
    const int32_t r = keys[j];
    if (r >= V || (j > 0 && keys[j - 1] == r))
      continue;
    float acc = 0.0f;
    for (int64_t k = j; k < T && keys[k] == r; ++k)
      acc = __fadd_rn(acc, Quad<DY>::loadOne(dy, int64_t(tokens[k]) * H + i));
    Quad<DT>::storeOne(dtable, int64_t(r) * H + i, acc);
  }
}

template <int32_t DY>
void launchRowSums(const int32_t *keys, const int32_t *tokens, const void *dy,
                   void *dtable, int32_t dtableDtype, int64_t T, int64_t V,
                   int64_t H) {
  if (dtableDtype == SPRT_DTYPE_F32)
    SPRT_LAUNCH((rowSumsKernel<DY, SPRT_DTYPE_F32>), T * H, keys, tokens, dy,
                dtable, T, V, H);
  else if (dtableDtype == SPRT_DTYPE_BF16)
    SPRT_LAUNCH((rowSumsKernel<DY, SPRT_DTYPE_BF16>), T * H, keys, tokens, dy,
                dtable, T, V, H);
  else
    SPRT_LAUNCH((rowSumsKernel<DY, SPRT_DTYPE_F16>), T * H, keys, tokens, dy,
                dtable, T, V, H);
}

size_t elementBytes(int32_t dtype, const char *fn) {
  checkDtypeCode(dtype, fn);
  return dtype == SPRT_DTYPE_F32 ? 4 : 2;
}

} // namespace

extern "C" {

void sprt_embedding_f32(const int64_t *ids, const float *table, float *y,
                        int64_t T, int64_t V, int64_t H, int64_t vocab_offset) {
  SPRT_LAUNCH(embeddingKernel<float>, T * H, ids, table, y, T, V, H,
              vocab_offset);
}

void sprt_embedding_typed(const int64_t *ids, const void *table, void *y,
                          int64_t T, int64_t V, int64_t H, int64_t vocab_offset,
                          int32_t dtype) {
  if (elementBytes(dtype, "sprt_embedding_typed") == 4)
    sprt_embedding_f32(ids, static_cast<const float *>(table),
                       static_cast<float *>(y), T, V, H, vocab_offset);
  else
    SPRT_LAUNCH(embeddingKernel<uint16_t>, T * H, ids,
                static_cast<const uint16_t *>(table),
                static_cast<uint16_t *>(y), T, V, H, vocab_offset);
}

void sprt_embedding_grad_typed(const int64_t *ids, const void *dy,
                               int32_t dy_dtype, void *dtable,
                               int32_t dtable_dtype, int64_t T, int64_t V,
                               int64_t H, int64_t vocab_offset) {
  const char *fn = "sprt_embedding_grad_typed";
  const size_t outBytes = elementBytes(dtable_dtype, fn);
  elementBytes(dy_dtype, fn);
  if (V <= 0 || H <= 0)
    return;
  if (T > INT32_MAX || V >= INT32_MAX)
    throw std::runtime_error(std::string(fn) + ": " + std::to_string(T) +
                             " tokens or " + std::to_string(V) +
                             " rows exceed the 32-bit sort keys");
  SPRT_CUDA_CHECK(
      cudaMemsetAsync(dtable, 0, size_t(V * H) * outBytes, stream()));
  if (T <= 0)
    return;
  // Four arrays of T int32 (keys and tokens, unsorted and sorted), then
  // CUB's temporary storage, in one scratch slot.
  int endBit = 1;
  while (endBit < 31 && (int64_t(1) << endBit) <= V)
    ++endBit;
  size_t sortBytes = 0;
  SPRT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, sortBytes, static_cast<const int32_t *>(nullptr),
      static_cast<int32_t *>(nullptr), static_cast<const int32_t *>(nullptr),
      static_cast<int32_t *>(nullptr), int(T), 0, endBit, stream()));
  const size_t arrayBytes = (size_t(T) * sizeof(int32_t) + 255) / 256 * 256;
  char *base = static_cast<char *>(
      scratch(Scratch::EmbeddingSort, 4 * arrayBytes + sortBytes));
  auto *keys = reinterpret_cast<int32_t *>(base);
  auto *tokens = reinterpret_cast<int32_t *>(base + arrayBytes);
  auto *sortedKeys = reinterpret_cast<int32_t *>(base + 2 * arrayBytes);
  auto *sortedTokens = reinterpret_cast<int32_t *>(base + 3 * arrayBytes);
  SPRT_LAUNCH(rowKeysKernel, T, ids, keys, tokens, T, V, vocab_offset);
  SPRT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      base + 4 * arrayBytes, sortBytes, keys, sortedKeys, tokens, sortedTokens,
      int(T), 0, endBit, stream()));
  if (dy_dtype == SPRT_DTYPE_F32)
    launchRowSums<SPRT_DTYPE_F32>(sortedKeys, sortedTokens, dy, dtable,
                                  dtable_dtype, T, V, H);
  else if (dy_dtype == SPRT_DTYPE_BF16)
    launchRowSums<SPRT_DTYPE_BF16>(sortedKeys, sortedTokens, dy, dtable,
                                   dtable_dtype, T, V, H);
  else
    launchRowSums<SPRT_DTYPE_F16>(sortedKeys, sortedTokens, dy, dtable,
                                  dtable_dtype, T, V, H);
}

void sprt_embedding_grad_f32(const int64_t *ids, const float *dy, float *dtable,
                             int64_t T, int64_t V, int64_t H,
                             int64_t vocab_offset) {
  sprt_embedding_grad_typed(ids, dy, SPRT_DTYPE_F32, dtable, SPRT_DTYPE_F32, T,
                            V, H, vocab_offset);
}

} // extern "C"
