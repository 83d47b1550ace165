//===- FusedWidenTest.cpp - fused gathers of bf16 / f16 inputs ------------===//
//
// sprt_all_gather_linear_widened_f32 and
// sprt_all_gather_linear_grad_weight_widened_f32 gather a bf16 / f16 input
// in its own precision and widen it after the gather: their results equal,
// bit for bit, the f32 entry points on the widened input (widening is
// exact), with half the bytes sent, in the workspace they document, for
// every chunk count.
//
//===----------------------------------------------------------------------===//

#include "../core/Workspace.h"
#include "CollectiveTestUtil.h"

#include "sprt/dtype.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

namespace {
using sprt_test::GuardedWorkspace;
using sprt_test::lineMesh;
using sprt_test::worldSize;

/// `count` values of a rank-dependent pattern in [-1, 1), stored in
/// `dtype` (bf16 / f16 bits), and the same values widened to f32.
void narrowPattern(int64_t count, int64_t rank, int32_t dtype,
                   std::vector<uint16_t> &narrow, std::vector<float> &wide) {
  narrow.resize(size_t(count));
  wide.resize(size_t(count));
  for (int64_t i = 0; i < count; ++i) {
    float v = float((rank * 37 + i * 11) % 23) / 11.5f - 1.0f + 1e-3f * i;
    narrow[size_t(i)] = dtype == SPRT_DTYPE_BF16 ? sprt::dtype::f32ToBf16(v)
                                                 : sprt::dtype::f32ToF16(v);
    wide[size_t(i)] = dtype == SPRT_DTYPE_BF16
                          ? sprt::dtype::bf16ToF32(narrow[size_t(i)])
                          : sprt::dtype::f16ToF32(narrow[size_t(i)]);
  }
}

/// The workspace of a widened gather: min(chunks, 2) chunks of every rank's
/// rows in 2 bytes, and one chunk of every rank in f32.
int64_t widenedWorkspace(int64_t chunks, int64_t n, int64_t rows, int64_t K) {
  int64_t chunkElems = rows / chunks * K;
  return std::min<int64_t>(chunks, 2) * n * chunkElems * 2 + n * chunkElems * 4;
}

TEST(FusedWiden, AllGatherLinearOfANarrowInputIsTheF32OneOfItsWidening) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5, N = 3;
  std::vector<float> w(N * K), bias(N);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float((int64_t(i) * 7) % 13) / 6.0f - 1.0f;
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = float(i) - 1.0f;
  for (int32_t dtype : {SPRT_DTYPE_BF16, SPRT_DTYPE_F16}) {
    std::vector<uint16_t> x;
    std::vector<float> wide;
    narrowPattern(rows * K, r, dtype, x, wide);
    for (int64_t chunks : {1, 2, 4}) {
      std::vector<float> want(size_t(rows * n * N)), got(want.size(), -7.0f);
      int64_t f32Need =
          std::min<int64_t>(chunks, 2) * n * (rows / chunks) * K * 4;
      GuardedWorkspace f32Workspace(f32Need);
      sprt_reset_bytes_sent();
      sprt_all_gather_linear_f32(wide.data(), w.data(), bias.data(),
                                 want.data(), rows, K, N, 0, chunks, 0,
                                 f32Workspace.get(), f32Need);
      int64_t f32Bytes = sprt_bytes_sent(0);
      int64_t need = widenedWorkspace(chunks, n, rows, K);
      GuardedWorkspace workspace(need);
      sprt_reset_bytes_sent();
      sprt::resetWorkspaceUse();
      sprt_all_gather_linear_widened_f32(x.data(), dtype, w.data(), bias.data(),
                                         got.data(), rows, K, N, 0, chunks, 0,
                                         workspace.get(), need);
      EXPECT_EQ(sprt_bytes_sent(0) * 2, f32Bytes) << "chunks " << chunks;
      EXPECT_TRUE(workspace.guardIntact()) << "chunks " << chunks;
      EXPECT_EQ(sprt::workspaceUse().byOp["all_gather_matmul"], need);
      EXPECT_EQ(got, want) << "dtype " << dtype << ", chunks " << chunks;
    }
  }
  // An unknown dtype, and a workspace one byte short, are refused.
  std::vector<uint16_t> x(rows * K, 0);
  std::vector<float> y(size_t(rows * n * N));
  int64_t need = widenedWorkspace(2, n, rows, K);
  std::vector<char> workspace(static_cast<size_t>(need));
  EXPECT_THROW(sprt_all_gather_linear_widened_f32(
                   x.data(), 7, w.data(), nullptr, y.data(), rows, K, N, 0, 2,
                   0, workspace.data(), need),
               std::invalid_argument);
  EXPECT_THROW(sprt_all_gather_linear_widened_f32(
                   x.data(), SPRT_DTYPE_BF16, w.data(), nullptr, y.data(), rows,
                   K, N, 0, 2, 0, workspace.data(), need - 1),
               std::invalid_argument);
}

TEST(FusedWiden, WeightGradientsOfANarrowInputAreTheF32OnesOfItsWidening) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5;
  const std::vector<int64_t> outs = {3, 2};
  std::vector<std::vector<float>> dys;
  for (size_t j = 0; j < outs.size(); ++j) {
    dys.emplace_back(size_t(n * rows * outs[j]));
    for (size_t i = 0; i < dys[j].size(); ++i)
      dys[j][i] = float((r + int64_t(i) * 5 + int64_t(j)) % 9) / 4.0f - 1.0f;
  }
  const float *dyPtrs[2] = {dys[0].data(), dys[1].data()};
  int64_t dySizes[2] = {int64_t(dys[0].size()), int64_t(dys[1].size())};
  std::vector<uint16_t> x;
  std::vector<float> wide;
  narrowPattern(rows * K, r, SPRT_DTYPE_BF16, x, wide);
  for (int64_t chunks : {1, 2, 4}) {
    std::vector<std::vector<float>> want, got;
    for (int64_t N : outs) {
      want.emplace_back(size_t(N * K));
      got.emplace_back(size_t(N * K), -7.0f);
    }
    float *wantPtrs[2] = {want[0].data(), want[1].data()};
    float *gotPtrs[2] = {got[0].data(), got[1].data()};
    int64_t f32Need =
        std::min<int64_t>(chunks, 2) * n * (rows / chunks) * K * 4;
    GuardedWorkspace f32Workspace(f32Need);
    sprt_all_gather_linear_grad_weight_f32(wide.data(), 2, dyPtrs, wantPtrs,
                                           dySizes, rows, K, 0, chunks, 0,
                                           f32Workspace.get(), f32Need);
    int64_t need = widenedWorkspace(chunks, n, rows, K);
    GuardedWorkspace workspace(need);
    sprt_all_gather_linear_grad_weight_widened_f32(
        x.data(), SPRT_DTYPE_BF16, 2, dyPtrs, gotPtrs, dySizes, rows, K, 0,
        chunks, 0, workspace.get(), need);
    EXPECT_TRUE(workspace.guardIntact()) << "chunks " << chunks;
    EXPECT_EQ(got, want) << "chunks " << chunks;
  }
}
} // namespace
