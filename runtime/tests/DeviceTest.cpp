//===- DeviceTest.cpp - the backend's memory calls ------------------------===//
//
// sprt_device_init, zeroed allocation, the copies to and from the device and
// the strided device-to-device copy the collectives pack and unpack with.
//
//===----------------------------------------------------------------------===//

#include "sprt/device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

/// Device memory holding `host`.
float *toDevice(const std::vector<float> &host) {
  auto *d = static_cast<float *>(
      sprt_device_alloc(int64_t(host.size() * sizeof(float))));
  sprt_memcpy_to_device(d, host.data(), int64_t(host.size() * sizeof(float)),
                        sprt_current_stream());
  return d;
}

std::vector<float> toHost(const float *d, size_t n) {
  std::vector<float> host(n);
  sprt_memcpy_to_host(host.data(), d, int64_t(n * sizeof(float)),
                      sprt_current_stream());
  sprt_stream_synchronize(sprt_current_stream());
  return host;
}

TEST(Device, InitAllocZeroedAndRoundTrip) {
  EXPECT_EQ(sprt_device_init(0), nullptr);
  EXPECT_NE(std::strlen(sprt_backend_name()), 0u);
  auto *d = static_cast<float *>(sprt_device_alloc(100 * sizeof(float)));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(toHost(d, 100), std::vector<float>(100, 0.0f));
  sprt_device_free(d);
  std::vector<float> x = {1.5f, -2.0f, 3.25f};
  float *e = toDevice(x);
  EXPECT_EQ(toHost(e, 3), x);
  sprt_device_free(e);
}

TEST(Device, Copy2dMovesRowsBetweenPitches) {
  // A 3 x 5 block at column 2 of a 4 x 9 source into columns 1.. of a
  // 3 x 7 destination; everything else of the destination untouched.
  const int64_t srcCols = 9, dstCols = 7, rows = 3, width = 5;
  std::vector<float> src(size_t(4 * srcCols)), dst0(size_t(rows * dstCols));
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = float(i);
  for (size_t i = 0; i < dst0.size(); ++i)
    dst0[i] = -float(i) - 1.0f;
  float *s = toDevice(src), *d = toDevice(dst0);
  const int64_t f = sizeof(float);
  sprt_copy_2d(d + 1, dstCols * f, s + 2, srcCols * f, width * f, rows,
               sprt_current_stream());
  std::vector<float> got = toHost(d, dst0.size()), want = dst0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c)
      want[size_t(r * dstCols + 1 + c)] = src[size_t(r * srcCols + 2 + c)];
  EXPECT_EQ(got, want);
  // Contiguous rows (pitch = width): one block copy.
  sprt_copy_2d(d, 4 * f, s, 4 * f, 4 * f, 2, sprt_current_stream());
  got = toHost(d, 8);
  EXPECT_EQ(got, std::vector<float>(src.begin(), src.begin() + 8));
  // Nothing to copy: nothing changes.
  sprt_copy_2d(d, f, s + 30, f, 0, 3, sprt_current_stream());
  sprt_copy_2d(d, f, s + 30, f, f, 0, sprt_current_stream());
  EXPECT_EQ(toHost(d, 8), got);
  sprt_device_free(s);
  sprt_device_free(d);
}

} // namespace
