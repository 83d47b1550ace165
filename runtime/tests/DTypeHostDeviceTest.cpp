//===- DTypeHostDeviceTest.cpp - one bf16 / f16 conversion, two compilers -===//
//
// sprt/dtype.h is the only implementation of the bf16 / f16 conversions:
// the runtime's checkpoint code (C++ compiler) and CUDA code (nvcc) include
// it. This checks that nvcc's compilation (host pass, DTypeNvcc.cu) gives
// the C++ compiler's bits: widening on all 65536 patterns of each format,
// narrowing on the f32 neighbours of every bf16 value, f16's range and a
// million random patterns (NaNs included).
//
//===----------------------------------------------------------------------===//

#include "sprt/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

extern "C" void sprt_test_nvcc_dtype(const float *xs, int64_t n, uint16_t *bf16,
                                     uint16_t *f16, float *wideBf16,
                                     float *wideF16);

using namespace sprt::dtype;

TEST(DTypeHostDevice, NvccHostPassMatchesCxxBitForBit) {
  std::vector<float> xs;
  for (uint32_t h = 0; h < 0x10000; ++h)
    for (int32_t d : {-1, 0, 1, 0x8000})
      xs.push_back(floatOf((h << 16) + uint32_t(d))); // around every bf16
  for (uint32_t u = 0x33000000u; u < 0x47800000u; u += 0x1fffu)
    xs.push_back(floatOf(u)); // f16's range, subnormals to overflow
  std::mt19937 rng(5);
  for (int i = 0; i < (1 << 20); ++i)
    xs.push_back(floatOf(uint32_t(rng())));
  int64_t n = int64_t(xs.size());
  std::vector<uint16_t> bf(n), h(n);
  std::vector<float> wideBf(0x10000), wideH(0x10000);
  sprt_test_nvcc_dtype(xs.data(), n, bf.data(), h.data(), wideBf.data(),
                       wideH.data());
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += bf[i] != f32ToBf16(xs[i]) || h[i] != f32ToF16(xs[i]);
  for (uint32_t p = 0; p < 0x10000; ++p)
    bad += bitsOf(wideBf[p]) != bitsOf(bf16ToF32(uint16_t(p))) ||
           bitsOf(wideH[p]) != bitsOf(f16ToF32(uint16_t(p)));
  EXPECT_EQ(bad, 0);
}
