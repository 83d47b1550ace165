//===- EmuTest.cu - the CUDA emulator's own checks ------------------------===//
//
// What the conformance suite relies on the emulator for: every thread of a
// grid runs, barriers order shared memory, shuffles move lanes' values, a
// captured stream replays its work, and what a GPU refuses is refused.
//
//===----------------------------------------------------------------------===//

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

__global__ void writeIndex(int64_t *out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = i + 1000 * int64_t(blockIdx.y);
}

/// Block sum through shared memory: thread 0's read is after every write.
__global__ void blockSumShared(const float *in, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (unsigned i = 0; i < blockDim.x; ++i)
      s += part[i];
    out[blockIdx.x] = s;
  }
}

__global__ void warpSums(const int *in, int *out) {
  int v = in[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  out[threadIdx.x] = v;
  out[blockDim.x + threadIdx.x] = __shfl_sync(0xffffffffu, in[threadIdx.x], 3);
}

__global__ void dynamicShared(float *out) {
  extern __shared__ float buf[];
  buf[blockDim.x - 1 - threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];
}

__global__ void addOne(float *x) { x[threadIdx.x] += 1.0f; }

template <typename T> struct Device {
  T *p = nullptr;
  explicit Device(size_t n) { EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), 0); }
  ~Device() { cudaFree(p); }
};

TEST(CudaEmu, EveryThreadOfTheGridRuns) {
  const int64_t n = 1000;
  Device<int64_t> d(n * 2);
  writeIndex<<<dim3(4, 2), 256>>>(d.p, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<int64_t> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), d.p, n * 8, cudaMemcpyDeviceToHost), 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_TRUE(h[i] == i || h[i] == i + 1000) << i;
}

TEST(CudaEmu, BarriersOrderSharedMemory) {
  std::vector<float> in(3 * 256);
  std::iota(in.begin(), in.end(), 0.0f);
  Device<float> din(in.size()), dout(3);
  cudaMemcpy(din.p, in.data(), in.size() * 4, cudaMemcpyHostToDevice);
  blockSumShared<<<3, 256>>>(din.p, dout.p);
  float out[3];
  cudaMemcpy(out, dout.p, sizeof out, cudaMemcpyDeviceToHost);
  for (int b = 0; b < 3; ++b) {
    float want = 0.0f;
    for (int i = 0; i < 256; ++i)
      want += in[size_t(b * 256 + i)];
    EXPECT_EQ(out[b], want) << b;
  }
}

TEST(CudaEmu, ShufflesMoveLanesValues) {
  std::vector<int> in(64);
  std::iota(in.begin(), in.end(), 1);
  Device<int> din(64), dout(128);
  cudaMemcpy(din.p, in.data(), 64 * 4, cudaMemcpyHostToDevice);
  warpSums<<<1, 64>>>(din.p, dout.p);
  std::vector<int> out(128);
  cudaMemcpy(out.data(), dout.p, 128 * 4, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 64; ++t) {
    const int warp = t / 32;
    EXPECT_EQ(out[size_t(t)], 32 * (32 * warp + 1) + 31 * 16) << t;
    EXPECT_EQ(out[size_t(64 + t)], in[size_t(32 * warp + 3)]) << t;
  }
}

