//===- ConvertConformanceTest.cpp - sprt_convert between f32, bf16, f16 ---===//
//
// sprt_convert (sprt/kernels.h) against a plain reference written here, not
// sprt/dtype.h: a 16-bit value is decoded from its fields with ldexp, and
// rounding to nearest even is done in double (the f32 input divided by the
// target's ulp at its exponent is an exact double; nearbyint rounds it to
// nearest even; past the largest finite value, an infinity). Exact: every
// result must equal the reference, sign of zero included.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/kernels.h"

#include <cfenv>
#include <cstring>
#include <random>

using namespace sprt_conformance;

namespace {

/// A 16-bit format: mantissa and exponent bits.
struct Format {
  int mbits, ebits;
  int bias() const { return (1 << (ebits - 1)) - 1; }
  int emin() const { return 1 - bias(); }
  double maxFinite() const {
    return std::ldexp(2.0 - std::ldexp(1.0, -mbits), bias());
  }
};
constexpr Format kBf16{7, 8}, kF16{10, 5};

double decode(uint16_t h, Format f) {
  const int sign = h >> (f.mbits + f.ebits);
  const int e = (h >> f.mbits) & ((1 << f.ebits) - 1);
  const int m = h & ((1 << f.mbits) - 1);
  double v;
  if (e == (1 << f.ebits) - 1)
    v = m ? std::nan("") : INFINITY;
  else if (e == 0)
    v = std::ldexp(double(m), f.emin() - f.mbits);
  else
    v = std::ldexp(double(m + (1 << f.mbits)), e - f.bias() - f.mbits);
  return sign ? -v : v;
}

/// `x` (a value of f32 or of a 16-bit format) rounded to nearest even in `f`.
double roundTo(double x, Format f) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0)
    return x;
  const double a = std::fabs(x);
  int e = std::ilogb(a);
  if (e < f.emin())
    e = f.emin(); // subnormal: the ulp of the smallest normal binade
  const double ulp = std::ldexp(1.0, e - f.mbits);
  double r = std::nearbyint(a / ulp) * ulp; // ties to even (default mode)
  if (r > f.maxFinite())
    r = INFINITY;
  return std::copysign(r, x);
}

float floatOfBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// Checks `got` (16-bit results in `f`) against `ref` element by element.
void expectRounded(const std::string &what, const std::vector<uint16_t> &got,
                   const std::vector<double> &ref, Format f) {
  ASSERT_EQ(got.size(), ref.size());
  int failures = 0;
  for (size_t i = 0; i < got.size() && failures < 10; ++i) {
    const double v = decode(got[i], f);
    const bool ok =
        std::isnan(ref[i])
            ? std::isnan(v)
            : v == ref[i] && std::signbit(v) == std::signbit(ref[i]);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << "[" << i << "]: got " << v << " (0x" << std::hex
                    << got[i] << std::dec << "), expected " << ref[i];
    }
  }
}

/// Narrows f32 `x` to format `f` (code `code`) on the device.
std::vector<uint16_t> narrow(const std::vector<float> &x, int32_t code) {
  DeviceBuffer<float> dX(x);
  DeviceBuffer<uint16_t> dY(std::vector<uint16_t>(x.size(), 0xdeadu & 0xffff));
  sprt_convert(dX, SPRT_DTYPE_F32, dY, code, int64_t(x.size()));
  return dY.download();
}

/// The f32 values every narrowing is checked on: specials, the ties of
/// both formats in both directions, f16's overflow boundary and
/// subnormals, tiny values, then random bit patterns.
std::vector<float> narrowingInputs() {
  std::vector<float> x = {
      0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN,
      floatOfBits(0x7f800001u), // a signalling NaN
      // bf16 ties: 1 + 2^-8 (to 1, even), 1 + 3 * 2^-8 (up to 1 + 2^-6),
      // and the same just above/below the tie.
      floatOfBits(0x3f808000u), floatOfBits(0x3f818000u),
      floatOfBits(0x3f808001u), floatOfBits(0x3f817fffu),
      floatOfBits(0xbf808000u), floatOfBits(0xbf818000u),
      // f16 ties: 1 + 2^-11 (to 1), 1 + 3 * 2^-11 (up to 1 + 2^-9).
      1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11),
      -(1.0f + std::ldexp(1.0f, -11)), -(1.0f + 3 * std::ldexp(1.0f, -11)),
      // f16's largest finite, the overflow boundary (65520 is a tie that
      // goes to infinity), beyond.
      65504.0f, 65519.996f, 65520.0f, -65520.0f, 1e10f, -1e10f, 3.4e38f,
      // bf16's overflow: the largest f32 rounds to infinity.
      floatOfBits(0x7f7fffffu), floatOfBits(0x7f7f7fffu),
      floatOfBits(0x7f7f8000u),
      // f16 subnormals: 2^-24 (smallest), 2^-25 (tie to 0), 3 * 2^-25 (tie
      // to 2^-23), 1.5 * 2^-24 ... and the top of the subnormal range.
      std::ldexp(1.0f, -24), std::ldexp(1.0f, -25), 3 * std::ldexp(1.0f, -25),
      5 * std::ldexp(1.0f, -25), std::ldexp(1.0f, -26), std::ldexp(1.0f, -14),
      std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25),
      std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26), 6e-8f, -6e-8f, 1e-5f,
      // Tiny values: the f32 subnormals (bf16 keeps them, rounded).
      1e-40f, -1e-40f, floatOfBits(1u), floatOfBits(0x00008000u),
      floatOfBits(0x00018000u), floatOfBits(0x007fffffu),
      floatOfBits(0x00800000u)};
  std::mt19937 gen(2024);
  for (int i = 0; i < 200000; ++i)
    x.push_back(floatOfBits(uint32_t(gen())));
  // Values in f16's range, where most of its roundings happen.
  std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
  for (int i = 0; i < 100000; ++i)
    x.push_back(dist(gen) * std::ldexp(1.0f, -int(gen() % 40)));
  return x;
}

