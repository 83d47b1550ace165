//===- DTypeTest.cpp - bf16 / f16 conversions against a plain reference ---===//
//
// sprt/dtype.h converts with integer bit manipulation; the reference here
// works on values instead: it decodes every bf16 / f16 bit pattern with
// ldexp, and narrows an f32 by finding its two neighbours among all the
// format's finite values (a sorted table) and comparing with their midpoint
// in double arithmetic (exact: the midpoint has one bit more than the
// format), ties to the even encoding, past the largest finite value towards
// the next power of two (IEEE's overflow rule). Widening is checked on all
// 65536 patterns of each format; narrowing on every value of the format, the
// midpoints between neighbours (the ties) and the f32 values next to both,
// in both signs, the top of f32's range, two million random f32 patterns
// and the specials.
// runtime/driver/DType.cpp's buffer conversions (F64 included) against the
// same reference.
//
//===----------------------------------------------------------------------===//

#include "../driver/DType.h"
#include "sprt/dtype.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using namespace sprt;
using namespace sprt::dtype;

namespace {
/// The layout of a 16-bit format.
struct Format {
  const char *name;
  int mantissaBits, bias;
  uint16_t (*narrow)(float);
  float (*widen)(uint16_t);
  /// 2^(emax + 1): where a value overflows to infinity.
  double overflow;
};

const Format kBf16{"bf16", 7, 127, f32ToBf16, bf16ToF32, std::ldexp(1.0, 128)};
const Format kF16{"f16", 10, 15, f32ToF16, f16ToF32, std::ldexp(1.0, 16)};

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

float fromBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

/// The value of a bit pattern, by the format's definition.
double decode(const Format &f, uint16_t h) {
  int expBits = 15 - f.mantissaBits;
  int e = (h >> f.mantissaBits) & ((1 << expBits) - 1);
  int m = h & ((1 << f.mantissaBits) - 1);
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == (1 << expBits) - 1)
    return m ? std::numeric_limits<double>::quiet_NaN()
             : sign * std::numeric_limits<double>::infinity();
  if (e == 0) // subnormal: m * 2^(1 - bias - mantissaBits)
    return sign * std::ldexp(double(m), 1 - f.bias - f.mantissaBits);
  return sign * std::ldexp(double((1 << f.mantissaBits) + m),
                           e - f.bias - f.mantissaBits);
}

/// Every non-negative finite value of a format, ascending (the encodings
/// 0 .. largest finite are in value order), and the overflow bound.
std::vector<double> finiteValues(const Format &f) {
  std::vector<double> values;
  for (uint32_t h = 0; h < 0x8000; ++h) {
    double v = decode(f, uint16_t(h));
    if (!std::isfinite(v))
      break;
    values.push_back(v);
  }
  return values;
}

/// The reference narrowing of f32 `x` (finite or infinite, not NaN).
uint16_t referenceNarrow(const Format &f, const std::vector<double> &values,
                         float x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(double(x));
  uint16_t inf = uint16_t(values.size()); // the encoding after the largest
  if (std::isinf(a))
    return sign | inf;
  auto above = std::upper_bound(values.begin(), values.end(), a);
  uint16_t hi = uint16_t(above - values.begin());
  if (hi > 0 && values[hi - 1] == a)
    return sign | uint16_t(hi - 1);
  uint16_t lo = uint16_t(hi - 1);
  double hiValue = hi < values.size() ? values[hi] : f.overflow;
  double mid = (values[lo] + hiValue) / 2; // exact
  if (a < mid)
    return sign | lo;
  if (a > mid)
    return sign | hi;
  return sign | ((lo & 1) ? hi : lo); // a tie: the even encoding
}

/// The f32 inputs narrowing is checked on (see the file comment).
std::vector<float> narrowingSample(const std::vector<double> &values,
                                   double overflow) {
  std::vector<float> xs;
  auto around = [&](double v) {
    float f = float(v);
    ASSERT_EQ(double(f), v) << "not an f32: " << v;
    const float inf = std::numeric_limits<float>::infinity();
    for (float y : {f, std::nextafter(f, inf), std::nextafter(f, -inf)})
      for (float s : {y, -y})
        xs.push_back(s);
  };
  for (size_t i = 0; i < values.size(); ++i) {
    double next = i + 1 < values.size() ? values[i + 1] : overflow;
    around(values[i]);
    around((values[i] + next) / 2);
  }
  around(overflow < 1e30 ? overflow
                         : double(std::numeric_limits<float>::max()));
  // The top of f32's range: bf16's overflow threshold lies in it.
  for (uint32_t u = 0x7f7f0000u; u < 0x7f800000u; u += 16)
    for (float s : {fromBits(u), -fromBits(u)})
      xs.push_back(s);
  std::mt19937 rng(12);
  for (int i = 0; i < (1 << 21); ++i)
    xs.push_back(fromBits(uint32_t(rng())));
  for (float s :
       {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
        std::numeric_limits<float>::denorm_min(),
        std::numeric_limits<float>::min()})
    xs.push_back(s);
  return xs;
}

