//===- ConvertOffsetsConformanceTest.cpp - sprt_convert on sub-ranges -----===//
//
// The CUDA backend converts four elements at a time where both buffers are
// aligned for it and the rest one at a time (runtime/cuda/Convert.cu). Every
// sub-range, at every start offset within a group of four on either side
// and with lengths that leave 1 to 3 elements over, must give the bits the
// whole-buffer conversion gives (ConvertConformanceTest.cpp checks those
// against its reference) and write nothing outside it.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/kernels.h"

#include <cstring>

using namespace sprt_conformance;
using sprt_test::randomFloats;

namespace {

using ConvertOffsets = DeviceTest;

size_t sizeOf(int32_t t) { return t == kF32 ? 4 : 2; }

/// v stored as type t, as bytes.
std::vector<uint8_t> bytesOf(const std::vector<float> &v, int32_t t) {
  std::vector<uint8_t> b(v.size() * sizeOf(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == kF32) {
      std::memcpy(&b[4 * i], &v[i], 4);
      continue;
    }
    const uint16_t h =
        t == kBf16 ? sprt::dtype::f32ToBf16(v[i]) : sprt::dtype::f32ToF16(v[i]);
    std::memcpy(&b[2 * i], &h, 2);
  }
  return b;
}

TEST_F(ConvertOffsets, EverySubRangeGivesTheWholeBuffersBits) {
  const int64_t n = 1031;
  // Beyond f16's range too (overflow to infinity), and small values.
  auto src = randomFloats(size_t(n), 77, -70000.0f, 70000.0f);
  for (size_t i = 0; i < src.size(); i += 7)
    src[i] *= 1e-9f;
  const int32_t types[] = {kF32, kBf16, kF16};
  for (int32_t from : types)
    for (int32_t to : types) {
      if (from == to)
        continue;
      const size_t fs = sizeOf(from), ts = sizeOf(to);
      DeviceBuffer<uint8_t> in(bytesOf(src, from)), whole(size_t(n) * ts);
      sprt_convert(in.get(), from, whole.get(), to, n);
      const std::vector<uint8_t> ref = whole.download();
      const std::vector<uint8_t> fill(size_t(n) * ts, 0xA5);
      for (int64_t inOff : {0, 1, 2, 3})
        for (int64_t outOff : {0, 1, 3})
          for (int64_t len : {int64_t(1), int64_t(6), n - 4}) {
            const std::string what =
                std::string(nameOf(from)) + "->" + nameOf(to) + " in+" +
                std::to_string(inOff) + " out+" + std::to_string(outOff) +
                " n=" + std::to_string(len);
            DeviceBuffer<uint8_t> out(fill);
            sprt_convert(in.get() + inOff * fs, from, out.get() + outOff * ts,
                         to, len);
            const std::vector<uint8_t> got = out.download();
            const size_t lo = size_t(outOff) * ts, hi = lo + size_t(len) * ts;
            EXPECT_EQ(0, std::memcmp(got.data() + lo,
                                     ref.data() + size_t(inOff) * ts,
                                     size_t(len) * ts))
                << what;
            EXPECT_TRUE(std::equal(got.begin(), got.begin() + lo, fill.begin()))
                << what << ": wrote before the range";
            EXPECT_TRUE(
                std::equal(got.begin() + hi, got.end(), fill.begin() + hi))
                << what << ": wrote past the range";
          }
    }
}

} // namespace
