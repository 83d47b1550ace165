//===- DropoutConformanceTest.cpp - dropout masks bit for bit -------------===//
//
// The mask is the rule of sprt/kernels.h evaluated on the host with
// sprt_uniform (the shared Philox header compiled by the C++ compiler):
// element e is kept iff uniform(seed, stream, global index of e) >= rate.
// Both backends must reproduce it exactly, and kept values exactly
// x * float(1 / (1 - rate)).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/kernels.h"

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;

namespace {

using Dropout = DeviceTest;

// A [4, 6, 10] shard at offset (1, 3, 20) of a [8, 12, 40] tensor.
void checkShard(double rate, bool withMask) {
  const int64_t shape[3] = {4, 6, 10}, global[3] = {8, 12, 40},
                offset[3] = {1, 3, 20};
  const int64_t n = shape[0] * shape[1] * shape[2];
  const uint64_t seed = 0x1234567890abcdefull, stream = 99;
  auto x = sprt_test::randomFloats(size_t(n), 31);
  std::vector<float> y(static_cast<size_t>(n));
  std::vector<uint8_t> mask(static_cast<size_t>(n));
  const float scale = rate < 1.0 ? float(1.0 / (1.0 - rate)) : 0.0f;
  int64_t kept = 0;
  for (int64_t a = 0; a < shape[0]; ++a)
    for (int64_t b = 0; b < shape[1]; ++b)
      for (int64_t c = 0; c < shape[2]; ++c) {
        const int64_t e = (a * shape[1] + b) * shape[2] + c;
        const uint64_t g = uint64_t(
            ((a + offset[0]) * global[1] + (b + offset[1])) * global[2] +
            (c + offset[2]));
        const bool keep =
            rate <= 0.0 || double(sprt_uniform(seed, stream, g)) >= rate;
        kept += keep;
        mask[e] = keep;
        y[e] = keep ? (rate <= 0.0 ? x[e] : x[e] * scale) : 0.0f;
      }
  if (rate > 0.0 && rate < 1.0) { // the draw is not degenerate
    EXPECT_GT(kept, 0);
    EXPECT_LT(kept, n);
  }
  DeviceBuffer<float> dX(x), dY(nans(static_cast<size_t>(n)));
  DeviceBuffer<uint8_t> dMask(std::vector<uint8_t>(size_t(n), 7));
  sprt_dropout_f32(dX, dY, withMask ? dMask.get() : nullptr, 3, shape, global,
                   offset, rate, seed, stream);
  const std::string what = "dropout rate " + std::to_string(rate);
  expectBitwiseEqual(what, dY.download(), y);
  if (withMask) {
    EXPECT_EQ(dMask.download(), mask) << what << " mask";
  }
}

TEST_F(Dropout, ShardMasksMatchTheRuleBitForBit) {
  checkShard(0.3, true);
  checkShard(0.9, true);
  checkShard(0.5, false);
}

TEST_F(Dropout, RateZeroCopiesAndRateOneZeroes) {
  checkShard(0.0, true);
  checkShard(1.0, true);
}

TEST_F(Dropout, LargeFlatTensor) {
  // Many blocks and the 64-bit index path: global offset past 2^32.
  const int64_t n = 100000;
  const int64_t shape[1] = {n}, global[1] = {int64_t(1) << 33},
                offset[1] = {(int64_t(1) << 32) + 5};
  auto x = sprt_test::randomFloats(size_t(n), 32);
  std::vector<float> y(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e)
    y[e] = double(sprt_uniform(7, 8, uint64_t(offset[0] + e))) >= 0.25
               ? x[e] * float(1.0 / 0.75)
               : 0.0f;
  DeviceBuffer<float> dX(x), dY(nans(static_cast<size_t>(n)));
  sprt_dropout_f32(dX, dY, nullptr, 1, shape, global, offset, 0.25, 7, 8);
  expectBitwiseEqual("dropout flat", dY.download(), y);
}

} // namespace