void checkWidening(const Format &f) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float got = f.widen(uint16_t(h));
    double want = decode(f, uint16_t(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << f.name << " " << std::hex << h;
      EXPECT_EQ(std::signbit(got), bool(h & 0x8000)) << std::hex << h;
      // Widening then narrowing a quiet NaN gives it back.
      if (h & (1u << (f.mantissaBits - 1))) {
        EXPECT_EQ(f.narrow(got), h) << f.name << " " << std::hex << h;
      }
      continue;
    }
    ASSERT_EQ(double(got), want) << f.name << " " << std::hex << h;
    EXPECT_EQ(std::signbit(got), bool(h & 0x8000)) << std::hex << h;
    // Every value round-trips.
    EXPECT_EQ(f.narrow(got), h) << f.name << " " << std::hex << h;
  }
}

void checkNarrowing(const Format &f) {
  std::vector<double> values = finiteValues(f);
  std::vector<float> xs = narrowingSample(values, f.overflow);
  int64_t ties = 0, overflows = 0, subnormals = 0;
  for (float x : xs) {
    uint16_t got = f.narrow(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(decode(f, got))) << std::hex << bits(x);
      EXPECT_EQ(bool(got & 0x8000), std::signbit(x)) << std::hex << bits(x);
      // Quiet: the mantissa's top bit is set.
      EXPECT_TRUE(got & (1u << (f.mantissaBits - 1))) << std::hex << bits(x);
      continue;
    }
    uint16_t want = referenceNarrow(f, values, x);
    ASSERT_EQ(got, want) << f.name << ": f32 " << std::hex << bits(x) << " ("
                         << std::scientific << x << ")";
    double a = std::fabs(double(x));
    auto above = std::upper_bound(values.begin(), values.end(), a);
    if (above != values.begin() && above != values.end() && *(above - 1) != a &&
        a == (*(above - 1) + *above) / 2)
      ++ties;
    overflows += std::isfinite(x) && !std::isfinite(decode(f, got));
    subnormals += ((got & 0x7fff) >> f.mantissaBits) == 0 && (got & 0x7fff);
  }
  // The sample reaches every case the rounding distinguishes.
  EXPECT_GT(ties, 60000);
  EXPECT_GT(overflows, 1000);
  EXPECT_GT(subnormals, 1000);
}
} // namespace

TEST(DType, Bf16WideningIsExactOnAllPatterns) { checkWidening(kBf16); }
TEST(DType, F16WideningIsExactOnAllPatterns) { checkWidening(kF16); }
TEST(DType, Bf16NarrowingRoundsToNearestEven) { checkNarrowing(kBf16); }
TEST(DType, F16NarrowingRoundsToNearestEven) { checkNarrowing(kF16); }

