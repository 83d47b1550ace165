//===- Init.cpp - parameters drawn on every core --------------------------===//
//
// sprt_init_normal on the CPU: the shard is cut into pieces of consecutive
// elements, one per thread; each thread draws blocks of kLanes elements with
// the vectorised Philox and fast Box-Muller (sprt/fast_normal.h), recomputes
// the few draws that are not certainly exact with sprt::philox::normal, and
// stores them in the parameter's type. The values are those of
// sprt_normal, element by element, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "sprt/init.h"
#include "sprt/fast_normal.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

constexpr int kLanes = 256;

int hostThreads = 0;

int threadsToUse() {
  if (hostThreads > 0)
    return hostThreads;
  unsigned n = std::thread::hardware_concurrency();
  return n ? int(n) : 1;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SPRT_CLONES                                                            \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SPRT_CLONES
#endif

/// Words 0 and 1 of Philox4x32-10 (sprt/philox.h) for the counters
/// (index[i], streamId), i < kLanes, written out so that it vectorises.
SPRT_CLONES
void philoxPortable(uint64_t seed, uint64_t streamId, const uint64_t *index,
                    uint32_t *w0, uint32_t *w1) {
  const uint32_t key0 = uint32_t(seed), key1 = uint32_t(seed >> 32);
  for (int i = 0; i < kLanes; ++i) {
    uint32_t c0 = uint32_t(index[i]), c1 = uint32_t(index[i] >> 32),
             c2 = uint32_t(streamId), c3 = uint32_t(streamId >> 32);
    uint32_t k0 = key0, k1 = key1;
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = uint64_t(0xD2511F53u) * c0;
      uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
      uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
      uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
      c0 = n0;
      c1 = uint32_t(p1);
      c2 = n2;
      c3 = uint32_t(p0);
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    w0[i] = c0;
    w1[i] = c1;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The same with AVX-512F's 32 x 32 -> 64-bit multiply on eight counters at
/// a time (compilers vectorise the portable loop with a full 64-bit
/// multiply instead: 1.7x slower measured).
__attribute__((target("avx512f"))) void
philoxAvx512(uint64_t seed, uint64_t streamId, const uint64_t *index,
             uint32_t *w0, uint32_t *w1) {
  const __m512i m0 = _mm512_set1_epi64(0xD2511F53u),
                m1 = _mm512_set1_epi64(0xCD9E8D57u),
                low = _mm512_set1_epi64(0xffffffffu);
  for (int i = 0; i < kLanes; i += 8) {
    __m512i idx = _mm512_loadu_si512(index + i);
    __m512i c0 = _mm512_and_si512(idx, low), c1 = _mm512_srli_epi64(idx, 32),
            c2 = _mm512_set1_epi64(int64_t(streamId & 0xffffffffu)),
            c3 = _mm512_set1_epi64(int64_t(streamId >> 32));
    uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
    for (int r = 0; r < 10; ++r) {
      __m512i p0 = _mm512_mul_epu32(c0, m0), p1 = _mm512_mul_epu32(c2, m1);
      __m512i n0 =
          _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p1, 32), c1),
                           _mm512_set1_epi64(k0));
      __m512i n2 =
          _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p0, 32), c3),
                           _mm512_set1_epi64(k1));
      c0 = n0;
      c1 = _mm512_and_si512(p1, low);
      c2 = n2;
      c3 = _mm512_and_si512(p0, low);
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(w0 + i),
                        _mm512_cvtepi64_epi32(c0));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(w1 + i),
                        _mm512_cvtepi64_epi32(c1));
  }
}
#endif

void philoxWords(uint64_t seed, uint64_t streamId, const uint64_t *index,
                 uint32_t *w0, uint32_t *w1) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512)
    return philoxAvx512(seed, streamId, index, w0, w1);
#endif
  philoxPortable(seed, streamId, index, w0, w1);
}

