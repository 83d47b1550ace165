//===- FusedTypedTest.cpp - fused collective GEMMs on stored dtypes -------===//
//
// sprt_all_gather_linear_typed, sprt_linear_reduce_scatter_typed and
// sprt_all_gather_linear_grad_weight_typed read every tensor in its own
// dtype: their results equal, bit for bit, the f32 entry points on the
// widened tensors (widening is exact), rounded once to the result's dtype,
// because each chunk's GEMM is one panel of sprt_linear_typed (the f32
// kernel's bits on widened operands, TypedGemmTest). The input travels in
// its own dtype (half the bytes of f32 for bf16 / f16), in the workspace
// runtime.h documents, for every chunk count and both weight layouts.
// sprt_all_gather_linear_gelu_typed is the gathered GEMM then the GELU.
//
//===----------------------------------------------------------------------===//

#include "../core/Workspace.h"
#include "CollectiveTestUtil.h"

#include "sprt/dtype.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <cstring>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
using sprt_test::GuardedWorkspace;
using sprt_test::lineMesh;
using sprt_test::worldSize;

int64_t bytesOf(int32_t dtype) { return dtype == SPRT_DTYPE_F32 ? 4 : 2; }

/// A tensor stored in `dtype`, and the same values widened to f32.
struct Stored {
  int32_t dtype;
  std::vector<char> bytes;
  std::vector<float> wide;

  /// `count` values of a pattern in [-1, 1) that depends on `seed`.
  Stored(int32_t dtype, int64_t count, int64_t seed)
      : dtype(dtype), bytes(size_t(count * bytesOf(dtype))),
        wide(size_t(count)) {
    std::vector<float> values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      values[size_t(i)] =
          float((seed * 37 + i * 11) % 23) / 11.5f - 1.0f + 1e-3f * float(i);
    sprt_convert(values.data(), SPRT_DTYPE_F32, bytes.data(), dtype, count);
    sprt_convert(bytes.data(), dtype, wide.data(), SPRT_DTYPE_F32, count);
  }
  /// `wide` rounded to `dtype` (nearest even): what a kernel writing this
  /// result from f32 values must store.
  static std::vector<char> rounded(const std::vector<float> &wide,
                                   int32_t dtype) {
    std::vector<char> out(wide.size() * size_t(bytesOf(dtype)));
    sprt_convert(wide.data(), SPRT_DTYPE_F32, out.data(), dtype,
                 int64_t(wide.size()));
    return out;
  }
};

std::string name(int32_t dtype) {
  return dtype == SPRT_DTYPE_F32    ? "f32"
         : dtype == SPRT_DTYPE_BF16 ? "bf16"
                                    : "f16";
}

/// The dtypes of (input, weight, bias, result) the tests run: one type
/// throughout, mixes, and no bias (-1).
const std::vector<std::vector<int32_t>> kCombos = {
    {SPRT_DTYPE_BF16, SPRT_DTYPE_BF16, SPRT_DTYPE_BF16, SPRT_DTYPE_BF16},
    {SPRT_DTYPE_F16, SPRT_DTYPE_F16, SPRT_DTYPE_F16, SPRT_DTYPE_F16},
    {SPRT_DTYPE_BF16, SPRT_DTYPE_BF16, SPRT_DTYPE_F32, SPRT_DTYPE_F32},
    {SPRT_DTYPE_F32, SPRT_DTYPE_BF16, SPRT_DTYPE_F16, SPRT_DTYPE_F16},
    {SPRT_DTYPE_F16, SPRT_DTYPE_F32, -1, SPRT_DTYPE_BF16},
    {SPRT_DTYPE_F32, SPRT_DTYPE_F32, SPRT_DTYPE_F32, SPRT_DTYPE_F32},
};

/// min(chunks, 2) chunks of every rank's rows of K, `elem` bytes each.
int64_t slotBytes(int64_t chunks, int64_t n, int64_t rows, int64_t cols,
                  int64_t elem) {
  return std::min<int64_t>(chunks, 2) * n * (rows / chunks) * cols * elem;
}

