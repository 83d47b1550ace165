//===- DropoutTest.cpp - the dropout kernel vs its definition -------------===//
//
// sprt_dropout on CPU against its definition (the Philox draw of each
// element's global index, so a shard's mask is the unsharded tensor's
// slice), bit for bit: rates 0 and 1, in place and without a mask, scalars
// and vectors, sharded along one or two dimensions; the kept fraction and
// the mean of a large tensor near 1 - rate and 1.
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace sprt_test;

namespace {

//===------------------------------ dropout ------------------------------===//

// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    st[d] = st[d + 1] * shape[d + 1];
  return st;
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

TEST(Dropout, MatchesDefinition) {
  const std::vector<int64_t> shape = {3, 4, 5};
  const int64_t n = numel(shape);
  const double rate = 0.3;
  const uint64_t seed = 99, stream = 5;
  auto x = randomFloats(size_t(n), 10);
  std::vector<float> y(size_t(n), std::nanf(""));
  std::vector<uint8_t> mask(size_t(n), 7);
  const int64_t offset[3] = {0, 0, 0};
  sprt_dropout_f32(x.data(), y.data(), mask.data(), 3, shape.data(),
                   shape.data(), offset, rate, seed, stream);
  const float scale = float(1.0 / (1.0 - rate));
  int kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool keep = double(sprt_uniform(seed, stream, uint64_t(i))) >= rate;
    kept += keep;
    EXPECT_EQ(mask[i], keep ? 1 : 0) << i;
    EXPECT_EQ(y[i], keep ? x[i] * scale : 0.0f) << i;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, n);
}

TEST(Dropout, RateZeroCopiesRateOneDropsAll) {
  const std::vector<int64_t> shape = {6, 7};
  const int64_t n = numel(shape);
  const int64_t offset[2] = {0, 0};
  auto x = randomFloats(size_t(n), 11);
  std::vector<float> y(size_t(n), std::nanf(""));
  std::vector<uint8_t> mask(size_t(n), 7);
  sprt_dropout_f32(x.data(), y.data(), mask.data(), 2, shape.data(),
                   shape.data(), offset, 0.0, 1, 2);
  expectBitwiseEqual("dropout rate 0", y, x);
  for (uint8_t m : mask)
    EXPECT_EQ(m, 1);
  sprt_dropout_f32(x.data(), y.data(), nullptr, 2, shape.data(), shape.data(),
                   offset, 1.0, 1, 2);
  for (float v : y)
    EXPECT_EQ(v, 0.0f);
}

TEST(Dropout, InPlaceAndNullMask) {
  const std::vector<int64_t> shape = {4, 9};
  const int64_t n = numel(shape);
  const int64_t offset[2] = {0, 0};
  auto x = randomFloats(size_t(n), 12);
  std::vector<float> ref(static_cast<size_t>(n));
  sprt_dropout_f32(x.data(), ref.data(), nullptr, 2, shape.data(), shape.data(),
                   offset, 0.25, 3, 4);
  sprt_dropout_f32(x.data(), x.data(), nullptr, 2, shape.data(), shape.data(),
                   offset, 0.25, 3, 4);
  expectBitwiseEqual("dropout in place", x, ref);
}

TEST(Dropout, ScalarAndVector) {
  // rank 0: one element, global index 0.
  float x = 2.0f, y = -1.0f;
  uint8_t m = 7;
  sprt_dropout_f32(&x, &y, &m, 0, nullptr, nullptr, nullptr, 0.5, 8, 9);
  bool keep = double(sprt_uniform(8, 9, 0)) >= 0.5;
  EXPECT_EQ(m, keep ? 1 : 0);
  EXPECT_EQ(y, keep ? 4.0f : 0.0f);
  // rank 1 shard [5, 12) of a length-20 vector.
  const int64_t shape = 7, gshape = 20, off = 5;
  auto xv = randomFloats(7, 13);
  std::vector<float> yv(7);
  sprt_dropout_f32(xv.data(), yv.data(), nullptr, 1, &shape, &gshape, &off, 0.5,
                   8, 9);
  for (int i = 0; i < 7; ++i) {
    bool k = double(sprt_uniform(8, 9, uint64_t(5 + i))) >= 0.5;
    EXPECT_EQ(yv[i], k ? xv[i] * 2.0f : 0.0f) << i;
  }
}

