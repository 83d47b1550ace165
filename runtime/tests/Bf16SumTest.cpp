//===- Bf16SumTest.cpp - the bf16 reduction's addition vs a reference -----===//
//
// sprt::dtype::addBf16 (the elementwise operation of the MPI layer's bf16
// sum: added in f32, rounded to bf16) against a plain reference: the exact
// sum of the two values in double (exact when their exponents differ by at
// most 45: 8 + 45 significant bits fit in 53; beyond that the smaller is
// below 2^-37 of the larger, and the correctly rounded sum is the larger),
// rounded to bf16 with rint (ties to even) on the value scaled to the bf16
// quantum of its binade (2^-133 below 2^-126), an infinity past the largest
// finite bf16 value. Checked bit for bit on every bf16 value against a set
// of edge values, on the ties and their neighbours around 1, and on a
// million random pairs of any exponents and a million of nearby ones.
//
//===----------------------------------------------------------------------===//

#include "sprt/dtype.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using sprt::dtype::addBf16;

namespace {
double decode(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return double(f);
}

uint16_t encode(double exactBf16) {
  float f = float(exactBf16); // exact: a bf16 value (or an infinity)
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return uint16_t(u >> 16);
}

/// The bf16 nearest the exact sum a + b, ties to even.
uint16_t reference(uint16_t ha, uint16_t hb) {
  double a = decode(ha), b = decode(hb);
  if (std::isnan(a) || std::isnan(b) ||
      (std::isinf(a) && std::isinf(b) && a != b))
    return 0x7fc0;
  if (std::isinf(a) || std::isinf(b))
    return encode(std::isinf(a) ? a : b);
  if (a == 0 && b == 0) // -0 only from -0 + -0
    return encode(std::signbit(a) && std::signbit(b) ? -0.0 : 0.0);
  if (a == 0 || b == 0)
    return encode(a == 0 ? b : a);
  double s;
  if (std::abs(std::ilogb(a) - std::ilogb(b)) > 45)
    s = std::abs(a) > std::abs(b) ? a : b;
  else
    s = a + b; // exact
  if (s == 0)
    return 0; // x + -x is +0 when rounding to nearest
  int e = std::max(std::ilogb(s), -126);
  double quantum = std::ldexp(1.0, e - 7);
  double r = std::rint(s / quantum) * quantum;
  const double maxBf16 = std::ldexp(255.0, 127 - 7);
  if (std::abs(r) > maxBf16)
    r = std::copysign(std::numeric_limits<double>::infinity(), r);
  if (r == 0)
    return encode(std::copysign(0.0, s));
  return encode(r);
}

void expectSum(uint16_t a, uint16_t b) {
  uint16_t got = addBf16(a, b), want = reference(a, b);
  if (std::isnan(decode(want))) {
    EXPECT_TRUE(std::isnan(decode(got)))
        << std::hex << a << " + " << b << " = " << got;
    return;
  }
  ASSERT_EQ(got, want) << std::hex << a << " + " << b << ": " << decode(a)
                       << " + " << decode(b);
}
} // namespace

TEST(Bf16Sum, RoundingModeIsToNearest) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(Bf16Sum, EveryValueAgainstEdges) {
  const uint16_t edges[] = {
      0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x8080, // 0, subnormal
      0x3f80, 0xbf80, 0x3f81, 0xbf81, 0x3b80, 0xbb80, 0x3b81, // 1, 2^-8
      0x3c00, 0x4000, 0xc000, 0x7f7f, 0xff7f, 0x7f00, 0x7f80, // max, inf
      0xff80, 0x7fc0, 0x4b80, 0x3380, 0x0d80};
  for (uint32_t a = 0; a < 0x10000; ++a)
    for (uint16_t b : edges)
      expectSum(uint16_t(a), b);
}

TEST(Bf16Sum, TiesAroundOneRoundToEven) {
  // 1 + k/128 plus an odd multiple of 2^-8 (half an ulp at 1: a tie while
  // the sum stays below 2) and the bf16 values next to it, in both signs.
  int ties = 0;
  for (int k = 0; k < 128; ++k)
    for (int j = -8; j <= 8; ++j)
      for (int next = -1; next <= 1; ++next) {
        uint16_t a = uint16_t(0x3f80 + k);
        uint16_t b = uint16_t(encode(std::ldexp(double(2 * j + 1), -8)) + next);
        double exact = decode(a) + decode(b);
        ties += std::rint(exact * 128) != exact * 128 &&
                std::rint(exact * 256) == exact * 256 && exact < 2;
        expectSum(a, b);
        expectSum(uint16_t(a | 0x8000), uint16_t(b ^ 0x8000));
      }
  EXPECT_GT(ties, 1000);
}

TEST(Bf16Sum, RandomPairs) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> bits(0, 0xffff);
  std::uniform_int_distribution<int> near(-10, 10);
  for (int i = 0; i < 1000000; ++i) {
    uint16_t a = uint16_t(bits(gen));
    expectSum(a, uint16_t(bits(gen)));
    // Nearby exponents: where sums carry, cancel and tie.
    int e = int((a >> 7) & 0xff) + near(gen);
    if (e < 0 || e > 254)
      continue;
    uint16_t b = uint16_t((bits(gen) & 0x807f) | (uint32_t(e) << 7));
    expectSum(a, b);
  }
}
