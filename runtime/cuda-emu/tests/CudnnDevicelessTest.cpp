//===- CudnnDevicelessTest.cpp - cuDNN's graphs checked without a GPU -----===//
//
// The emulator's build of runtime/cuda/CudnnGraphs.cpp (SPRT_CUDNN_DEVICELESS):
// the selection names it, a prepared shape gets the real libcudnn's verdict
// for both directions (accepted, or cuDNN's reason for the native kernel),
// and a call whose shape was not prepared is named and runs on the
// emulator's SDPA, as cuDNN's forward defines it. (The cuda conformance
// suite's CudnnAttention tests check the graphs' numbers against the
// native kernels.) Skipped where cuDNN cannot be selected.
//
//===----------------------------------------------------------------------===//

#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

class CudnnDeviceless : public testing::Test {
protected:
  void SetUp() override {
    const std::string line = sprt_attention_select(SPRT_DTYPE_BF16, "cudnn");
    // No libcudnn.so.9 here, or one that cannot check deviceless (before
    // 9.11): test/e2e/cuda/cudnn-deviceless-emu.test requires the check.
    if (line.rfind("native (", 0) == 0)
      GTEST_SKIP() << line;
    ASSERT_EQ(line.rfind("cudnn (cuDNN 9.", 0), 0u) << line;
    ASSERT_NE(line.find("no GPU: its graphs checked deviceless for an H100 "
                        "and run by the CUDA emulator's SDPA"),
              std::string::npos)
        << line;
  }
  void TearDown() override { sprt_attention_select(SPRT_DTYPE_F32, "native"); }

  /// What preparing the shape says on stderr.
  static std::string prepare(int64_t S, int64_t D, int32_t backward,
                             double dropout = 0.0) {
    testing::internal::CaptureStderr();
    sprt_attention_prepare(S, S, 0, 0, /*B=*/2, /*heads=*/4, /*kv_heads=*/2, D,
                           /*causal=*/1, /*document_causal=*/0, dropout,
                           backward);
    return testing::internal::GetCapturedStderr();
  }
};

TEST_F(CudnnDeviceless, PreparedShapeGetsBothVerdicts) {
  const std::string said = prepare(128, 64, /*backward=*/1);
  EXPECT_NE(said.find("accepts the graph for sm_90 (no GPU here): forward "
                      "bf16 B=2 heads=4/2 Sq=128 Sk=128 D=64 band +0: "),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("accepts the graph for sm_90 (no GPU here): backward "
                      "bf16 B=2 heads=4/2 Sq=128 Sk=128 D=64 band +0: "),
            std::string::npos)
      << said;
  EXPECT_NE(said.find(" engine configs (engines "), std::string::npos) << said;
}

TEST_F(CudnnDeviceless, ForwardOnlyShapeChecksTheForward) {
  const std::string said = prepare(96, 32, /*backward=*/0);
  EXPECT_NE(said.find("forward bf16 B=2 heads=4/2 Sq=96 Sk=96 D=32"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("backward"), std::string::npos) << said;
}

TEST_F(CudnnDeviceless, DropoutChecksBothDirections) {
  const std::string said = prepare(64, 64, /*backward=*/0, 0.1);
  EXPECT_NE(said.find("(no GPU here): backward bf16 B=2 heads=4/2 Sq=64 "
                      "Sk=64 D=64 band +0 dropout 0.100000: "),
            std::string::npos)
      << said;
}

TEST_F(CudnnDeviceless, RefusalIsCudnnsReason) {
  // cudnn-frontend refuses a head dimension that is not a multiple of 8.
  const std::string said = prepare(32, 12, /*backward=*/1);
  EXPECT_NE(said.find("attention on the native kernel: forward bf16 B=2 "
                      "heads=4/2 Sq=32 Sk=32 D=12 band +0: "),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("multiple of 8"), std::string::npos) << said;
  EXPECT_EQ(said.find("accepts"), std::string::npos) << said;
}

TEST_F(CudnnDeviceless, UnpreparedCallIsNamedAndRunsOnTheGraph) {
  const int64_t S = 16, B = 2, heads = 4, kvHeads = 2, D = 16;
  const size_t qn = size_t(S * B * heads * D), kn = size_t(S * B * kvHeads * D);
  std::vector<float> host(qn);
  for (size_t i = 0; i < qn; ++i)
    host[i] = std::sin(0.37 * double(i));
  float *q, *k, *v, *out;
  ASSERT_EQ(cudaMalloc(&q, qn * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&k, kn * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&v, kn * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, qn * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(q, host.data(), qn * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(k, host.data(), kn * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(v, host.data(), kn * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  testing::internal::CaptureStderr();
  sprt_attention_f32(q, k, v, nullptr, out, S, S, 0, B, heads, kvHeads, D,
                     /*causal=*/1, /*document_causal=*/0, /*rotary_dim=*/0,
                     /*theta=*/0.0, /*dropout_rate=*/0.0, /*seed=*/1,
                     /*stream=*/0, B, 0, heads, 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("attention forward bf16 B=2 heads=4/2 Sq=16 Sk=16 "
                      "D=16 band +0 was not readied at start-up"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("accepts the graph for sm_90 (no GPU here): forward "
                      "bf16 B=2 heads=4/2 Sq=16 Sk=16 D=16 band +0: "),
            std::string::npos)
      << said;
  std::vector<float> got(qn);
  ASSERT_EQ(cudaMemcpy(got.data(), out, qn * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  // The first query row sees only the first key: its output is that key's
  // value row (of its key / value head), in bf16 (staged there and back).
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t d = 0; d < D; ++d) {
      const float want = host[size_t((h / (heads / kvHeads)) * D + d)];
      EXPECT_NEAR(got[size_t(h * D + d)], want, std::fabs(want) / 128.0f);
    }
  for (float *p : {q, k, v, out})
    cudaFree(p);
}

} // namespace
