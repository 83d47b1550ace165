//===- PhiloxHostDeviceTest.cpp - one Philox, two compilers ---------------===//
//
// sprt/philox.h is the only Philox implementation: the CPU backend's C
// entry points (compiled by the C++ compiler) and the CUDA kernels (nvcc)
// both include it. This checks that nvcc's compilation of it (host pass,
// PhiloxNvccDraws.cu) gives the same bits as the C++ compiler's for raw
// words, uniforms and normals (the normal's double Box-Muller included),
// over indices spread across the 64-bit range.
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" void sprt_test_nvcc_philox_draws(uint64_t seed, uint64_t stream,
                                            uint64_t first, int64_t n,
                                            float *uniforms, float *normals,
                                            uint32_t *words);

namespace {

TEST(PhiloxHostDevice, NvccHostPassMatchesCxxBitForBit) {
  const int64_t n = 20000;
  for (uint64_t seed : {0ull, 1234ull, 0xdeadbeefcafef00dull}) {
    const uint64_t stream = seed * 31 + 7, first = seed ^ 0x5555;
    std::vector<float> u(n), z(n);
    std::vector<uint32_t> w(size_t(4 * n));
    sprt_test_nvcc_philox_draws(seed, stream, first, n, u.data(), z.data(),
                                w.data());
    int64_t badU = 0, badZ = 0, badW = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t index = first + uint64_t(i) * 0x9E3779B97F4A7C15ull;
      const float cu = sprt_uniform(seed, stream, index);
      const float cz = sprt_normal(seed, stream, index);
      badU += std::memcmp(&cu, &u[i], sizeof(float)) != 0;
      badZ += std::memcmp(&cz, &z[i], sizeof(float)) != 0;
      const uint32_t counter[4] = {uint32_t(index), uint32_t(index >> 32),
                                   uint32_t(stream), uint32_t(i)};
      const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
      uint32_t cw[4];
      sprt_philox4x32(counter, key, cw);
      badW += std::memcmp(cw, &w[4 * i], sizeof cw) != 0;
    }
    EXPECT_EQ(badU, 0) << "uniforms differ, seed " << seed;
    EXPECT_EQ(badZ, 0) << "normals differ, seed " << seed;
    EXPECT_EQ(badW, 0) << "raw words differ, seed " << seed;
  }
}

// The shared header still gives Philox4x32-10's published known answers
// (Random123's kat_vectors), so both compilers are checked against an
// independent value too.
TEST(PhiloxHostDevice, KnownAnswer) {
  const uint32_t ctr[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
  const uint32_t key[2] = {0xa4093822u, 0x299f31d0u};
  const uint32_t expect[4] = {0xd16cfe09u, 0x94fdcceb, 0x5001e420u,
                              0x24126ea1u};
  uint32_t out[4];
  sprt_philox4x32(ctr, key, out);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], expect[i]) << i;
}

} // namespace
