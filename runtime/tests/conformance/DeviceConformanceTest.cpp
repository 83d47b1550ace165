//===- DeviceConformanceTest.cpp - memory, copies, backend name -----------===//

#include "Conformance.h"
#include "sprt/kernels.h"

#include <cstring>

using namespace sprt_conformance;

namespace {

using Device = DeviceTest;

TEST_F(Device, BackendNameIsTheLinkedOne) {
  EXPECT_STREQ(sprt_backend_name(), SPRT_EXPECTED_BACKEND);
}

TEST_F(Device, InitIsRepeatable) { EXPECT_EQ(sprt_device_init(0), nullptr); }

TEST_F(Device, AllocIsZeroedAndRoundTrips) {
  DeviceBuffer<float> buf(1000);
  for (float x : buf.download())
    ASSERT_EQ(x, 0.0f);
  auto host = sprt_test::randomFloats(1000, 3);
  buf.upload(host);
  sprt_test::expectBitwiseEqual("round trip", buf.download(), host);
}

TEST_F(Device, Copy2dStridedRows) {
  // 5 rows of 7 floats out of rows of 11, into rows of 9.
  const int64_t rows = 5, width = 7, srcPitch = 11, dstPitch = 9;
  auto src = sprt_test::randomFloats(size_t(rows * srcPitch), 4);
  DeviceBuffer<float> dSrc(src), dDst(nans(size_t(rows * dstPitch)));
  sprt_copy_2d(dDst, dstPitch * 4, dSrc, srcPitch * 4, width * 4, rows,
               sprt_current_stream());
  auto got = dDst.download();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < dstPitch; ++c) {
      if (c < width)
        EXPECT_EQ(got[r * dstPitch + c], src[r * srcPitch + c]);
      else
        EXPECT_TRUE(std::isnan(got[r * dstPitch + c])) << "padding written";
    }
}

TEST_F(Device, Copy2dContiguousAndOneRow) {
  // Pitches equal to the width (one block), and one row whose pitches say
  // nothing (TrainOps' copyFloats): both are plain copies of width * height.
  const int64_t rows = 6, width = 13;
  auto src = sprt_test::randomFloats(size_t(rows * width), 5);
  DeviceBuffer<float> dSrc(src), dDst(nans(src.size() + 1));
  sprt_copy_2d(dDst, width * 4, dSrc, width * 4, width * 4, rows,
               sprt_current_stream());
  auto got = dDst.download();
  for (size_t i = 0; i < src.size(); ++i)
    EXPECT_EQ(got[i], src[i]);
  EXPECT_TRUE(std::isnan(got.back())) << "past the end written";
  DeviceBuffer<float> dRow(nans(src.size()));
  sprt_copy_2d(dRow, 0, dSrc, 1, rows * width * 4, 1, sprt_current_stream());
  sprt_test::expectBitwiseEqual("one row", dRow.download(), src);
}

TEST_F(Device, MemoryIsReported) {
  int64_t freeBytes = 0, totalBytes = 0;
  ASSERT_EQ(sprt_device_memory(&freeBytes, &totalBytes), 0);
  EXPECT_GT(freeBytes, 0);
  EXPECT_LE(freeBytes, totalBytes);
  EXPECT_GE(sprt_device_id(), 0);
}

// The key grouping the ranks that share a device (the memory-fit check's):
// the same from call to call, and a color MPI_Comm_split takes.
TEST_F(Device, KeyIsStableAndSmall) {
  const int64_t key = sprt_device_key();
  EXPECT_GE(key, 0);
  EXPECT_LT(key, int64_t(1) << 30);
  EXPECT_EQ(sprt_device_key(), key);
}

// The workspaces the backend keeps (the memory-fit check reserves them
// before it measures): once, so a second call and the GEMMs after it take
// no more device memory.
TEST_F(Device, WorkspacesAreReservedOnce) {
  ASSERT_EQ(sprt_device_reserve_workspaces(), nullptr);
  const int64_t M = 4, K = 8, N = 16;
  DeviceBuffer<float> x(std::vector<float>(M * K, 1.0f)),
      w(std::vector<float>(N * K, 0.5f)), y(nans(M * N));
  int64_t before = 0, after = 0, total = 0;
  ASSERT_EQ(sprt_device_memory(&before, &total), 0);
  ASSERT_EQ(sprt_device_reserve_workspaces(), nullptr);
  sprt_linear_f32(x, w, nullptr, y, M, K, N, 0);
  sprt_stream_synchronize(sprt_current_stream());
  ASSERT_EQ(sprt_device_memory(&after, &total), 0);
  if (!onCpuBackend()) // host memory moves on its own
    EXPECT_EQ(after, before);
}

} // namespace