// Dropout of a [4, 2, 8] tensor equals, slice by slice, dropout of its shards
// run with their offsets inside the global shape.
void checkShards(const std::vector<std::vector<int64_t>> &shardShapes,
                 const std::vector<std::vector<int64_t>> &shardOffsets,
                 const char *what) {
  const std::vector<int64_t> g = {4, 2, 8};
  const int64_t n = numel(g);
  const auto gst = stridesOf(g);
  const double rate = 0.4;
  const uint64_t seed = 2024, stream = sprt_hash_name("h.3.attn.dropout");
  const int64_t zero[3] = {0, 0, 0};
  auto x = randomFloats(size_t(n), 14);
  std::vector<float> full(static_cast<size_t>(n));
  std::vector<uint8_t> fullMask(static_cast<size_t>(n));
  sprt_dropout_f32(x.data(), full.data(), fullMask.data(), 3, g.data(),
                   g.data(), zero, rate, seed, stream);

  std::vector<int> covered(size_t(n), 0);
  for (size_t s = 0; s < shardShapes.size(); ++s) {
    const auto &sh = shardShapes[s];
    const auto &off = shardOffsets[s];
    const int64_t ns = numel(sh);
    std::vector<float> xs(static_cast<size_t>(ns)),
        ys(size_t(ns), std::nanf("")), want(static_cast<size_t>(ns));
    std::vector<uint8_t> ms(size_t(ns), 7), wantMask(static_cast<size_t>(ns));
    int64_t li = 0;
    for (int64_t a = 0; a < sh[0]; ++a)
      for (int64_t b = 0; b < sh[1]; ++b)
        for (int64_t c = 0; c < sh[2]; ++c, ++li) {
          int64_t gi = (off[0] + a) * gst[0] + (off[1] + b) * gst[1] +
                       (off[2] + c) * gst[2];
          xs[li] = x[gi];
          want[li] = full[gi];
          wantMask[li] = fullMask[gi];
          covered[gi]++;
        }
    sprt_dropout_f32(xs.data(), ys.data(), ms.data(), 3, sh.data(), g.data(),
                     off.data(), rate, seed, stream);
    expectBitwiseEqual(std::string(what) + " shard " + std::to_string(s), ys,
                       want);
    EXPECT_EQ(ms, wantMask) << what << " shard " << s;
  }
  for (int c : covered)
    ASSERT_EQ(c, 1) << what << ": shards must tile the tensor";
}

TEST(Dropout, ShardedAlongDim0) {
  checkShards({{2, 2, 8}, {2, 2, 8}}, {{0, 0, 0}, {2, 0, 0}}, "dim 0 halves");
  checkShards({{1, 2, 8}, {3, 2, 8}}, {{0, 0, 0}, {1, 0, 0}}, "dim 0 uneven");
}

TEST(Dropout, ShardedAlongDim2) {
  checkShards({{4, 2, 4}, {4, 2, 4}}, {{0, 0, 0}, {0, 0, 4}}, "dim 2 halves");
  checkShards({{4, 2, 3}, {4, 2, 5}}, {{0, 0, 0}, {0, 0, 3}}, "dim 2 uneven");
}

TEST(Dropout, ShardedAlongDims0And2) {
  checkShards({{2, 2, 4}, {2, 2, 4}, {2, 2, 4}, {2, 2, 4}},
              {{0, 0, 0}, {0, 0, 4}, {2, 0, 0}, {2, 0, 4}}, "2x2 grid");
  checkShards({{4, 1, 8}, {4, 1, 8}}, {{0, 0, 0}, {0, 1, 0}}, "dim 1 halves");
}

TEST(Dropout, KeptFractionIsOneMinusRate) {
  const std::vector<int64_t> shape = {100, 2, 500};
  const int64_t n = numel(shape);
  const int64_t offset[3] = {0, 0, 0};
  std::vector<float> x(size_t(n), 1.0f), y(static_cast<size_t>(n));
  std::vector<uint8_t> mask(static_cast<size_t>(n));
  for (double rate : {0.1, 0.5, 0.9}) {
    sprt_dropout_f32(x.data(), y.data(), mask.data(), 3, shape.data(),
                     shape.data(), offset, rate, 17, 23);
    int64_t kept = 0;
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      kept += mask[i];
      sum += y[i];
    }
    double frac = double(kept) / n;
    std::printf("[  stats   ] dropout rate %.1f: kept %.5f, E[y] %.5f\n", rate,
                frac, sum / n);
    // Binomial: sd = sqrt(p (1 - p) / n) <= 1.6e-3 for n = 1e5; 5 sigma.
    EXPECT_NEAR(frac, 1.0 - rate, 5 * std::sqrt(rate * (1 - rate) / n));
    // Inverted scaling keeps the expectation: E[y] = frac / (1 - rate).
    EXPECT_NEAR(sum / n, frac / (1.0 - rate), 1e-5);
  }
}

} // namespace
