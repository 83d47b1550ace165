//===- OptimizerMasterTest.cpp - master-weight optimizer kernels ----------===//
//
// sprt_adamw_master_f32 and sprt_sgd_master_f32 (sprt/grad_kernels.h): the
// f32 master weight follows the double-precision transcription of
// torch.optim's update (OptimizerTest.cpp's tolerances: 3 steps, 1e-6 of
// |p| + lr), and the stored bf16 / f16 parameter is, bit for bit, the
// rounding to nearest even of the master, computed here independently of
// sprt/dtype.h: the nearest of the format's values decoded with ldexp (a
// binary search over the positive finite patterns, which increase with
// their value), ties to the even pattern, beyond the largest finite value
// + half an ulp an infinity. A NaN scale changes nothing.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace sprt_test;

namespace {

/// A 16-bit float format: mantissa bits and exponent bias.
struct Format {
  int mantissa, bias;
  uint16_t maxFinite, inf;
};
const Format kBf16{7, 127, 0x7f7f, 0x7f80};
const Format kF16{10, 15, 0x7bff, 0x7c00};

/// The value of a positive finite pattern.
double decode(uint16_t h, const Format &f) {
  int e = h >> f.mantissa, m = h & ((1 << f.mantissa) - 1);
  if (e == 0)
    return std::ldexp(double(m), 1 - f.bias - f.mantissa);
  return std::ldexp(double(m + (1 << f.mantissa)), e - f.bias - f.mantissa);
}

/// Round to nearest even of x into format f.
uint16_t roundRef(float x, const Format &f) {
  double a = std::fabs(double(x));
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double top = decode(f.maxFinite, f);
  double halfUlp =
      (top - decode(uint16_t(f.maxFinite - 1), f)) / 2.0; // above: overflow
  if (a >= top + halfUlp)
    return sign | f.inf;
  // The largest pattern whose value is <= a.
  uint16_t lo = 0, hi = f.maxFinite;
  while (lo < hi) {
    uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (decode(mid, f) <= a)
      lo = mid;
    else
      hi = uint16_t(mid - 1);
  }
  if (lo == f.maxFinite)
    return sign | lo;
  double below = a - decode(lo, f), above = decode(uint16_t(lo + 1), f) - a;
  uint16_t r = below < above   ? lo
               : above < below ? uint16_t(lo + 1)
               : (lo & 1)      ? uint16_t(lo + 1)
                               : lo;
  return sign | r;
}

using Vec = std::vector<double>;

void checkAdamWMaster(int32_t dtype, const Format &f, const char *what) {
  const size_t n = 1000;
  const double lr = 1e-2, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.1;
  const float one = 1.0f;
  auto master = randomNormals(n, 160);
  std::vector<uint16_t> param(n, 0xffff);
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  Vec pRef(master.begin(), master.end()), mRef(n, 0.0), vRef(n, 0.0);
  for (int step = 1; step <= 3; ++step) {
    auto g = randomNormals(n, 161 + uint32_t(step));
    sprt_adamw_master_f32(master.data(), param.data(), dtype, g.data(),
                          m.data(), v.data(), &one, int64_t(n),
                          sprt_test::lrPtr(lr), b1, b2, eps, wd,
                          sprt_test::stepPtr(step));
    const double bc1 = 1.0 - std::pow(b1, step), bc2 = 1.0 - std::pow(b2, step);
    Vec scale(n);
    for (size_t i = 0; i < n; ++i) {
      pRef[i] *= 1.0 - lr * wd;
      mRef[i] += (double(g[i]) - mRef[i]) * (1.0 - b1);
      vRef[i] = vRef[i] * b2 + (1.0 - b2) * double(g[i]) * g[i];
      pRef[i] -= lr / bc1 * mRef[i] / (std::sqrt(vRef[i] / bc2) + eps);
      scale[i] = std::fabs(pRef[i]) + lr;
    }
    const std::string tag =
        std::string(what) + " adamw step " + std::to_string(step);
    expectClose(tag + " master", master, pRef, 1e-6, 0.0, &scale);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i)
      wrong += param[i] != roundRef(master[i], f);
    EXPECT_EQ(wrong, 0u) << tag << ": parameter elements that are not the "
                         << "master's rounding";
  }
  // A NaN scale: nothing changes.
  const float nan = NAN;
  auto master0 = master;
  auto param0 = param;
  auto m0 = m, v0 = v;
  auto g = randomNormals(n, 170);
  sprt_adamw_master_f32(master.data(), param.data(), dtype, g.data(), m.data(),
                        v.data(), &nan, int64_t(n), sprt_test::lrPtr(lr), b1,
                        b2, eps, wd, sprt_test::stepPtr(4));
  EXPECT_EQ(master, master0);
  EXPECT_EQ(param, param0);
  EXPECT_EQ(m, m0);
  EXPECT_EQ(v, v0);
}

