//===- SampleOrder.h - the shuffled order of a dataset's samples -*- C++
//-*-===//
//
// A dataset of N samples (sequence windows) is read in epochs: global sample
// k (the sequences of earlier steps + row, Batcher::firstSequence) is in
// epoch k / N and is sample perm_e[k mod N] of the data, perm_e a
// permutation of 0..N-1 drawn from the data seed and the epoch alone
// (Fisher-Yates over splitmix64), so every rank computes the same order,
// each epoch reshuffles, and the data position is a function of (seed, k):
// a resumed run reads on exactly.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_SAMPLEORDER_H
#define SPRT_DRIVER_SAMPLEORDER_H

#include <cstdint>
#include <vector>

namespace sprt {

class SampleOrder {
public:
  /// `samples` samples per epoch (> 0), shuffled from `seed`.
  void reset(int64_t samples, uint64_t seed);
  int64_t samples() const { return n; }
  int64_t epochOf(int64_t k) const { return k / n; }
  /// The sample that global sample `k` reads.
  int64_t sampleAt(int64_t k);
  /// The permutation of epoch `epoch` (for tests).
  const std::vector<int64_t> &permutation(int64_t epoch);

private:
  int64_t n = 0;
  uint64_t seed = 0;
  int64_t cachedEpoch = -1;
  std::vector<int64_t> perm;
};

} // namespace sprt

#endif // SPRT_DRIVER_SAMPLEORDER_H
