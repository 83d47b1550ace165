//===- PhiloxTest.cpp - libsprt random numbers and name hashing -----------===//
//
// sprt_philox4x32 against Random123's known-answer vectors, sprt_uniform and
// sprt_normal against their definitions and moments, and sprt_hash_name
// against the published FNV-1a 64-bit vectors.
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

//===------------------------------ Philox -------------------------------===//

void expectPhilox(std::vector<uint32_t> ctr, std::vector<uint32_t> key,
                  std::vector<uint32_t> expected) {
  uint32_t out[4] = {0, 0, 0, 0};
  sprt_philox4x32(ctr.data(), key.data(), out);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], expected[i]) << "word " << i << std::hex << ": got 0x"
                                   << out[i] << ", expected 0x" << expected[i];
}

// Known-answer vectors of Random123 (kat_vectors, philox4x32_10).
TEST(Philox, KnownAnswerVectors) {
  expectPhilox({0, 0, 0, 0}, {0, 0},
               {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  expectPhilox({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
               {0xffffffff, 0xffffffff},
               {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  expectPhilox({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
               {0xa4093822, 0x299f31d0},
               {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

// counter = {index lo, index hi, stream lo, stream hi}, key = {seed lo, seed
// hi}, uniform = (word0 >> 8) 2^-24.
TEST(Philox, UniformIsTop24BitsOfWord0) {
  const uint64_t seeds[] = {0, 1, 0x123456789abcdef0ull};
  const uint64_t streams[] = {0, 7, 0xfedcba9876543210ull};
  const uint64_t indices[] = {0, 1, 12345, 0x1'0000'0003ull,
                              0xffffffffffffffffull};
  for (uint64_t seed : seeds)
    for (uint64_t stream : streams)
      for (uint64_t index : indices) {
        uint32_t ctr[4] = {uint32_t(index), uint32_t(index >> 32),
                           uint32_t(stream), uint32_t(stream >> 32)};
        uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
        uint32_t w[4];
        sprt_philox4x32(ctr, key, w);
        float expected = float(double(w[0] >> 8) / 16777216.0);
        EXPECT_EQ(sprt_uniform(seed, stream, index), expected)
            << seed << " " << stream << " " << index;
      }
}

TEST(Philox, UniformRangeAndMoments) {
  const int n = 100000;
  double sum = 0.0, sumSq = 0.0;
  float lo = 1.0f, hi = 0.0f;
  for (int i = 0; i < n; ++i) {
    float u = sprt_uniform(42, 3, uint64_t(i));
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
    sumSq += double(u) * u;
  }
  double mean = sum / n, var = sumSq / n - mean * mean;
  std::printf("[  stats   ] uniform: mean %.5f var %.5f min %.2g max %.7f\n",
              mean, var, lo, hi);
  // Standard error of the mean: sqrt(1/12 / n) = 9.1e-4; allow 5 sigma.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12.0 / n));
  // Var of u^2-based estimate: sd(var_hat) ~ sqrt(1/180 / n) = 2.4e-4.
  EXPECT_NEAR(var, 1.0 / 12.0, 5 * std::sqrt(1.0 / 180.0 / n));
  EXPECT_LT(lo, 1e-3f);
  EXPECT_GT(hi, 0.999f);
}

TEST(Philox, NormalMatchesBoxMuller) {
  for (uint64_t index :
       {uint64_t(0), uint64_t(1), uint64_t(99), uint64_t(0xabcdef012345ull)}) {
    const uint64_t seed = 1234, stream = sprt_hash_name("h.0.attn.w");
    uint32_t ctr[4] = {uint32_t(index), uint32_t(index >> 32), uint32_t(stream),
                       uint32_t(stream >> 32)};
    uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
    uint32_t w[4];
    sprt_philox4x32(ctr, key, w);
    double u1 = (double(w[0]) + 1.0) / 4294967296.0; // (0, 1]
    double u2 = double(w[1]) / 4294967296.0;         // [0, 1)
    double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    EXPECT_NEAR(sprt_normal(seed, stream, index), z, 1e-6 * (1 + std::fabs(z)))
        << index;
  }
}

TEST(Philox, NormalMoments) {
  const int n = 100000;
  double sum = 0.0, sumSq = 0.0, sum4 = 0.0;
  for (int i = 0; i < n; ++i) {
    float z = sprt_normal(7, 11, uint64_t(i));
    ASSERT_TRUE(std::isfinite(z));
    sum += z;
    sumSq += double(z) * z;
    sum4 += double(z) * z * z * z;
  }
  double mean = sum / n, var = sumSq / n - mean * mean;
  double sd = std::sqrt(var), kurt = sum4 / n;
  std::printf("[  stats   ] normal: mean %.5f std %.5f E[z^4] %.4f\n", mean, sd,
              kurt);
  // Standard errors: mean 1/sqrt(n) = 3.2e-3, std 1/sqrt(2n) = 2.2e-3,
  // E[z^4] sqrt(96/n) = 3.1e-2. 5 sigma each.
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(sd, 1.0, 5 / std::sqrt(2.0 * n));
  EXPECT_NEAR(kurt, 3.0, 5 * std::sqrt(96.0 / n));
}

TEST(Philox, SeedsStreamsAndIndicesGiveDifferentDraws) {
  float a = sprt_uniform(1, 2, 3);
  EXPECT_NE(a, sprt_uniform(2, 2, 3));
  EXPECT_NE(a, sprt_uniform(1, 3, 3));
  EXPECT_NE(a, sprt_uniform(1, 2, 4));
  // The high halves of the 64-bit inputs matter too.
  EXPECT_NE(a, sprt_uniform(1 + (1ull << 32), 2, 3));
  EXPECT_NE(a, sprt_uniform(1, 2 + (1ull << 32), 3));
  EXPECT_NE(a, sprt_uniform(1, 2, 3 + (1ull << 32)));
  EXPECT_EQ(a, sprt_uniform(1, 2, 3));
}

TEST(HashName, Fnv1a64) {
  // Published FNV-1a 64-bit test vectors.
  EXPECT_EQ(sprt_hash_name(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(sprt_hash_name("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(sprt_hash_name("foobar"), 0x85944171f73967e8ull);
  // And an independent loop on a parameter-like name.
  const char *name = "transformer.h.11.mlp.c_fc.weight";
  uint64_t h = 14695981039346656037ull;
  for (const char *p = name; *p; ++p)
    h = (h ^ uint8_t(*p)) * 1099511628211ull;
  EXPECT_EQ(sprt_hash_name(name), h);
  EXPECT_NE(sprt_hash_name("h.0.w"), sprt_hash_name("h.1.w"));
}

} // namespace
