//===- DropoutAddConformanceTest.cpp - fused dropout + residual add -------===//
//
// sprt_dropout_add_typed(x, residual) is the backend's own
// sprt_dropout_typed(x) followed by sprt_add_typed(residual, .) bit for bit,
// in every element type (the dropped-out element rounded to the type, then
// the sum rounded once): tfm-fuse-elementwise relies on it to leave a
// program's results unchanged. Checked on a sharded [s, b, h] tensor at
// rates 0 (no draw), 0.3 and 1 (all dropped: the residual plus zero), and
// with the result written over the residual and over x.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/kernels.h"

#include <cmath>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;

namespace {

using DropoutAdd = DeviceTest;

constexpr int64_t kShape[3] = {3, 5, 341}, kGlobal[3] = {8, 10, 341},
                  kOffset[3] = {2, 5, 0};
constexpr size_t kN = 3 * 5 * 341;

/// Random values with signed zeros, infinities and a NaN, as stored in `t`.
std::vector<float> values(uint32_t seed, int32_t t) {
  std::vector<float> v = sprt_test::randomFloats(kN, seed, -6.0f, 6.0f);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 6e4f};
  for (size_t i = 0; i < sizeof(specials) / sizeof(float); ++i)
    v[i * 701] = specials[i];
  return asStored(v, t);
}

TEST_F(DropoutAdd, IsDropoutThenAddBitForBit) {
  for (double rate : {0.0, 0.3, 1.0})
    for (int32_t t : {kBf16, kF16, kF32}) {
      const std::string what =
          "dropout_add " + std::to_string(rate) + " " + nameOf(t);
      std::vector<float> x = values(21, t), r = values(22, t);
      // The two kernels, as the unfused program runs them.
      TypedBuffer sx(x, t), sr(r, t), d(nans(kN), t), want(nans(kN), t);
      sprt_dropout_typed(sx.get(), d.get(), nullptr, 3, kShape, kGlobal,
                         kOffset, rate, 77, 4, t);
      sprt_add_typed(sr.get(), d.get(), want.get(), int64_t(kN), t);
      std::vector<float> expected = want.download();
      TypedBuffer got(nans(kN), t);
      sprt_dropout_add_typed(sx.get(), sr.get(), got.get(), 3, kShape, kGlobal,
                             kOffset, rate, 77, 4, t);
      expectBitwiseEqual(what, got.download(), expected);
      // Over the residual, then over x.
      TypedBuffer overR(r, t), overX(x, t);
      sprt_dropout_add_typed(sx.get(), overR.get(), overR.get(), 3, kShape,
                             kGlobal, kOffset, rate, 77, 4, t);
      expectBitwiseEqual(what + " over the residual", overR.download(),
                         expected);
      sprt_dropout_add_typed(overX.get(), sr.get(), overX.get(), 3, kShape,
                             kGlobal, kOffset, rate, 77, 4, t);
      expectBitwiseEqual(what + " over x", overX.download(), expected);
    }
}

TEST_F(DropoutAdd, AMaskKeepsAboutOneMinusTheRate) {
  // All-ones x over a zero residual: the result is the scale where kept.
  std::vector<float> ones(kN, 1.0f), zeros(kN, 0.0f);
  TypedBuffer sx(ones, kF32), sr(zeros, kF32), y(nans(kN), kF32);
  sprt_dropout_add_typed(sx.get(), sr.get(), y.get(), 3, kShape, kGlobal,
                         kOffset, 0.25, 5, 6, kF32);
  size_t kept = 0;
  for (float v : y.download()) {
    EXPECT_TRUE(v == 0.0f || v == float(1.0 / 0.75)) << v;
    kept += v != 0.0f;
  }
  // 5115 draws at p = 0.75: mean 3836, standard deviation 31.
  EXPECT_NEAR(double(kept), 0.75 * kN, 6 * 31.0);
}

} // namespace
