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
// alignment (the fallback); no rows (nothing written).
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
