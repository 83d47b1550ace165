//===- FusedBackwardTest.cpp - the backward's fused collective GEMMs ------===//
//
// Under mpirun with 2 and 4 ranks (part of sprt_collective_tests). The
// backward of a sequence-parallel column GEMM, fused, against the unfused
// collective followed by the plain gradient GEMM, for 1, 2, 4 and 8 chunks:
//   - the input gradient: sprt_linear_reduce_scatter_f32 with the weight
//     layout flipped is reduce_scatter(sprt_linear_grad_input_f32);
//   - the weight gradients: sprt_all_gather_linear_grad_weight_f32 of one
//     and of three GEMMs is sprt_linear_grad_weight_f32 of the gathered
//     input, with the same bytes sent and a workspace of min(chunks, 2)
//     chunks that the kernel does not overrun.
//
//===----------------------------------------------------------------------===//

#include "../core/Workspace.h"
#include "CollectiveTestUtil.h"

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace sprt_test;

namespace {

/// Deterministic values in [-1, 1) that differ across ranks and tensors.
std::vector<float> pattern(size_t n, int64_t rank, int64_t salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = float((rank * 37 + int64_t(i) * 11 + salt * 5) % 23) / 11.5f - 1.0f;
  return v;
}

void expectNear(const std::vector<float> &got, const std::vector<float> &want,
                const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::abs(want[i])))
        << "element " << i << ", " << what;
}

} // namespace

TEST(FusedBackward, InputGradientIsMatmulReduceScatterWithTheFlippedLayout) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // The column GEMM's forward: x [n * rows, K] -> y [n * rows, N]; its input
  // gradient dx = linear_grad_input(dy, W) is partial, reduce-scattered to
  // this rank's rows.
  const int64_t rows = 8, K = 5, N = 3;
  std::vector<float> dy = pattern(size_t(n * rows * N), r, 1),
                     w = pattern(size_t(N * K), 0, 2);
  for (int32_t inOut : {0, 1}) {
    std::vector<float> dx(size_t(n * rows * K)), want(size_t(rows * K));
    sprt_linear_grad_input_f32(dy.data(), w.data(), dx.data(), n * rows, K, N,
                               inOut);
    sprt_reset_bytes_sent();
    sprt_reduce_scatter_f32(dx.data(), want.data(), 2, n * rows, K, 1, 1, 0, 0,
                            0, nullptr, 0);
    int64_t unfusedBytes = sprt_bytes_sent(0);
    for (int64_t chunks : {1, 2, 4, 8}) {
      int64_t need = std::min<int64_t>(chunks, 2) * n * (rows / chunks) * K * 4;
      GuardedWorkspace workspace(need);
      std::vector<float> got(want.size(), -7.0f);
      sprt_reset_bytes_sent();
      // dy [n * rows, N] times W is the forward GEMM with in = N, out = K
      // and the other weight layout.
      sprt_linear_reduce_scatter_f32(dy.data(), w.data(), nullptr, got.data(),
                                     rows, N, K, !inOut, chunks, 0,
                                     workspace.get(), need);
      EXPECT_EQ(sprt_bytes_sent(0), unfusedBytes) << "chunks " << chunks;
      EXPECT_TRUE(workspace.guardIntact()) << "chunks " << chunks;
      expectNear(got, want,
                 "chunks " + std::to_string(chunks) + ", in_out " +
                     std::to_string(inOut));
    }
  }
}