TEST(FusedTyped, AllGatherLinearIsTheF32OneOfTheWidenedTensorsRoundedOnce) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5, N = 3;
  for (const std::vector<int32_t> &c : kCombos)
    for (int32_t layout : {0, 1})
      for (int64_t chunks : {1, 2, 4}) {
        std::string where = name(c[0]) + " " + name(c[1]) + " " +
                            (c[2] < 0 ? "none" : name(c[2])) + " -> " +
                            name(c[3]) + ", layout " + std::to_string(layout) +
                            ", chunks " + std::to_string(chunks);
        Stored x(c[0], rows * K, r), w(c[1], N * K, 100),
            bias(c[2] < 0 ? SPRT_DTYPE_F32 : c[2], N, 200);
        const float *wideBias = c[2] < 0 ? nullptr : bias.wide.data();
        const void *storedBias = c[2] < 0 ? nullptr : bias.bytes.data();
        std::vector<float> want32(size_t(n * rows * N));
        int64_t f32Need = slotBytes(chunks, n, rows, K, 4);
        GuardedWorkspace f32Workspace(f32Need);
        sprt_reset_bytes_sent();
        sprt_all_gather_linear_f32(x.wide.data(), w.wide.data(), wideBias,
                                   want32.data(), rows, K, N, layout, chunks, 0,
                                   f32Workspace.get(), f32Need);
        int64_t f32Bytes = sprt_bytes_sent(0);
        std::vector<char> want = Stored::rounded(want32, c[3]);
        std::vector<char> got(want.size(), 0x5a);
        int64_t need = slotBytes(chunks, n, rows, K, bytesOf(c[0]));
        GuardedWorkspace workspace(need);
        sprt_reset_bytes_sent();
        sprt::resetWorkspaceUse();
        sprt_all_gather_linear_typed(x.bytes.data(), c[0], w.bytes.data(), c[1],
                                     storedBias, c[2] < 0 ? 99 : c[2],
                                     got.data(), c[3], rows, K, N, layout,
                                     chunks, 0, workspace.get(), need);
        EXPECT_EQ(sprt_bytes_sent(0) * 4, f32Bytes * bytesOf(c[0])) << where;
        EXPECT_TRUE(workspace.guardIntact()) << where;
        EXPECT_EQ(sprt::workspaceUse().byOp["all_gather_matmul"], need)
            << where;
        EXPECT_EQ(got, want) << where;
      }
  // A workspace one byte short, and an unknown input dtype, are refused.
  Stored x(SPRT_DTYPE_BF16, rows * K, r), w(SPRT_DTYPE_BF16, N * K, 1);
  std::vector<char> y(size_t(n * rows * N * 2));
  int64_t need = slotBytes(2, n, rows, K, 2);
  std::vector<char> workspace(static_cast<size_t>(need));
  EXPECT_THROW(sprt_all_gather_linear_typed(
                   x.bytes.data(), SPRT_DTYPE_BF16, w.bytes.data(),
                   SPRT_DTYPE_BF16, nullptr, 0, y.data(), SPRT_DTYPE_BF16, rows,
                   K, N, 0, 2, 0, workspace.data(), need - 1),
               std::invalid_argument);
  EXPECT_THROW(sprt_all_gather_linear_typed(x.bytes.data(), 7, w.bytes.data(),
                                            SPRT_DTYPE_BF16, nullptr, 0,
                                            y.data(), SPRT_DTYPE_BF16, rows, K,
                                            N, 0, 2, 0, workspace.data(), need),
               std::invalid_argument);
}