TEST(AdamWMaster, Bf16MatchesTorchFormulaAndRoundsTheMaster) {
  checkAdamWMaster(SPRT_DTYPE_BF16, kBf16, "bf16");
}

TEST(AdamWMaster, F16MatchesTorchFormulaAndRoundsTheMaster) {
  checkAdamWMaster(SPRT_DTYPE_F16, kF16, "f16");
}

TEST(SgdMaster, MatchesTorchFormulaAndRoundsTheMaster) {
  const size_t n = 1000;
  const float scale = 0.37f;
  for (auto [dtype, f] : {std::pair<int32_t, Format>{SPRT_DTYPE_BF16, kBf16},
                          {SPRT_DTYPE_F16, kF16}}) {
    auto master = randomNormals(n, 180);
    auto g = randomNormals(n, 181);
    // Values around the ties and overflow of f16 and bf16's subnormals.
    master[0] = 65519.0f;
    master[1] = 65520.0f;
    master[2] = 1e-40f;
    g[0] = g[1] = g[2] = 0.0f;
    std::vector<uint16_t> param(n, 0xffff);
    Vec ref(n);
    for (size_t i = 0; i < n; ++i)
      ref[i] = master[i] - 0.1 * (double(g[i] * scale) + 0.0 * master[i]);
    sprt_sgd_master_f32(master.data(), param.data(), dtype, g.data(), &scale,
                        int64_t(n), sprt_test::lrPtr(0.1), 0.0);
    expectClose("sgd master", master, ref, 1e-7, 0.0);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i)
      wrong += param[i] != roundRef(master[i], f);
    EXPECT_EQ(wrong, 0u) << "dtype " << dtype;
  }
  EXPECT_EQ(roundRef(65520.0f, kF16), 0x7c00); // the overflow boundary
  EXPECT_EQ(roundRef(65519.0f, kF16), 0x7bff);
  EXPECT_EQ(roundRef(1.0f + 0x1p-8f, kBf16), 0x3f80); // a tie, to even
  EXPECT_EQ(roundRef(1.0f + 3 * 0x1p-8f, kBf16), 0x3f82);
}

TEST(Master, F32ParamIsACopy) {
  // SPRT_DTYPE_F32: the parameter receives the master exactly, which
  // follows sprt_adamw_f32 bit for bit.
  const size_t n = 333;
  const float one = 1.0f;
  auto p = randomNormals(n, 190), g = randomNormals(n, 191);
  std::vector<float> master = p, copy(n, 0.0f), m(n, 0.0f), v(n, 0.0f), m2 = m,
                     v2 = v;
  sprt_adamw_master_f32(master.data(), copy.data(), SPRT_DTYPE_F32, g.data(),
                        m.data(), v.data(), &one, int64_t(n),
                        sprt_test::lrPtr(1e-2), 0.9, 0.999, 1e-8, 0.1,
                        sprt_test::stepPtr(1));
  sprt_adamw_f32(p.data(), g.data(), m2.data(), v2.data(), &one, int64_t(n),
                 sprt_test::lrPtr(1e-2), 0.9, 0.999, 1e-8, 0.1,
                 sprt_test::stepPtr(1));
  EXPECT_EQ(master, p);
  EXPECT_EQ(copy, p);
  EXPECT_EQ(m, m2);
  EXPECT_EQ(v, v2);
}

} // namespace