TEST(FusedBackward, WeightGradientsOfAGatherMatchGatherThenGradWeight) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // This rank's input block: rows = [s/t = 4, b = 2] of K; three GEMMs read
  // its gather (Llama's q, k, v), with N = 3, 6 and 2 output features.
  const int64_t rows = 8, K = 5;
  const std::vector<int64_t> outs = {3, 6, 2};
  std::vector<float> x = pattern(size_t(rows * K), r, 3);
  std::vector<std::vector<float>> dys;
  for (size_t j = 0; j < outs.size(); ++j)
    dys.push_back(pattern(size_t(n * rows * outs[j]), r, 4 + int64_t(j)));
  std::vector<float> gathered(size_t(n * rows * K));
  sprt_reset_bytes_sent();
  sprt_all_gather(x.data(), gathered.data(), 4, 3, 4, 2, K, 1, 0, 0, 0, nullptr,
                  0);
  int64_t unfusedBytes = sprt_bytes_sent(0);
  for (int32_t inOut : {0, 1})
    for (int32_t count : {1, 3}) {
      std::vector<std::vector<float>> want;
      for (int32_t j = 0; j < count; ++j) {
        want.emplace_back(size_t(K * outs[size_t(j)]));
        sprt_linear_grad_weight_f32(gathered.data(), dys[size_t(j)].data(),
                                    want.back().data(), n * rows, K,
                                    outs[size_t(j)], inOut);
      }
      for (int64_t chunks : {1, 2, 4, 8}) {
        // min(chunks, 2) chunks of every rank's rows of x.
        int64_t need =
            std::min<int64_t>(chunks, 2) * n * (rows / chunks) * K * 4;
        EXPECT_EQ(need, int64_t(gathered.size()) * 4 *
                            std::min<int64_t>(chunks, 2) / chunks);
        GuardedWorkspace workspace(need);
        std::vector<std::vector<float>> got;
        std::vector<const float *> dyPtrs;
        std::vector<float *> dwPtrs;
        std::vector<int64_t> dySizes;
        for (int32_t j = 0; j < count; ++j) {
          got.emplace_back(want[size_t(j)].size(), -7.0f);
          dyPtrs.push_back(dys[size_t(j)].data());
          dySizes.push_back(int64_t(dys[size_t(j)].size()));
        }
        for (auto &g : got)
          dwPtrs.push_back(g.data());
        sprt_reset_bytes_sent();
        sprt::resetWorkspaceUse();
        sprt_all_gather_linear_grad_weight_f32(
            x.data(), count, dyPtrs.data(), dwPtrs.data(), dySizes.data(), rows,
            K, inOut, chunks, 0, workspace.get(), need);
        std::string what = "chunks " + std::to_string(chunks) + ", in_out " +
                           std::to_string(inOut) + ", GEMMs " +
                           std::to_string(count);
        EXPECT_EQ(sprt_bytes_sent(0), unfusedBytes) << what;
        EXPECT_TRUE(workspace.guardIntact()) << what;
        EXPECT_EQ(sprt::workspaceUse().byOp["all_gather_matmul_grad_weight"],
                  need)
            << what;
        for (int32_t j = 0; j < count; ++j)
          expectNear(got[size_t(j)], want[size_t(j)],
                     what + ", dw " + std::to_string(j));
      }
    }
}

TEST(FusedBackward, WeightGradientsRejectBadArguments) {
  lineMesh();
  int64_t n = worldSize();
  const int64_t rows = 8, K = 5, N = 3;
  std::vector<float> x(rows * K, 1.0f), dy(n * rows * N, 1.0f), dw(N * K);
  const float *dys[] = {dy.data()};
  float *dws[] = {dw.data()};
  int64_t sizes[] = {int64_t(dy.size())};
  // Four chunks: two of them, n * 2 rows of K.
  int64_t need = 2 * n * 2 * K * 4;
  std::vector<char> workspace(static_cast<size_t>(need));
  std::string error = invalidArgument([&] {
    sprt_all_gather_linear_grad_weight_f32(x.data(), 1, dys, dws, sizes, rows,
                                           K, 0, 4, 0, workspace.data(),
                                           need - 4);
  });
  EXPECT_EQ(error, "sprt: dist.all_gather_matmul_grad_weight "
                   "(sprt_all_gather_linear_grad_weight_f32) needs a "
                   "workspace of " +
                       std::to_string(need) + " bytes, was given " +
                       std::to_string(need - 4) + " bytes");
  // Three chunks do not divide 8 rows.
  EXPECT_THROW(sprt_all_gather_linear_grad_weight_f32(x.data(), 1, dys, dws,
                                                      sizes, rows, K, 0, 3, 0,
                                                      workspace.data(), need),
               std::invalid_argument);
  // A dy that is not a whole number of gathered rows.
  int64_t odd[] = {sizes[0] - 1};
  error = invalidArgument([&] {
    sprt_all_gather_linear_grad_weight_f32(x.data(), 1, dys, dws, odd, rows, K,
                                           0, 4, 0, workspace.data(), need);
  });
  EXPECT_NE(error.find("not a multiple of the " + std::to_string(n * rows) +
                       " gathered rows"),
            std::string::npos)
      << error;
}