/// value[i] = scale * normal(seed, streamId, index[i]) for i < kLanes.
SPRT_CLONES
void drawLanes(uint64_t seed, uint64_t streamId, const uint64_t *index,
               float scale, float *value) {
  uint32_t w0[kLanes], w1[kLanes];
  philoxWords(seed, streamId, index, w0, w1);
  int exact[kLanes], inexact = 0;
  for (int i = 0; i < kLanes; ++i)
    exact[i] = sprt::philox::fastNormal(w0[i], w1[i], value[i]);
  for (int i = 0; i < kLanes; ++i) {
    inexact += !exact[i];
    value[i] = scale * value[i];
  }
  // About one block in 128 has a draw to recompute.
  if (inexact)
    for (int i = 0; i < kLanes; ++i)
      if (!exact[i])
        value[i] = scale * sprt::philox::normal(seed, streamId, index[i]);
}

void store(const float *value, int64_t n, void *out, int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    std::memcpy(out, value, size_t(n) * sizeof(float));
  else
    sprt_convert(value, SPRT_DTYPE_F32, out, dtype, n);
}

size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return 4;
  case SPRT_DTYPE_BF16:
  case SPRT_DTYPE_F16:
    return 2;
  default:
    std::abort();
  }
}

/// Elements [begin, end) of the shard.
void drawPiece(const sprt_shard_map &map, uint64_t seed, uint64_t streamId,
               float scale, char *out, int32_t dtype, float *master,
               int64_t masterBegin, int64_t masterCount, int64_t begin,
               int64_t end) {
  uint64_t index[kLanes];
  float value[kLanes];
  const size_t size = dtypeSize(dtype);
  for (int64_t first = begin; first < end; first += kLanes) {
    int64_t n = std::min<int64_t>(kLanes, end - first);
    int k = 0;
    sprt::forEachShardRun(map, first, n,
                          [&](int64_t, int64_t global, int64_t length) {
                            for (int64_t i = 0; i < length; ++i)
                              index[k++] = uint64_t(global + i);
                          });
    // A short last block draws its tail again (values unused).
    for (; k < kLanes; ++k)
      index[k] = index[0];
    drawLanes(seed, streamId, index, scale, value);
    store(value, n, out + size_t(first) * size, dtype);
    if (!master)
      continue;
    int64_t lo = std::max(first, masterBegin),
            hi = std::min(first + n, masterBegin + masterCount);
    if (lo < hi)
      std::memcpy(master + (lo - masterBegin), value + (lo - first),
                  size_t(hi - lo) * sizeof(float));
  }
}

} // namespace

extern "C" {

void sprt_set_host_threads(int32_t threads) { hostThreads = threads; }

void sprt_init_normal(const sprt_shard_map *map, uint64_t seed,
                      uint64_t streamId, float scale, void *out, int32_t dtype,
                      float *master, int64_t master_begin,
                      int64_t master_count) {
  const int64_t n = sprt::shardElements(*map);
  // At least a million elements a thread: below that a thread costs more
  // than it saves.
  const int64_t perThread = int64_t(1) << 20;
  int threads =
      int(std::min<int64_t>(threadsToUse(), (n + perThread - 1) / perThread));
  threads = std::max(threads, 1);
  // Pieces in whole blocks of lanes.
  int64_t piece = (n + threads - 1) / threads;
  piece = (piece + kLanes - 1) / kLanes * kLanes;
  auto run = [&](int64_t t) {
    int64_t begin = t * piece, end = std::min(n, begin + piece);
    if (begin < end)
      drawPiece(*map, seed, streamId, scale, static_cast<char *>(out), dtype,
                master, master_begin, master_count, begin, end);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(run, int64_t(t));
  run(0);
  for (std::thread &t : pool)
    t.join();
}

void sprt_init_constant(int64_t n, float value, void *out, int32_t dtype,
                        float *master, int64_t master_count) {
  std::vector<float> block(size_t(std::min<int64_t>(n, 1 << 16)), value);
  const size_t size = dtypeSize(dtype);
  for (int64_t first = 0; first < n; first += int64_t(block.size())) {
    int64_t k = std::min<int64_t>(int64_t(block.size()), n - first);
    store(block.data(), k, static_cast<char *>(out) + size_t(first) * size,
          dtype);
  }
  if (master)
    std::fill(master, master + master_count, value);
}

} // extern "C"