TEST(DType, KnownValues) {
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7 in bf16: to the even 1.
  EXPECT_EQ(f32ToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(f32ToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(f32ToF16(65504.0f), 0x7bff);
  EXPECT_EQ(f32ToF16(65519.0f), 0x7bff);
  EXPECT_EQ(f32ToF16(65520.0f), 0x7c00); // the tie overflows
  EXPECT_EQ(f32ToF16(-1e10f), 0xfc00);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25)), 0x0000); // tie to even zero
  EXPECT_EQ(f32ToF16(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(f32ToF16(std::ldexp(3.0f, -25)), 0x0002); // 1.5 ulp: to even 2
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(f32ToBf16(fromBits(0x7f800001u)), 0x7fc0); // sNaN: quiet
  EXPECT_EQ(f32ToF16(fromBits(0xff800001u)), 0xfe00);
}

TEST(DType, Names) {
  DType t;
  for (const char *n : {"F32", "BF16", "F16", "F64"}) {
    ASSERT_TRUE(dtypeNamed(n, t)) << n;
    EXPECT_STREQ(dtypeName(t), n);
  }
  EXPECT_FALSE(dtypeNamed("I32", t));
  EXPECT_FALSE(dtypeNamed("bf16", t));
  ASSERT_TRUE(dtypeOfFlag("bf16", t));
  EXPECT_EQ(t, DType::BF16);
  EXPECT_FALSE(dtypeOfFlag("f64", t));
  EXPECT_EQ(dtypeBytes(DType::BF16), 2u);
  EXPECT_EQ(dtypeBytes(DType::F64), 8u);
}

/// Buffer conversions: element by element as the reference says, F64
/// narrowed with one rounding.
TEST(DType, BufferConversions) {
  std::vector<double> bf16Values = finiteValues(kBf16),
                      f16Values = finiteValues(kF16);
  std::mt19937_64 rng(3);
  std::vector<float> xs;
  std::vector<double> ds;
  for (int i = 0; i < 200000; ++i) {
    xs.push_back(fromBits(uint32_t(rng())));
    // Doubles next to f16 ties, closer than f32's precision: f64 -> f32
    // makes them ties, which f32 -> f16 then breaks to the even side,
    // wrongly half the time (a double rounding).
    size_t k = size_t(rng() % f16Values.size());
    double next = k + 1 < f16Values.size() ? f16Values[k + 1] : kF16.overflow;
    double tie = (f16Values[k] + next) / 2;
    double eps = std::ldexp(tie, -30);
    for (double d : {tie, tie + eps, tie - eps, f16Values[k]})
      ds.push_back((rng() & 1) ? -d : d);
    ds.push_back(
        std::ldexp(double(int64_t(rng() >> 11)), int(rng() % 80) - 100));
  }
  ds.push_back(1e300);
  ds.push_back(-1e-300);
  int64_t n = int64_t(xs.size());
  std::vector<uint16_t> bf(n), h(n);
  convertElements(DType::F32, xs.data(), DType::BF16, bf.data(), n);
  convertElements(DType::F32, xs.data(), DType::F16, h.data(), n);
  std::vector<float> back(n);
  convertElements(DType::BF16, bf.data(), DType::F32, back.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(xs[i]))
      continue;
    ASSERT_EQ(bf[i], referenceNarrow(kBf16, bf16Values, xs[i]));
    ASSERT_EQ(h[i], referenceNarrow(kF16, f16Values, xs[i]));
    ASSERT_EQ(double(back[i]), decode(kBf16, bf[i]));
  }
  // F64 -> F16 / BF16: the nearest value to the double itself.
  int64_t m = int64_t(ds.size()), doubleRoundingCases = 0;
  std::vector<uint16_t> h64(m), bf64(m);
  convertElements(DType::F64, ds.data(), DType::F16, h64.data(), m);
  convertElements(DType::F64, ds.data(), DType::BF16, bf64.data(), m);
  auto nearest = [](const Format &f, const std::vector<double> &values,
                    double d) {
    uint16_t sign = std::signbit(d) ? 0x8000 : 0;
    double a = std::fabs(d);
    auto above = std::upper_bound(values.begin(), values.end(), a);
    uint16_t hi = uint16_t(above - values.begin());
    if (hi > 0 && values[hi - 1] == a)
      return uint16_t(sign | (hi - 1));
    uint16_t lo = uint16_t(hi - 1);
    double mid =
        (values[lo] + (hi < values.size() ? values[hi] : f.overflow)) / 2;
    return uint16_t(sign | (a < mid ? lo : a > mid ? hi : (lo & 1) ? hi : lo));
  };
  for (int64_t i = 0; i < m; ++i) {
    uint16_t want = nearest(kF16, f16Values, ds[i]);
    ASSERT_EQ(h64[i], want) << std::hexfloat << ds[i];
    ASSERT_EQ(bf64[i], nearest(kBf16, bf16Values, ds[i]))
        << std::hexfloat << ds[i];
    doubleRoundingCases += f32ToF16(float(ds[i])) != want;
  }
  // The sample holds doubles that f64 -> f32 -> f16 would round twice
  // wrongly: the direct conversion is needed.
  EXPECT_GT(doubleRoundingCases, 1000);
  double d[] = {0.1, -2.5, 1e300};
  float f[3];
  convertElements(DType::F64, d, DType::F32, f, 3);
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], -2.5f);
  EXPECT_TRUE(std::isinf(f[2]));
  EXPECT_EQ(firstNonFinite(DType::F32, f, 3), 2);
  EXPECT_EQ(firstNonFinite(DType::F64, d, 3), -1);
}
