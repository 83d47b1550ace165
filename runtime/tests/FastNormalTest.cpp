//===- FastNormalTest.cpp - the checked fast Box-Muller -------------------===//
//
// sprt/fast_normal.h claims: whenever fastNormal calls its result exact, it
// is sprt::philox::normal's float bit for bit, and it calls few results
// inexact. Checked on 2^22 draws of two streams, with the inexact ones
// counted (about 2^-15 expected: the 2^-40 band around float rounding
// boundaries).
//
// Also forEachShardRun (sprt/init.h), against the element-by-element
// coordinates.
//
//===----------------------------------------------------------------------===//

#include "sprt/fast_normal.h"
#include "sprt/init.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

TEST(FastNormal, ExactWhereItSaysSo) {
  const int64_t n = int64_t(1) << 22;
  for (uint64_t stream : {uint64_t(3), uint64_t(0xdeadbeef12345678ull)}) {
    const uint64_t seed = 0x0123456789abcdefull;
    int64_t inexact = 0, wrong = 0, differs = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t w[4];
      sprt::philox::draw(seed, stream, uint64_t(i), w);
      float fast;
      bool exact = sprt::philox::fastNormal(w[0], w[1], fast);
      float ref = sprt::philox::normal(seed, stream, uint64_t(i));
      bool same = std::memcmp(&fast, &ref, sizeof fast) == 0;
      inexact += !exact;
      differs += !same;
      wrong += exact && !same;
    }
    EXPECT_EQ(wrong, 0) << "results called exact that differ";
    // 2^-15 of 2^22 is 128 expected; far fewer than 1 in 1,000.
    EXPECT_LT(inexact, n / 1000);
    EXPECT_LE(differs, inexact);
    std::printf("stream %llu: %lld of %lld draws recomputed, %lld of them "
                "differed\n",
                (unsigned long long)stream, (long long)inexact, (long long)n,
                (long long)differs);
  }
}

TEST(FastNormal, EdgeWords) {
  // u1 = 1 (log 0: the sign of zero) and the quadrant boundaries of u2.
  for (uint32_t w0 : {0u, 1u, 0x7fffffffu, 0xfffffffeu, 0xffffffffu})
    for (uint32_t w1 : {0u, 0x40000000u, 0x80000000u, 0xc0000000u, 0xffffffffu,
                        0x3fffffffu}) {
      float fast;
      bool exact = sprt::philox::fastNormal(w0, w1, fast);
      // The reference's formula on the same words.
      const double twoM32 = 1.0 / 4294967296.0;
      double u1 = (double(w0) + 1.0) * twoM32, u2 = double(w1) * twoM32;
      float ref = float(std::sqrt(-2.0 * std::log(u1)) *
                        std::cos(6.283185307179586476925286766559 * u2));
      if (exact) {
        EXPECT_EQ(std::memcmp(&fast, &ref, 4), 0)
            << "w0 " << w0 << " w1 " << w1 << ": " << fast << " vs " << ref;
      }
      if (w0 == 0xffffffffu) {
        EXPECT_FALSE(exact) << "u1 = 1 must be recomputed";
      }
    }
}

TEST(ShardRuns, MatchElementCoordinates) {
  // [4, 6, 30]: dim 0 rows 2..3, dim 2 three blocks of 10 of which the
  // shard holds 4 from position 5.
  sprt_shard_map map{};
  map.rank = 3;
  const int64_t ls[3] = {2, 6, 12}, gs[3] = {4, 6, 30}, lb[3] = {2, 6, 4},
                gb[3] = {4, 6, 10}, off[3] = {2, 0, 5};
  for (int d = 0; d < 3; ++d) {
    map.local_shape[d] = ls[d];
    map.global_shape[d] = gs[d];
    map.local_block[d] = lb[d];
    map.global_block[d] = gb[d];
    map.offset[d] = off[d];
  }
  const int64_t n = sprt::shardElements(map);
  ASSERT_EQ(n, 2 * 6 * 12);
  std::vector<int64_t> want(static_cast<size_t>(n));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 6; ++b)
      for (int64_t c = 0; c < 12; ++c)
        want[size_t((a * 6 + b) * 12 + c)] =
            ((a + 2) * 6 + b) * 30 + (c / 4) * 10 + 5 + c % 4;
  // Every sub-range, so runs that start and end mid-block are covered.
  for (int64_t begin = 0; begin < n; begin += 7)
    for (int64_t count : {int64_t(1), int64_t(3), int64_t(50), n - begin}) {
      std::vector<int64_t> got(static_cast<size_t>(n), -1);
      int64_t next = begin;
      sprt::forEachShardRun(map, begin, count,
                            [&](int64_t local, int64_t global, int64_t len) {
                              EXPECT_EQ(local, next);
                              next += len;
                              for (int64_t i = 0; i < len; ++i)
                                got[size_t(local + i)] = global + i;
                            });
      EXPECT_EQ(next, std::min(n, begin + count));
      for (int64_t e = begin; e < std::min(n, begin + count); ++e)
        ASSERT_EQ(got[size_t(e)], want[size_t(e)])
            << "element " << e << " of [" << begin << ", +" << count << ")";
    }
}

} // namespace