TEST(CudaEmu, DynamicSharedMemoryAndItsLimit) {
  Device<float> d(128);
  dynamicShared<<<1, 128, 128 * sizeof(float)>>>(d.p);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> out(128);
  cudaMemcpy(out.data(), d.p, 128 * 4, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 128; ++t)
    EXPECT_EQ(out[size_t(t)], float(127 - t));
  // Past 48 KiB only after cudaFuncSetAttribute, as on the device.
  dynamicShared<<<1, 128, 64 << 10>>>(d.p);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST(CudaEmu, LaunchesPastTheLimitsAreRefused) {
  Device<int64_t> d(8);
  writeIndex<<<1, 2048>>>(d.p, 8);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  writeIndex<<<dim3(1, 70000), 32>>>(d.p, 8);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
}

TEST(CudaEmu, CopiesNeedDeviceMemory) {
  std::vector<float> host(4), other(4);
  EXPECT_EQ(cudaMemcpy(other.data(), host.data(), 16, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  Device<float> d(4);
  EXPECT_EQ(cudaMemcpy(d.p, host.data(), 32, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue); // past the allocation's end
  EXPECT_EQ(cudaMemcpy(d.p, host.data(), 16, cudaMemcpyHostToDevice),
            cudaSuccess);
}

TEST(CudaEmu, ACapturedStreamReplaysItsWork) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), 0);
  Device<float> d(32);
  ASSERT_EQ(cudaMemsetAsync(d.p, 0, 32 * 4, s), 0);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), 0);
  addOne<<<1, 32, 0, s>>>(d.p);
  // Synchronising a capturing stream fails the capture, as CUDA's does.
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), 0);
  float h[32];
  cudaMemcpy(h, d.p, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[0], 0.0f) << "captured work runs only when replayed";
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), 0);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(cudaGraphLaunch(exec, s), 0);
  cudaMemcpy(h, d.p, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[31], 3.0f);

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), 0);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  cudaGraph_t broken;
  EXPECT_EQ(cudaStreamEndCapture(s, &broken),
            cudaErrorStreamCaptureInvalidated);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(CudaEmu, AStreamThatWaitsForACaptureJoinsIt) {
  cudaStream_t s, side;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), 0);
  ASSERT_EQ(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), 0);
  cudaEvent_t fork, back;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&back, cudaEventDisableTiming);
  Device<float> d(32);
  ASSERT_EQ(cudaMemsetAsync(d.p, 0, 32 * 4, s), 0);
  // Forked to `side` and joined back: side's work is the graph's.
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), 0);
  ASSERT_EQ(cudaEventRecord(fork, s), 0);
  ASSERT_EQ(cudaStreamWaitEvent(side, fork, 0), 0);
  cudaStreamCaptureStatus status;
  ASSERT_EQ(cudaStreamIsCapturing(side, &status), 0);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  addOne<<<1, 32, 0, side>>>(d.p);
  ASSERT_EQ(cudaEventRecord(back, side), 0);
  ASSERT_EQ(cudaStreamWaitEvent(s, back, 0), 0);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), 0);
  ASSERT_EQ(cudaStreamIsCapturing(side, &status), 0);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  float h[32];
  cudaMemcpy(h, d.p, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[0], 0.0f) << "side's captured work runs only when replayed";
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), 0);
  ASSERT_EQ(cudaGraphLaunch(exec, s), 0);
  ASSERT_EQ(cudaGraphLaunch(exec, s), 0);
  cudaMemcpy(h, d.p, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[5], 2.0f);

  // Forked and not joined back: the capture fails, as CUDA's does.
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), 0);
  ASSERT_EQ(cudaEventRecord(fork, s), 0);
  ASSERT_EQ(cudaStreamWaitEvent(side, fork, 0), 0);
  addOne<<<1, 32, 0, side>>>(d.p);
  cudaGraph_t unjoined;
  EXPECT_EQ(cudaStreamEndCapture(s, &unjoined), cudaErrorStreamCaptureUnjoined);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(fork);
  cudaEventDestroy(back);
  cudaStreamDestroy(side);
  cudaStreamDestroy(s);
}

/// Half of a warp at __syncthreads, the other half in a shuffle that waits
/// for it: a hang on a GPU.
__global__ void divergentShuffle(int *p) {
  if (threadIdx.x < 16)
    __syncthreads();
  else
    p[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 0);
}

TEST(CudaEmuDeathTest, ThreadsThatCannotGoOnAreAnError) {
  EXPECT_DEATH(
      {
        Device<int> d(32);
        divergentShuffle<<<1, 32>>>(d.p);
      },
      "kernel divergentShuffle, block \\(0, 0, 0\\): the threads cannot go on");
}

} // namespace