// dist.all_gather_matmul_gelu: pre is sprt_all_gather_linear_typed's
// result (or _widened_f32's, for a bf16 / f16 input of an otherwise f32
// op) and y sprt_gelu_typed of it, bit for bit on this backend (each
// chunk's sprt_linear_gelu_typed is the two calls' bits on the cpu target),
// in the same workspace; a null pre leaves y the same.
TEST(FusedTyped, AllGatherLinearGeluIsTheGatheredGemmThenTheGelu) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5, N = 3;
  std::vector<std::vector<int32_t>> combos = kCombos;
  // Widened: a bf16 input of an otherwise f32 op.
  combos.push_back(
      {SPRT_DTYPE_BF16, SPRT_DTYPE_F32, SPRT_DTYPE_F32, SPRT_DTYPE_F32});
  for (const std::vector<int32_t> &c : combos)
    for (int32_t tanh : {0, 1})
      for (int32_t layout : {0, 1})
        for (int64_t chunks : {1, 2, 4}) {
          std::string where = name(c[0]) + " " + name(c[1]) + " " +
                              (c[2] < 0 ? "none" : name(c[2])) + " -> " +
                              name(c[3]) + ", tanh " + std::to_string(tanh) +
                              ", layout " + std::to_string(layout) +
                              ", chunks " + std::to_string(chunks);
          bool widened = c[0] != SPRT_DTYPE_F32 && c[1] == SPRT_DTYPE_F32 &&
                         c[2] == SPRT_DTYPE_F32 && c[3] == SPRT_DTYPE_F32;
          Stored x(c[0], rows * K, r), w(c[1], N * K, 100),
              bias(c[2] < 0 ? SPRT_DTYPE_F32 : c[2], N, 200);
          const void *storedBias = c[2] < 0 ? nullptr : bias.bytes.data();
          int32_t biasDtype = c[2] < 0 ? 99 : c[2];
          int64_t count = n * rows * N, elem = bytesOf(c[3]);
          int64_t need = slotBytes(chunks, n, rows, K, bytesOf(c[0])) +
                         (widened ? n * (rows / chunks) * K * 4 : 0);
          GuardedWorkspace workspace(need);
          std::vector<char> wantPre(size_t(count * elem)), want(wantPre.size());
          if (widened)
            sprt_all_gather_linear_widened_f32(
                x.bytes.data(), c[0], w.wide.data(), bias.wide.data(),
                reinterpret_cast<float *>(wantPre.data()), rows, K, N, layout,
                chunks, 0, workspace.get(), need);
          else
            sprt_all_gather_linear_typed(
                x.bytes.data(), c[0], w.bytes.data(), c[1], storedBias,
                biasDtype, wantPre.data(), c[3], rows, K, N, layout, chunks, 0,
                workspace.get(), need);
          sprt_gelu_typed(wantPre.data(), want.data(), count, tanh, c[3]);
          std::vector<char> pre(wantPre.size(), 0x5a), y(want.size(), 0x5a);
          sprt_reset_bytes_sent();
          sprt::resetWorkspaceUse();
          sprt_all_gather_linear_gelu_typed(
              x.bytes.data(), c[0], w.bytes.data(), c[1], storedBias, biasDtype,
              pre.data(), y.data(), c[3], rows, K, N, layout, tanh, chunks, 0,
              workspace.get(), need);
          EXPECT_EQ(sprt_bytes_sent(0), (n - 1) * rows * K * bytesOf(c[0]))
              << where;
          EXPECT_TRUE(workspace.guardIntact()) << where;
          EXPECT_EQ(sprt::workspaceUse().byOp["all_gather_matmul_gelu"], need)
              << where;
          EXPECT_EQ(pre, wantPre) << where;
          EXPECT_EQ(y, want) << where;
          std::vector<char> alone(want.size(), 0x5a);
          sprt_all_gather_linear_gelu_typed(
              x.bytes.data(), c[0], w.bytes.data(), c[1], storedBias, biasDtype,
              nullptr, alone.data(), c[3], rows, K, N, layout, tanh, chunks, 0,
              workspace.get(), need);
          EXPECT_EQ(alone, want) << where << ", without pre";
          EXPECT_THROW(sprt_all_gather_linear_gelu_typed(
                           x.bytes.data(), c[0], w.bytes.data(), c[1],
                           storedBias, biasDtype, pre.data(), y.data(), c[3],
                           rows, K, N, layout, tanh, chunks, 0, workspace.get(),
                           need - 1),
                       std::invalid_argument)
              << where;
        }
}

