//===- AddNormConformanceTest.cpp - residual add + norm -------------------===//
//
// sprt_add_layer_norm_typed and sprt_add_rms_norm_typed (the residual
// stream's sum and the norm of it, tfm-fuse-elementwise) against the calls
// they replace on the same backend: sprt_add_typed, then the norm
// (sprt_*_norm_typed) of the stored sum. Both results must be those calls'
// bit for bit on every backend, and the sum must be the host's f32 sum of
// the stored operands rounded once to their type. Cases: one dtype
// throughout (bf16, f16, f32); a layer norm with and without a bias; fused
// rows (vectors of 4, one and two chunks a thread; scalar rows) and a row
// too wide for the registers (the fallback); a residual one element off
// alignment (the fallback); no rows (nothing written). With dropout
// (sprt_dropout_add_*norm_typed): against sprt_dropout_add_typed then the
// norm, on a shard of a larger tensor (rank 3 [s, b, h] and rank 2, at
// offsets in a global shape), rates 0, 0.1 and 0.5, fused and fallback
// widths.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/kernels.h"

#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::randomFloats;

namespace {

using AddNorm = DeviceTest;

struct Case {
  int64_t T, H;
  int32_t t;
  bool rms, bias = true, offset = false;
  std::string name() const {
    return std::string(rms ? "add_rms_norm" : "add_layer_norm") +
           " T=" + std::to_string(T) + " H=" + std::to_string(H) + " " +
           nameOf(t) + (rms || bias ? "" : " no bias") +
           (offset ? " residual unaligned" : "");
  }
};

void check(const Case &c) {
  const std::string what = c.name();
  const size_t n = size_t(c.T * c.H), h = size_t(c.H);
  std::vector<float> x = asStored(randomFloats(n, 3, -3.0f, 5.0f), c.t),
                     r = asStored(randomFloats(n, 11, -2.0f, 2.0f), c.t),
                     w = asStored(randomFloats(h, 7, 0.5f, 1.5f), c.t),
                     b = asStored(randomFloats(h, 13, -0.5f, 0.5f), c.t);
  std::vector<float> rPadded = r;
  if (c.offset)
    rPadded.insert(rPadded.begin(), 0.0f);
  TypedBuffer sx(x, c.t), sr(rPadded, c.t), sw(w, c.t), sb(b, c.t),
      refSum(nans(n), c.t), refY(nans(n), c.t), sum(nans(n), c.t),
      y(nans(n), c.t);
  const void *residual =
      c.offset ? static_cast<char *>(sr.get()) + (c.t == kF32 ? 4 : 2)
               : sr.get();
  const void *bias = c.bias ? sb.get() : nullptr;
  sprt_add_typed(sx.get(), residual, refSum.get(), int64_t(n), c.t);
  if (c.rms) {
    sprt_rms_norm_typed(refSum.get(), c.t, sw.get(), c.t, refY.get(), c.t, c.T,
                        c.H, 1e-6);
    sprt_add_rms_norm_typed(sx.get(), c.t, residual, c.t, sw.get(), c.t,
                            sum.get(), c.t, y.get(), c.t, c.T, c.H, 1e-6);
  } else {
    sprt_layer_norm_typed(refSum.get(), c.t, sw.get(), c.t, bias,
                          c.bias ? c.t : 0, refY.get(), c.t, c.T, c.H, 1e-5);
    sprt_add_layer_norm_typed(sx.get(), c.t, residual, c.t, sw.get(), c.t, bias,
                              c.bias ? c.t : 0, sum.get(), c.t, y.get(), c.t,
                              c.T, c.H, 1e-5);
  }
  // The sum: each pair widened, added in f32, rounded once.
  std::vector<float> hostSum(n);
  for (size_t i = 0; i < n; ++i)
    hostSum[i] = x[i] + r[i];
  expectBitwiseEqual(what + " sum (host)", sum.download(),
                     asStored(hostSum, c.t));
  expectBitwiseEqual(what + " sum", sum.download(), refSum.download());
  expectBitwiseEqual(what + " y", y.download(), refY.download());
}

// Widths: fused rows of vectors of 4 (one and two chunks a thread), scalar
// rows, and a row too wide for the registers.
const int64_t kWidths[] = {64, 1032, 37, 6000};
const int32_t kTypes[] = {kBf16, kF16, kF32};

TEST_F(AddNorm, IsTheAddThenTheNormBitForBit) {
  for (bool rms : {false, true})
    for (int64_t H : kWidths)
      for (int32_t t : kTypes)
        check({H > 2048 ? 5 : 37, H, t, rms});
  for (int32_t t : kTypes)
    check({37, 768, t, /*rms=*/false, /*bias=*/false});
}

TEST_F(AddNorm, AnUnalignedResidualTakesTheFallbackWithTheSameBits) {
  for (bool rms : {false, true})
    for (int32_t t : kTypes)
      check({37, 64, t, rms, /*bias=*/true, /*offset=*/true});
}

/// With dropout: a local [d0, d1, H] (or [d0, H]) shard at `offset` of
/// `global`, dropped at `rate`.
struct DropCase {
  int32_t rank;
  int64_t shape[3], global[3], offset[3];
  double rate;
  int32_t t;
  bool rms;
  std::string name() const {
    return std::string(rms ? "dropout_add_rms_norm"
                           : "dropout_add_layer_norm") +
           " rank " + std::to_string(rank) +
           " H=" + std::to_string(shape[rank - 1]) + " rate " +
           std::to_string(rate) + " " + nameOf(t);
  }
};

void checkDropout(const DropCase &c) {
  const std::string what = c.name();
  const int64_t H = c.shape[c.rank - 1];
  size_t n = 1;
  for (int32_t d = 0; d < c.rank; ++d)
    n *= size_t(c.shape[d]);
  const int64_t T = int64_t(n) / H;
  std::vector<float> x = asStored(randomFloats(n, 3, -3.0f, 5.0f), c.t),
                     r = asStored(randomFloats(n, 11, -2.0f, 2.0f), c.t),
                     w = asStored(randomFloats(size_t(H), 7, 0.5f, 1.5f), c.t),
                     b = asStored(randomFloats(size_t(H), 13, -0.5f, 0.5f),
                                  c.t);
  TypedBuffer sx(x, c.t), sr(r, c.t), sw(w, c.t), sb(b, c.t),
      refSum(nans(n), c.t), refY(nans(n), c.t), sum(nans(n), c.t),
      y(nans(n), c.t);
  const uint64_t seed = 1234, stream = 5;
  sprt_dropout_add_typed(sx.get(), sr.get(), refSum.get(), c.rank, c.shape,
                         c.global, c.offset, c.rate, seed, stream, c.t);
  if (c.rms) {
    sprt_rms_norm_typed(refSum.get(), c.t, sw.get(), c.t, refY.get(), c.t, T, H,
                        1e-6);
    sprt_dropout_add_rms_norm_typed(
        sx.get(), sr.get(), sw.get(), c.t, sum.get(), y.get(), c.t, c.rank,
        c.shape, c.global, c.offset, c.rate, seed, stream, c.t, 1e-6);
  } else {
    sprt_layer_norm_typed(refSum.get(), c.t, sw.get(), c.t, sb.get(), c.t,
                          refY.get(), c.t, T, H, 1e-5);
    sprt_dropout_add_layer_norm_typed(sx.get(), sr.get(), sw.get(), c.t,
                                      sb.get(), c.t, sum.get(), y.get(), c.t,
                                      c.rank, c.shape, c.global, c.offset,
                                      c.rate, seed, stream, c.t, 1e-5);
  }
  expectBitwiseEqual(what + " sum", sum.download(), refSum.download());
  expectBitwiseEqual(what + " y", y.download(), refY.download());
  // Some elements were dropped: their sums are the residual's.
  if (c.rate >= 0.1) {
    std::vector<float> got = sum.download();
    size_t dropped = 0;
    for (size_t i = 0; i < n; ++i)
      dropped += got[i] == r[i];
    EXPECT_GT(dropped, n * c.rate / 2) << what;
  }
}

TEST_F(AddNorm, WithDropoutIsTheDropoutAddThenTheNormBitForBit) {
  for (bool rms : {false, true})
    for (int32_t t : kTypes)
      for (double rate : {0.0, 0.1, 0.5})
        for (int64_t H : {64, 37, 6000}) {
          // Rank 3: rows 5..9 of 10 and batch 3..5 of 6.
          checkDropout({3, {5, 3, H}, {10, 6, H}, {5, 3, 0}, rate, t, rms});
          // Rank 2: rows 7..12 of 20.
          checkDropout({2, {6, H, 1}, {20, H, 1}, {7, 0, 0}, rate, t, rms});
        }
}

TEST_F(AddNorm, NoRowsWriteNothing) {
  for (bool rms : {false, true}) {
    TypedBuffer sum(nans(64), kBf16), y(nans(64), kBf16);
    if (rms)
      sprt_add_rms_norm_typed(nullptr, kBf16, nullptr, kBf16, nullptr, kBf16,
                              sum.get(), kBf16, y.get(), kBf16, 0, 64, 1e-6);
    else
      sprt_add_layer_norm_typed(nullptr, kBf16, nullptr, kBf16, nullptr, kBf16,
                                nullptr, 0, sum.get(), kBf16, y.get(), kBf16, 0,
                                64, 1e-5);
    expectBitwiseEqual("sum", sum.download(), nans(64));
    expectBitwiseEqual("y", y.download(), nans(64));
  }
}

} // namespace
