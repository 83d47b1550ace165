//===- SampleOrder.cpp - the shuffled order of a dataset's samples --------===//

#include "SampleOrder.h"

#include <cstddef>
#include <cstdint>
#include <utility>

using namespace sprt;

/// splitmix64: the next 64 random bits of `state`.
static uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void SampleOrder::reset(int64_t samples, uint64_t s) {
  n = samples;
  seed = s;
  cachedEpoch = -1;
  perm.clear();
}

const std::vector<int64_t> &SampleOrder::permutation(int64_t epoch) {
  if (epoch == cachedEpoch)
    return perm;
  perm.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i)
    perm[size_t(i)] = i;
  // The epoch's own stream: the seed and the epoch mixed.
  uint64_t state = seed ^ (uint64_t(epoch) * 0xd1b54a32d192ed03ull);
  splitmix64(state);
  for (int64_t i = n - 1; i > 0; --i) {
    // Unbiased draw in [0, i] by rejection.
    const uint64_t range = uint64_t(i) + 1;
    const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    uint64_t r;
    do
      r = splitmix64(state);
    while (r >= limit);
    std::swap(perm[size_t(i)], perm[size_t(r % range)]);
  }
  cachedEpoch = epoch;
  return perm;
}

int64_t SampleOrder::sampleAt(int64_t k) {
  return permutation(epochOf(k))[size_t(k % n)];
}