TEST(FusedTyped, LinearReduceScatterIsTheF32OneOfTheWidenedTensors) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 4, K = 6, N = 5;
  for (const std::vector<int32_t> &c : kCombos)
    for (int32_t layout : {0, 1})
      for (int64_t chunks : {1, 2, 4}) {
        std::string where = name(c[0]) + " " + name(c[1]) + " " +
                            (c[2] < 0 ? "none" : name(c[2])) + ", layout " +
                            std::to_string(layout) + ", chunks " +
                            std::to_string(chunks);
        Stored x(c[0], n * rows * K, r), w(c[1], N * K, 100 + r),
            bias(c[2] < 0 ? SPRT_DTYPE_F32 : c[2], N, 200);
        const float *wideBias = c[2] < 0 ? nullptr : bias.wide.data();
        const void *storedBias = c[2] < 0 ? nullptr : bias.bytes.data();
        std::vector<float> want(size_t(rows * N)), got(want.size(), -7.0f);
        int64_t f32Need = slotBytes(chunks, n, rows, N, 4);
        GuardedWorkspace f32Workspace(f32Need);
        sprt_linear_reduce_scatter_f32(x.wide.data(), w.wide.data(), wideBias,
                                       want.data(), rows, K, N, layout, chunks,
                                       0, f32Workspace.get(), f32Need);
        // The partial sums, and a bf16 / f16 bias widened.
        int64_t need =
            f32Need + (c[2] >= 0 && c[2] != SPRT_DTYPE_F32 ? N * 4 : 0);
        GuardedWorkspace workspace(need);
        sprt::resetWorkspaceUse();
        sprt_linear_reduce_scatter_typed(x.bytes.data(), c[0], w.bytes.data(),
                                         c[1], storedBias, c[2] < 0 ? 99 : c[2],
                                         got.data(), rows, K, N, layout, chunks,
                                         0, workspace.get(), need);
        EXPECT_TRUE(workspace.guardIntact()) << where;
        EXPECT_EQ(sprt::workspaceUse().byOp["matmul_reduce_scatter"], need)
            << where;
        EXPECT_EQ(got, want) << where;
        EXPECT_THROW(sprt_linear_reduce_scatter_typed(
                         x.bytes.data(), c[0], w.bytes.data(), c[1], storedBias,
                         c[2] < 0 ? 99 : c[2], got.data(), rows, K, N, layout,
                         chunks, 0, workspace.get(), need - 1),
                     std::invalid_argument)
            << where;
      }
}

TEST(FusedTyped, WeightGradientsAreTheF32OnesOfTheWidenedTensors) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5;
  const std::vector<int64_t> outs = {3, 2};
  for (int32_t xd : {SPRT_DTYPE_BF16, SPRT_DTYPE_F16, SPRT_DTYPE_F32})
    for (int32_t dyd : {SPRT_DTYPE_BF16, SPRT_DTYPE_F16, SPRT_DTYPE_F32})
      for (int32_t layout : {0, 1})
        for (int64_t chunks : {1, 2, 4}) {
          std::string where = name(xd) + " x, " + name(dyd) + " dys, layout " +
                              std::to_string(layout) + ", chunks " +
                              std::to_string(chunks);
          Stored x(xd, rows * K, r);
          std::vector<Stored> dys;
          for (size_t j = 0; j < outs.size(); ++j)
            dys.emplace_back(dyd, n * rows * outs[j], 50 + int64_t(j));
          const float *wideDys[2] = {dys[0].wide.data(), dys[1].wide.data()};
          const void *storedDys[2] = {dys[0].bytes.data(), dys[1].bytes.data()};
          int64_t dySizes[2] = {n * rows * outs[0], n * rows * outs[1]};
          std::vector<std::vector<float>> want, got;
          for (int64_t N : outs) {
            want.emplace_back(size_t(N * K));
            got.emplace_back(size_t(N * K), -7.0f);
          }
          float *wantPtrs[2] = {want[0].data(), want[1].data()};
          float *gotPtrs[2] = {got[0].data(), got[1].data()};
          int64_t f32Need = slotBytes(chunks, n, rows, K, 4);
          GuardedWorkspace f32Workspace(f32Need);
          sprt_reset_bytes_sent();
          sprt_all_gather_linear_grad_weight_f32(
              x.wide.data(), 2, wideDys, wantPtrs, dySizes, rows, K, layout,
              chunks, 0, f32Workspace.get(), f32Need);
          int64_t f32Bytes = sprt_bytes_sent(0);
          int64_t need = slotBytes(chunks, n, rows, K, bytesOf(xd));
          GuardedWorkspace workspace(need);
          sprt_reset_bytes_sent();
          sprt::resetWorkspaceUse();
          sprt_all_gather_linear_grad_weight_typed(
              x.bytes.data(), xd, 2, storedDys, dyd, gotPtrs, dySizes, rows, K,
              layout, chunks, 0, workspace.get(), need);
          EXPECT_EQ(sprt_bytes_sent(0) * 4, f32Bytes * bytesOf(xd)) << where;
          EXPECT_TRUE(workspace.guardIntact()) << where;
          EXPECT_EQ(sprt::workspaceUse().byOp["all_gather_matmul_grad_weight"],
                    need)
              << where;
          EXPECT_EQ(got, want) << where;
        }
}
} // namespace