using Convert = DeviceTest;

TEST_F(Convert, NarrowF32RoundsToNearestEven) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  const std::vector<float> x = narrowingInputs();
  for (auto [code, format, name] : {std::tuple<int32_t, Format, const char *>{
                                        SPRT_DTYPE_BF16, kBf16, "f32->bf16"},
                                    {SPRT_DTYPE_F16, kF16, "f32->f16"}}) {
    std::vector<double> ref;
    for (float v : x)
      ref.push_back(roundTo(v, format));
    expectRounded(name, narrow(x, code), ref, format);
  }
}

TEST_F(Convert, WidenIsExactForEveryValue) {
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = uint16_t(i);
  DeviceBuffer<uint16_t> dIn(all);
  DeviceBuffer<float> dOut(nans(all.size()));
  for (auto [code, format, name] : {std::tuple<int32_t, Format, const char *>{
                                        SPRT_DTYPE_BF16, kBf16, "bf16->f32"},
                                    {SPRT_DTYPE_F16, kF16, "f16->f32"}}) {
    sprt_convert(dIn, code, dOut, SPRT_DTYPE_F32, int64_t(all.size()));
    std::vector<float> got = dOut.download();
    int failures = 0;
    for (size_t i = 0; i < all.size() && failures < 10; ++i) {
      const double ref = decode(all[i], format);
      const bool ok = std::isnan(ref)
                          ? std::isnan(got[i])
                          : double(got[i]) == ref &&
                                std::signbit(got[i]) == std::signbit(ref);
      if (!ok) {
        ++failures;
        ADD_FAILURE() << name << " of 0x" << std::hex << all[i] << std::dec
                      << ": got " << got[i] << ", expected " << ref;
      }
    }
  }
}

TEST_F(Convert, Bf16AndF16ThroughF32) {
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = uint16_t(i);
  DeviceBuffer<uint16_t> dIn(all), dOut(all.size());
  for (auto [from, to, inFormat, outFormat, name] :
       {std::tuple<int32_t, int32_t, Format, Format, const char *>{
            SPRT_DTYPE_BF16, SPRT_DTYPE_F16, kBf16, kF16, "bf16->f16"},
        {SPRT_DTYPE_F16, SPRT_DTYPE_BF16, kF16, kBf16, "f16->bf16"}}) {
    sprt_convert(dIn, from, dOut, to, int64_t(all.size()));
    std::vector<double> ref;
    for (uint16_t h : all)
      ref.push_back(roundTo(decode(h, inFormat), outFormat));
    expectRounded(name, dOut.download(), ref, outFormat);
  }
}

TEST_F(Convert, SameTypeCopiesBits) {
  std::vector<float> x = sprt_test::randomFloats(1001, 7);
  x[3] = floatOfBits(0x7fa12345u); // a NaN payload survives a copy
  x[4] = -0.0f;
  DeviceBuffer<float> dX(x), dY(nans(x.size()));
  sprt_convert(dX, SPRT_DTYPE_F32, dY, SPRT_DTYPE_F32, int64_t(x.size()));
  std::vector<float> y = dY.download();
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0);
  std::vector<uint16_t> h(777);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = uint16_t(i * 97 + 0x7c01);
  for (int32_t code : {SPRT_DTYPE_BF16, SPRT_DTYPE_F16}) {
    DeviceBuffer<uint16_t> dH(h), dOut(h.size());
    sprt_convert(dH, code, dOut, code, int64_t(h.size()));
    EXPECT_EQ(dOut.download(), h) << code;
  }
}

TEST_F(Convert, EmptyWritesNothing) {
  DeviceBuffer<float> dX(std::vector<float>{1.5f}), dY(nans(1));
  DeviceBuffer<uint16_t> dH(std::vector<uint16_t>{0x1234u});
  sprt_convert(dX, SPRT_DTYPE_F32, dH, SPRT_DTYPE_BF16, 0);
  sprt_convert(dH, SPRT_DTYPE_F16, dY, SPRT_DTYPE_F32, 0);
  sprt_convert(dX, SPRT_DTYPE_F32, dY, SPRT_DTYPE_F32, 0);
  EXPECT_EQ(dH.download()[0], 0x1234u);
  EXPECT_TRUE(std::isnan(dY.download()[0]));
}

} // namespace
